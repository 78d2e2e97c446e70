variable "zones" {
  type    = set(string)
  default = []
}

provider "aws" {
  alias    = "by_zone"
  for_each = var.zones
  region   = each.key
}

resource "aws_subnet" "s" {
  for_each = var.zones
  provider = aws.by_zone[each.key]
}
