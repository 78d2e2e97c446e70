provider "aws" {
  region = "us-west-1"
}

module "child" {
  source = "./child"
}
