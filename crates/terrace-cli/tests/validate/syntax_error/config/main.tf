resource "terraform_data" "a" {
  input = "unterminated
}
