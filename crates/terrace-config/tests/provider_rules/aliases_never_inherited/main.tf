provider "aws" {
  alias  = "west"
  region = "us-west-2"
}

module "child" {
  source = "./child"
}
