a=1
bb = "x"
resource aws_s3_bucket b {
    bucket="${var.name}"
}
