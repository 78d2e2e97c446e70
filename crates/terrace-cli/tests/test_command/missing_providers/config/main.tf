terraform {
  required_providers {
    foo = {
      source = "hashicorp/foo"
    }
  }
}

resource "foo_thing" "a" {
  name = "a"
}

resource "bar_thing" "b" {
  name = "b"
}

resource "terraform_data" "c" {
  input = "c"
}
