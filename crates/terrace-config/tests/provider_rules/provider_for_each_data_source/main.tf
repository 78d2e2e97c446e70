data "aws_regions" "all" {
}

provider "aws" {
  alias    = "by_region"
  for_each = toset(data.aws_regions.all.names)
  region   = each.key
}
