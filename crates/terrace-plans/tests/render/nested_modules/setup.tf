module "m" {
  source = "./mod"
  count  = 2
}
resource "terraform_data" "root" { input = "r" }
