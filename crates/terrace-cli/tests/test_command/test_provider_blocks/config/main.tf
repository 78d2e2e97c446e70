terraform {
  required_providers {
    kv = {
      source = "terrace/kv"
    }
  }
}

variable "directory" {
  type    = string
  default = "module-default-store"
}

variable "key" {
  type    = string
  default = "k"
}

provider "kv" {
  directory = var.directory
}

resource "kv_entry" "e" {
  key   = var.key
  value = "v"
}

output "id" {
  value = kv_entry.e.id
}

output "next_namespace" {
  value = "second"
}
