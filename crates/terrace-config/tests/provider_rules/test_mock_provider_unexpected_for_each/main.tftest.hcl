mock_provider "aws" {
  alias    = "west"
  for_each = toset(["a", "b"])
}

run "create" {
}
