variable "prefix" {
  type    = string
  default = "setup"
}

resource "terraform_data" "prepared" {
  input = "${var.prefix}-ready"
}

output "token" {
  value = terraform_data.prepared.output
}
