resource "terraform_data" "a" {
  triggers_replace = "1"
  lifecycle { create_before_destroy = true }
}
