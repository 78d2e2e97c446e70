variable "name" {
  type    = string
  default = "v"
}

resource "terraform_data" "d" {
  input = var.name
}

output "known" {
  value = terraform_data.d.input
}

output "obj" {
  value = {
    a = terraform_data.d.output
    b = "known"
  }
}

terraform {
  required_providers {
    null = {
      source = "hashicorp/null"
    }
  }
}

resource "null_resource" "n" {
  triggers = {
    name = var.name
  }
}
