provider "aws" {
  alias    = "by_region"
  for_each = "us-east-1"
}
