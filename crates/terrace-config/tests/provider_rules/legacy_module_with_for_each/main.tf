module "child" {
  source   = "./child"
  for_each = toset(["a", "b"])
}
