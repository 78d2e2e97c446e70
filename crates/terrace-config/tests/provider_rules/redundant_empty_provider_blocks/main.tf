provider "aws" {
  region = "us-east-1"
}

provider "aws" {
  alias  = "west"
  region = "us-west-2"
}

module "child" {
  source = "./child"
  providers = {
    aws      = aws
    aws.west = aws.west
  }
}
