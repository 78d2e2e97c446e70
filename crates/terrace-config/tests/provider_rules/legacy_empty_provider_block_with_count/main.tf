provider "aws" {
  region = "us-east-1"
}

module "child" {
  source = "./child"
  count  = 2
}
