module "grandchild" {
  source = "./grandchild"
}
