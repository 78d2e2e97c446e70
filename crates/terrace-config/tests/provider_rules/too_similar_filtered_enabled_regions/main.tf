variable "aws_regions" {
  type = map(object({
    vpc_cidr_block = string
    enabled        = optional(bool, true)
  }))
  default = {}
}

provider "aws" {
  alias    = "by_region"
  for_each = var.aws_regions
  region   = each.key
}

locals {
  enabled_regions = tomap({
    for region, config in var.aws_regions : region => config
    if config.enabled
  })
}

resource "aws_vpc" "example" {
  for_each   = local.enabled_regions
  provider   = aws.by_region[each.key]
  cidr_block = each.value.vpc_cidr_block
}
