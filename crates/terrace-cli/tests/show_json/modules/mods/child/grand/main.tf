variable "v" {}

resource "terraform_data" "g" {
  input = var.v
}

output "g" {
  value = terraform_data.g.output
}
