variables {
  store = "test-store"
}

# Evaluated in the test file's scope: its own variables, the module's
# variables as the test sets them, and earlier runs' outputs.
provider "kv" {
  directory = var.store
  namespace = "first"
}

provider "kv" {
  alias     = "later"
  directory = var.store
  namespace = run.first.next_namespace
}

run "first" {
  assert {
    condition     = output.id == "first/k"
    error_message = "id: ${output.id}"
  }
}

run "second" {
  state_key = "later"

  providers = {
    kv = kv.later
  }

  variables {
    key = "k2"
  }

  assert {
    condition     = output.id == "second/k2"
    error_message = "id: ${output.id}"
  }
}
