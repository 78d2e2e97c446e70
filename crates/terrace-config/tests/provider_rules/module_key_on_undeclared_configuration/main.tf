module "mod" {
  source   = "./mod"
  for_each = toset(["a"])
  providers = {
    aws = aws.nope[each.key]
  }
}
