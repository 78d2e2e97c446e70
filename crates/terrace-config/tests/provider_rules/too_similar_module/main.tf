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

module "per_region" {
  source   = "./mod"
  for_each = var.aws_regions
  providers = {
    aws = aws.by_region[each.key]
  }
}
