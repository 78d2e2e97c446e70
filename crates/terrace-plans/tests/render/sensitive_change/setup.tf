resource "terraform_data" "a" {
  input = { s = "plain", t = sensitive("secret"), u = sensitive("same") }
}
