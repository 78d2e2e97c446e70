resource "terraform_data" "a" {
  input = sensitive({ a = 2 })
}
resource "terraform_data" "b" {
  input = { l = [sensitive("x"), "z"], m = { s = sensitive(2) } }
}
resource "terraform_data" "c" {
  input = sensitive(["x"])
}
output "o" {
  value     = terraform_data.b.input
  sensitive = true
}
