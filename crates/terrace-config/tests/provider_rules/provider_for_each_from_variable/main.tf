variable "aws_regions" {
  type = map(object({
    enabled = optional(bool, true)
  }))
  default = {
    "eu-west-1" = {}
    "us-east-1" = { enabled = false }
  }
}

provider "aws" {
  alias    = "by_region"
  for_each = var.aws_regions
  region   = each.key
}
