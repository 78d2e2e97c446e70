locals {
  regions = { "us" = "us-east-1", "eu" = "eu-west-1" }
}

provider "aws" {
  alias    = "by_region"
  for_each = local.regions
  region   = each.value
}

module "mod" {
  source   = "./mod"
  for_each = toset(["eu"])
  providers = {
    aws.x[each.key] = aws.by_region[each.key]
  }
}
