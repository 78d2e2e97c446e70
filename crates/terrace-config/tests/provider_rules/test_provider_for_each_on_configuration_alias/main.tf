terraform {
  required_providers {
    aws = {
      source                = "hashicorp/aws"
      configuration_aliases = [aws.primary]
    }
  }
}

resource "aws_instance" "example" {
  provider = aws.primary
}
