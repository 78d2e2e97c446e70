resource "terraform_data" "u" { input = "y" }
resource "terraform_data" "a" {
  input = { k = terraform_data.u.output, l = ["a", terraform_data.u.output], m = { z = terraform_data.u.output } }
}
resource "terraform_data" "c" {
  input = [terraform_data.u.output, "x", { q = terraform_data.u.output }]
}
output "u" { value = terraform_data.u.output }
output "mixed" { value = { a = terraform_data.u.output, b = "x" } }
