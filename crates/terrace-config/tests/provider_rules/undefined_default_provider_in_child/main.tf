terraform {
  required_providers {
    aws = {
      source = "hashicorp/aws"
    }
  }
}

module "child" {
  source = "./child"
  providers = {
    aws = aws
  }
}
