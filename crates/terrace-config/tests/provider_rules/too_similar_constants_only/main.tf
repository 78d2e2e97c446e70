provider "aws" {
  alias    = "by_region"
  for_each = toset(["us-east-1", "eu-west-1"])
  region   = each.key
}

resource "aws_vpc" "example" {
  for_each = toset(["us-east-1", "eu-west-1"])
  provider = aws.by_region[each.key]
}
