provider "aws" {
  alias  = "by_region"
  region = "eu-west-1"
}

run "create" {
}
