module "child" {
  source = "./child"
  count  = 3
}
