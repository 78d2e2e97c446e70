variable "regions" {
  type    = list(string)
  default = []
}

provider "aws" {
  alias    = "by_region"
  for_each = toset(var.regions)
  region   = each.key
}

resource "aws_vpc" "example" {
  for_each = toset(var.regions)
  provider = aws.by_region[each.key]
}
