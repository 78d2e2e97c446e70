terraform {
  required_providers {
    aws = {
      source                = "hashicorp/aws"
      configuration_aliases = [aws.src, aws.dst]
    }
  }
}

resource "aws_vpn_gateway" "dst" {
  provider = aws.dst
}
