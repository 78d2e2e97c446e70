resource "aws_s3_bucket" "b" {
  for_each = toset(["a"])
  provider = aws.nope[each.key]
}
