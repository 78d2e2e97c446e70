variable "in" {
  type = string
}

variable "opt" {
  type    = number
  default = 3
}

resource "terraform_data" "x" {
  input = var.in
}

module "grand" {
  source = "./grand"
  v      = terraform_data.x.output
}

output "out" {
  value = terraform_data.x.output
}

output "nested" {
  value = module.grand.g
}
