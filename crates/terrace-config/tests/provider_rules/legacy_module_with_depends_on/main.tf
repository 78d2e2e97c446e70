resource "aws_s3_bucket" "b" {
}

module "child" {
  source     = "./child"
  depends_on = [aws_s3_bucket.b, aws_s3_bucket.b]
}
