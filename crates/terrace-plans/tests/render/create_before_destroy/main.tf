resource "terraform_data" "a" {
  triggers_replace = "2"
  lifecycle { create_before_destroy = true }
}
