terraform {
  required_providers {
    kv = { source = "terrace/kv" }
  }
}
provider "kv" { directory = "${path.root}/store" }

resource "terraform_data" "a" {
  input = "k"
}

# Every attribute unknown: the planned values have none to show.
data "kv_entry" "d" {
  key = terraform_data.a.output
}
