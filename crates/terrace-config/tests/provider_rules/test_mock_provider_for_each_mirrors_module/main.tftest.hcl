mock_provider "aws" {
  alias    = "by_region"
  for_each = var.aws_regions
}

provider "aws" {
  region = "eu-west-1"
}

run "create" {
}
