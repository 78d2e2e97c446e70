locals {
  regions = { "us" = "us-east-1", "eu" = "eu-west-1" }
}

provider "aws" {
  for_each = local.regions
  region   = each.value
}
