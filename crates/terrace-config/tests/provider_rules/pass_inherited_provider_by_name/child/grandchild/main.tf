terraform {
  required_providers {
    aws = {
      source                = "hashicorp/aws"
      configuration_aliases = [aws.alt]
    }
  }
}

resource "aws_instance" "web" {
  provider = aws.alt
}
