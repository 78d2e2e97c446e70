variable "name" {
  type    = string
  default = "world"
}

resource "terraform_data" "a" {
  input = "hello ${var.name}"
}

output "greeting" {
  value = terraform_data.a.output
}
