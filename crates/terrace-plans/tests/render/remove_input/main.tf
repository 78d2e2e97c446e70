resource "terraform_data" "a" {
  triggers_replace = "t"
}
