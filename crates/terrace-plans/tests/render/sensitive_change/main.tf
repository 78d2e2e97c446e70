resource "terraform_data" "a" {
  input = { s = sensitive("plain"), t = "secret", u = sensitive("same2") }
}
