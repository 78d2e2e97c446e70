terraform {
  required_providers {
    mycloud = {
      source = "example.com/corp/mycloud"
    }
    aws = {
      source = "hashicorp/aws"
    }
  }
}
