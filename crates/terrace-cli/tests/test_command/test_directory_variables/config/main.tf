variable "x" {
  type = string
}

variable "y" {
  type    = string
  default = "default"
}

output "x" {
  value = var.x
}

output "y" {
  value = var.y
}
