terraform {
  required_providers {
    kv = { source = "terrace/kv" }
  }
}
provider "kv" { directory = "${path.root}/store" }

resource "kv_entry" "e" {
  key   = "k1"
  value = "v1"
}
