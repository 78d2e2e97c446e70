terraform {
  required_providers {
    wrong-name = {
      source = "hashicorp/foo"
    }
  }
}

resource "foo_resource" "r" {
}
