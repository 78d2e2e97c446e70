terraform {
  required_providers {
    acme = {
      source = "example.com/corp/acme"
    }
  }
}

provider "acme" {
  alias    = "one"
  endpoint = "https://one.example.com"
}

module "child" {
  source = "./child"
  providers = {
    acme.extra = acme.one
  }
}
