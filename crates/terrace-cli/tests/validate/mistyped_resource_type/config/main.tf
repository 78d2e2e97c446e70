resource "terraform_dat" "a" {}
resource "terraform_data" "b" {
  inptu = 1
}
output "x" { value = var.nope }
