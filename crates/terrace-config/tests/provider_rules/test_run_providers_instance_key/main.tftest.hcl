provider "aws" {
  alias  = "other"
  region = "eu-west-1"
}

run "create" {
  providers = {
    aws = aws.other["a"]
  }
}
