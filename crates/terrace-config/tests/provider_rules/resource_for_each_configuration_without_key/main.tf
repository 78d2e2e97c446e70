locals {
  regions = { "us" = "us-east-1", "eu" = "eu-west-1" }
}

provider "aws" {
  alias    = "by_region"
  for_each = local.regions
  region   = each.value
}

resource "aws_s3_bucket" "primary" {
  provider = aws.by_region
}
