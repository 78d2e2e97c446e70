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
  description = "Every region with a store, and whether the app is deployed there."
  type = map(object({
    namespace = string
    enabled   = optional(bool, true)
  }))
  default = {
    east = { namespace = "us-east-1" }
    west = { namespace = "us-west-2" }
    eu   = { namespace = "eu-central-1" }
  }
}

locals {
  # A region is removed in two steps (seed 002): first disable it, which
  # destroys its entries while its provider instance still exists, then
  # delete it from var.regions.
  deployed = { for name, region in var.regions : name => region if region.enabled }
}

provider "kv" {
  alias     = "by_region"
  for_each  = var.regions
  directory = "${path.root}/.terrace-quickstart"
  namespace = each.value.namespace
}

resource "random_pet" "app" {
  length = 2
}

resource "kv_entry" "app" {
  for_each = local.deployed
  provider = kv.by_region[each.key]

  key   = "app-name"
  value = "${random_pet.app.id} in ${each.value.namespace}"
  tags = {
    region = each.key
  }
}

output "entries" {
  value = { for region, entry in kv_entry.app : region => entry.id }
}
