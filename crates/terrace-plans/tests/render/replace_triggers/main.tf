resource "terraform_data" "a" {
  input            = "same"
  triggers_replace = { v = 2, keep = "k" }
}
