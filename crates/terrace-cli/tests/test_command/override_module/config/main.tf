variable "name" {
  type    = string
  default = "root"
}

module "child" {
  source = "./modules/child"
  name   = var.name
}

module "counted" {
  source = "./modules/child"
  count  = 2
  name   = "c${count.index}"
}

module "outer" {
  source = "./modules/outer"
}

resource "terraform_data" "uses_child" {
  input = module.child.greeting
}

output "greeting" {
  value = module.child.greeting
}

output "child_id" {
  value = module.child.id
}

output "counted" {
  value = module.counted[*].greeting
}

output "nested" {
  value = module.outer.inner_greeting
}
