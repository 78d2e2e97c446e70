terraform {
  required_providers {
    aws = {
      source                = "hashicorp/aws"
      configuration_aliases = [aws.alternate]
    }
  }
}

# A module validated on its own: the expected configuration stands in.
resource "aws_instance" "web" {
  provider = aws.alternate
}
