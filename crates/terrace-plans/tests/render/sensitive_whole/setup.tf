resource "terraform_data" "a" {
  input = sensitive({ a = 1 })
}
resource "terraform_data" "b" {
  input = { l = [sensitive("x"), "y"], m = { s = sensitive(1) } }
}
