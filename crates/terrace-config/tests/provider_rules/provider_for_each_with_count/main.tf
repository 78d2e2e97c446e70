locals {
  regions = { "us" = "us-east-1", "eu" = "eu-west-1" }
}

provider "aws" {
  alias    = "by_region"
  for_each = local.regions
  count    = 2
  region   = each.value
}
