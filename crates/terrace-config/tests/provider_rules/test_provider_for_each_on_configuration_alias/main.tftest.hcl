mock_provider "aws" {
  alias    = "primary"
  for_each = toset(["a"])
}

run "create" {
}
