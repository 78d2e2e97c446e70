mock_provider "aws" {
  for_each = toset(["a"])
}

run "create" {
}
