resource "terraform_data" "a" {
  input            = { a = 1 }
  triggers_replace = "t"
}
