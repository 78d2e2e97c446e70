variable "names" {
  type    = map(string)
  default = { a = "A", b = "B" }
}

locals {
  prefix = "p-${var.names["a"]}"
}

resource "terraform_data" "a" {
  count = 2
  input = { foo = { bar = [1, 2, "${local.prefix}-${count.index}"] } }
}

resource "terraform_data" "b" {
  for_each = var.names
  input    = [each.key, each.value, terraform_data.a[0].output, terraform_data.a[*].id]
  triggers_replace = {
    k = terraform_data.a[1].output.foo["bar"][2]
    m = path.module
    w = terraform.workspace
  }
  depends_on = [terraform_data.a, terraform_data.c[0], module.m]
}

resource "terraform_data" "c" {
  count = length(var.names) > 1 ? 1 : 0
  input = [for k, v in var.names : "${k}=${v}" if v != local.prefix]
}

data "terraform_remote_state" "rs" {
  backend = "local"
  config = {
    path = "${path.module}/remote.tfstate"
  }
  defaults = {
    x = 1
  }
}

resource "terraform_data" "d" {
  input = data.terraform_remote_state.rs.outputs.x
  lifecycle {
    create_before_destroy = true
  }
}

output "o" {
  value = [terraform_data.b["a"].output, terraform_data.c[0].id, var.names]
}

module "m" {
  source = "./m"
}

variable "all" {
  type        = string
  default     = "v"
  description = "d"
  sensitive   = true
  nullable    = false
}

variable "eph" {
  type      = string
  default   = "e"
  ephemeral = true
}

output "dup" {
  value       = [var.names, var.names, local.prefix, terraform_data.a]
  description = "dd"
  sensitive   = true
  depends_on  = [terraform_data.a[0], module.m]
}

output "cond" {
  sensitive = true
  value = var.all == "" ? terraform_data.a[0].id : terraform_data.c[0].id
}
