terraform {
  required_providers {
    aws = {
      source = "hashicorp/aws"
    }
  }
}

module "grandchild" {
  source = "./grandchild"
}
