variable "n" {
  default = 2
}

module "single" {
  source = "./mods/child"
  in     = "const"
}

module "counted" {
  source = "./mods/child"
  count  = var.n
  in     = "c${count.index}"
}

module "each" {
  source     = "./mods/child"
  for_each   = toset(["x", "y"])
  in         = each.key
  depends_on = [module.single]
}

resource "terraform_data" "r" {
  input = [module.single.out, module.counted[0].out, module.each["x"].nested]
}

output "m" {
  value = module.single
}
