provider "aws" {
  alias  = "east"
  region = "us-east-1"
}

provider "aws" {
  alias  = "west"
  region = "us-west-1"
}

import {
  to       = aws_s3_bucket.b
  id       = "bucket"
  provider = aws.west
}

resource "aws_s3_bucket" "b" {
  provider = aws.east
}
