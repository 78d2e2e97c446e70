variable "name" {
  type    = string
  default = "alpha"
}

resource "terraform_data" "greeting" {
  input = "hello ${var.name}"
}

locals {
  upper = upper(var.name)
}

output "greeting" {
  value = terraform_data.greeting.output
}

output "upper" {
  value = local.upper
}
