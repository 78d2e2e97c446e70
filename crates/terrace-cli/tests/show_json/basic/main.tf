variable "name" {
  type        = string
  default     = "hello"
  description = "A name."
}

variable "secret" {
  type      = string
  default   = "s3cr3t"
  sensitive = true
}

variable "any" {
  default = null
}

variable "obj" {
  type = object({ a = number, b = optional(list(string), ["x"]) })
  default = { a = 1 }
}

resource "terraform_data" "const" {
  input = {
    n    = 1.5
    list = [true, null, "x"]
  }
  triggers_replace = "fixed"
}

resource "terraform_data" "empty" {}

output "const" {
  value       = "lit"
  description = "A constant."
}

output "secret" {
  value     = var.secret
  sensitive = true
  depends_on = [terraform_data.const]
}

output "fn" {
  value = upper("x")
}

output "nothing" {
  value = null
}
