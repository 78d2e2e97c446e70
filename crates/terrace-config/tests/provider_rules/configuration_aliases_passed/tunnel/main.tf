terraform {
  required_providers {
    aws = {
      source                = "hashicorp/aws"
      version               = ">= 2.7.0"
      configuration_aliases = [aws.src, aws.dst]
    }
  }
}

resource "aws_vpn_gateway" "src" {
  provider = aws.src
}

resource "aws_vpn_gateway" "dst" {
  provider = aws.dst
}
