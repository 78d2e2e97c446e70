module "child" {
  source = "./child"
  providers = {
    terraform = terraform.west
  }
}
