terraform {
  required_providers {
    kv = { source = "terrace/kv" }
  }
}
provider "kv" { directory = "${path.root}/store" }

import {
  to = kv_entry.i
  id = "imp"
}
resource "kv_entry" "i" {
  key   = "imp"
  value = "v"
}
