variable "label" {
  type    = string
  default = "main"
}

module "child" {
  source = "./child"
  label  = var.label
}

output "child_value" {
  value = module.child.value
}
