resource "terraform_data" "a" {
  input            = "same"
  triggers_replace = { v = 1, keep = "k" }
}
