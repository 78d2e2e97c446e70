removed {
  from = terraform_data.a
  lifecycle { destroy = false }
}
resource "terraform_data" "b" { input = "y" }
