variable "value" {
  type    = string
  default = "v1"
}

resource "terraform_data" "a" {
  input = var.value
}

resource "terraform_data" "b" {
  input = "b-${var.value}"
}

output "a" {
  value = terraform_data.a.output
}

output "b" {
  value = terraform_data.b.output
}
