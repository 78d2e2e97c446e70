module "child" {
  source = "./child"
  providers = {
    aws = aws
  }
}
