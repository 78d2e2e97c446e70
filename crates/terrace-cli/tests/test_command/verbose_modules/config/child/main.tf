variable "name" {
  type = string
}

resource "terraform_data" "named" {
  input = var.name
}

output "name" {
  value = terraform_data.named.output
}
