resource "terraform_data" "u" { input = "x" }
resource "terraform_data" "a" {
  input = { k = "known", l = ["a"] }
}
