provider "aws" {
  alias  = "west"
  region = "us-west-1"
}

data "aws_caller_identity" "me" {
  for_each = toset(["a"])
  provider = aws.west[each.key]
}
