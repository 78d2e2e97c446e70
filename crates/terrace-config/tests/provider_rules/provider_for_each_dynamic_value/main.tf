resource "aws_s3_bucket" "b" {
}

provider "aws" {
  alias    = "by_bucket"
  for_each = aws_s3_bucket.b.tags
}
