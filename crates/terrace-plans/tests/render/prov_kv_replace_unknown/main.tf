terraform {
  required_providers {
    kv = { source = "terrace/kv" }
  }
}
provider "kv" { directory = "${path.root}/store" }

resource "terraform_data" "other" {
  input = "k2"
}

resource "kv_entry" "e" {
  key   = terraform_data.other.output
  value = "v1"
}
