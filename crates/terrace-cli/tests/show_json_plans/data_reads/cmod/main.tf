variable "v" {
  type = string
}

resource "terraform_data" "each" {
  input = var.v
}

# Only the instance whose resource changes waits for apply.
data "terraform_remote_state" "per_instance" {
  backend  = "local"
  config   = { path = "${path.root}/remote.tfstate" }
  defaults = { x = terraform_data.each.input }
}
