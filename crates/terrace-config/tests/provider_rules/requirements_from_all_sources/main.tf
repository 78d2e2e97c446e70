terraform {
  required_providers {
    tls = {
      source  = "hashicorp/tls"
      version = "~> 3.0"
    }
  }
}

resource "random_pet" "p" {
}

module "child" {
  source = "./child"
}
