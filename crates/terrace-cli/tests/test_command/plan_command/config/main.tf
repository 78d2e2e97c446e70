variable "size" {
  type    = number
  default = 2
}

resource "terraform_data" "sized" {
  count = var.size
  input = "item-${count.index}"
}

output "inputs" {
  value = terraform_data.sized[*].input
}

output "outputs" {
  value = terraform_data.sized[*].output
}
