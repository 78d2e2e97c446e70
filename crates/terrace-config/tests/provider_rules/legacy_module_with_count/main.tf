module "child" {
  source = "./child"
  count  = 2
}
