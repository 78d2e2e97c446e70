mock_provider "aws" {
  alias = "by_region"
}

run "create" {
}
