terraform {
  required_providers {
    foo = {
      source = "hashicorp/foo"
    }
  }
}

module "mod" {
  source = "./mod"
  providers = {
    foo = foo
  }
}
