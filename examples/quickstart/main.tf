# The terrace quickstart: one `kv` provider configuration with an instance
# per region (provider `for_each`), a resource instance bound to each
# provider instance, and a random name shared by all of them. Everything
# runs offline: the providers are built from this repository and the
# key-value stores are directories under .terrace-quickstart/.

terraform {
  required_providers {
    kv     = { source = "terrace/kv" }
    random = { source = "hashicorp/random" }
  }
}

variable "regions" {
  description = "The regions to deploy to, each with its own store."
  type        = map(string)
  default = {
    east = "us-east-1"
    west = "us-west-2"
    eu   = "eu-central-1"
  }
}

provider "kv" {
  alias     = "by_region"
  for_each  = var.regions
  directory = "${path.root}/.terrace-quickstart"
  namespace = each.value
}

resource "random_pet" "app" {
  length = 2
}

resource "kv_entry" "app" {
  for_each = var.regions
  provider = kv.by_region[each.key]

  key   = "app-name"
  value = "${random_pet.app.id} in ${each.value}"
  tags = {
    region = each.key
  }
}

output "entries" {
  value = { for region, entry in kv_entry.app : region => entry.id }
}
