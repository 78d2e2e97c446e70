variable "name" {
  type = string

  validation {
    condition     = length(var.name) > 0
    error_message = "The name must not be empty."
  }
}

resource "terraform_data" "inner" {
  input = "hello ${var.name}"
}

output "greeting" {
  value = terraform_data.inner.output
}

output "id" {
  value = terraform_data.inner.id
}
