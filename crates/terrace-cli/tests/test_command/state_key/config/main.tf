variable "name" {
  type = string
}

resource "terraform_data" "item" {
  input = var.name
}

output "name" {
  value = terraform_data.item.output
}
