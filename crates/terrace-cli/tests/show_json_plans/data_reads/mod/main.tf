variable "v" {
  type = string
}

resource "terraform_data" "inner" {
  input = var.v
}

output "input" {
  value = terraform_data.inner.input
}

data "terraform_remote_state" "in_module" {
  backend = "local"
  config  = { path = "${path.root}/remote.tfstate" }
}
