variable "prefix" {
  type    = string
  default = null
}

module "m" {
  source = "./mod"
}

module "named" {
  source = "./mod"
  name   = var.prefix
}

output "joined" {
  value = "${var.prefix}-${module.m.name_upper}"
}
