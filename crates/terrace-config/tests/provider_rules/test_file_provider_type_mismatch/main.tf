terraform {
  required_providers {
    foo = {
      source = "hashicorp/foo"
    }
  }
}

provider "bar" {
}

resource "foo_resource" "a" {
}
