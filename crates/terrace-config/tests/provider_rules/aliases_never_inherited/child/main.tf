terraform {
  required_providers {
    aws = {
      source                = "hashicorp/aws"
      configuration_aliases = [aws.west]
    }
  }
}

resource "aws_instance" "web" {
  provider = aws.west
}
