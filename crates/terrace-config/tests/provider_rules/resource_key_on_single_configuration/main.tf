provider "aws" {
  alias  = "west"
  region = "us-west-1"
}

resource "aws_s3_bucket" "b" {
  provider = aws.west["a"]
}
