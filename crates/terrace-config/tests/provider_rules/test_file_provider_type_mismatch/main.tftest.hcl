provider "foo" {
}

provider "bar" {
  alias = "other"
}

# Gives the test providers the types their names have in main.tf.
run "defaults" {
}

run "swapped" {
  providers = {
    foo = bar
  }
}
