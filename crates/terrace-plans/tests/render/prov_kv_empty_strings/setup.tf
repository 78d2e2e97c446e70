terraform {
  required_providers {
    kv = { source = "terrace/kv" }
  }
}
provider "kv" { directory = "${path.root}/store" }

resource "kv_entry" "updated" {
  key   = "updated"
  value = ""
  tags  = { a = "1" }
}
resource "kv_entry" "emptied" {
  key   = "emptied"
  value = "x"
  tags  = { a = "1" }
}
