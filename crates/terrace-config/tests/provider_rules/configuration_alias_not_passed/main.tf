provider "aws" {
  alias  = "usw1"
  region = "us-west-1"
}

module "tunnel" {
  source = "./tunnel"
  providers = {
    aws.src = aws.usw1
  }
}
