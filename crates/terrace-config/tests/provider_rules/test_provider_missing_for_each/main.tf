terraform {
  required_providers {
    aws = {
      source = "hashicorp/aws"
    }
  }
}

variable "aws_regions" {
  type = map(object({
    enabled = optional(bool, true)
  }))
  default = {
    "eu-west-1" = {}
  }
}

provider "aws" {
  alias    = "by_region"
  for_each = var.aws_regions

  region = each.key
}

resource "aws_instance" "example" {
  for_each = {
    for k, v in var.aws_regions : k => v
    if v.enabled
  }
  provider = aws.by_region[each.key]
}
