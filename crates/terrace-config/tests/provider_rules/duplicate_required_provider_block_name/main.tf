terraform {
  required_providers {
    other = {
      source = "hashicorp/default"
    }
  }
}

provider "default" {
}
