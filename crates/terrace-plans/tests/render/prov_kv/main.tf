terraform {
  required_providers {
    kv = { source = "terrace/kv" }
  }
}
provider "kv" { directory = "${path.root}/store" }

resource "kv_entry" "e" {
  key   = "k1"
  value = "v2"
  tags  = { a = "1", b = "2" }
  timeouts {
    create = "1m"
  }
}
resource "kv_entry" "r" {
  key   = "other"
  value = kv_entry.e.id
}
data "kv_entry" "d" {
  key = kv_entry.r.key
}
output "d" { value = data.kv_entry.d.value }
