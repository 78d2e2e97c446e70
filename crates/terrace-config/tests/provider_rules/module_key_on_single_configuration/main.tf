provider "aws" {
  alias  = "west"
  region = "us-west-1"
}

module "mod" {
  source = "./mod"
  providers = {
    aws = aws.west["a"]
  }
}
