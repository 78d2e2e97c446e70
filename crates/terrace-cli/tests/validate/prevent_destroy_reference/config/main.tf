variable "x" {
  default = true
}

resource "terraform_data" "p" {
  lifecycle {
    prevent_destroy = var.x
  }
}
