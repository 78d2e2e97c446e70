provider "aws" {
  alias    = "other"
  for_each = toset(["a", "b"])
  region   = each.key
}

run "create" {
  providers = {
    aws = aws.other
  }
}
