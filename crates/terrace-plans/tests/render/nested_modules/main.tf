module "m" {
  source = "./mod"
  count  = 2
}
module "z" {
  source = "./mod/inner"
}
resource "terraform_data" "root" { input = "r2" }
