module "inner" {
  source = "./inner"
}
resource "terraform_data" "a" {
  count = 11
  input = count.index
}
