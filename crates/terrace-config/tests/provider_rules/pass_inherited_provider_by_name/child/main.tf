terraform {
  required_providers {
    aws = {
      source = "hashicorp/aws"
    }
  }
}

module "grandchild" {
  source = "./grandchild"
  providers = {
    aws.alt = aws
  }
}
