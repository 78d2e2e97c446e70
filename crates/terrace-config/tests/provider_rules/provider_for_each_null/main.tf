provider "aws" {
  alias    = "by_region"
  for_each = null
}
