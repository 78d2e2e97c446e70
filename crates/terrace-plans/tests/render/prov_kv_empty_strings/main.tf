terraform {
  required_providers {
    kv = { source = "terrace/kv" }
  }
}
provider "kv" { directory = "${path.root}/store" }

resource "kv_entry" "updated" {
  key   = "updated"
  value = ""
  tags  = { a = "2" }
}
resource "kv_entry" "emptied" {
  key   = "emptied"
  value = ""
  tags  = { a = "1" }
}
resource "kv_entry" "created" {
  key   = "created"
  value = ""
}
