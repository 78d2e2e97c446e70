provider "aws" {
  depends_on = []
  source     = "hashicorp/aws"
}
