variable "label" {
  type = string
}

resource "terraform_data" "inner" {
  input = "child-${var.label}"
}

output "value" {
  value = terraform_data.inner.output
}
