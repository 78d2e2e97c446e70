terraform {
  required_providers {
    null = {
      source = "hashicorp/null"
    }
  }
}

data "null_data_source" "d" {}
