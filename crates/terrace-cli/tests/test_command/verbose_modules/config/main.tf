variable "size" {
  type    = number
  default = 2
}

variable "secret" {
  type      = string
  default   = "s3cr3t"
  sensitive = true
}

module "child" {
  source = "./child"
  count  = var.size
  name   = "c${count.index}"
}

data "terraform_remote_state" "shared" {
  backend = "local"

  config = {
    path = "${path.module}/remote.tfstate"
  }
}

resource "terraform_data" "regional" {
  input = "${data.terraform_remote_state.shared.outputs.region}-${var.size}"
}

resource "terraform_data" "secret" {
  input = var.secret
}

output "names" {
  value = module.child[*].name
}

output "secret" {
  value     = terraform_data.secret.output
  sensitive = true
}
