provider "aws" {
  alias    = "by_zone"
  for_each = toset([1, 2])
}
