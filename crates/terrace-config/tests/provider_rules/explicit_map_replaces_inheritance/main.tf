provider "aws" {
  region = "us-west-1"
}

provider "google" {
  project = "example"
}

module "child" {
  source = "./child"
  providers = {
    aws = aws
  }
}
