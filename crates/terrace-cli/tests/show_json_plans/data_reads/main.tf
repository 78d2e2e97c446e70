locals { via_local = terraform_data.a.input }
module "m" {
  source = "./mod"
  v      = var.mv
}
module "dep" {
  source     = "./mod"
  v          = "fixed"
  depends_on = [terraform_data.a]
}
module "c" {
  count  = 2
  source = "./cmod"
  v      = count.index == 0 ? var.av : "same"
}
data "terraform_remote_state" "direct" {
  backend  = "local"
  config   = { path = "${path.module}/remote.tfstate" }
  defaults = { x = terraform_data.a.input }
}
data "terraform_remote_state" "via_module_output" {
  backend  = "local"
  config   = { path = "${path.module}/remote.tfstate" }
  defaults = { x = module.m.input }
}
data "terraform_remote_state" "depends_module" {
  backend    = "local"
  config     = { path = "${path.module}/remote.tfstate" }
  depends_on = [module.m]
}
data "terraform_remote_state" "depends_local" {
  backend    = "local"
  config     = { path = "${path.module}/remote.tfstate" }
  depends_on = [local.via_local]
}
data "terraform_remote_state" "unrelated" {
  backend  = "local"
  config   = { path = "${path.module}/remote.tfstate" }
  defaults = { x = terraform_data.b.input }
}
resource "terraform_data" "b" { input = "b" }
data "terraform_remote_state" "unknown" {
  backend  = "local"
  config   = { path = "${path.module}/remote.tfstate" }
  defaults = { x = terraform_data.a.output }
}
variable "mv" { default = "m2" }
variable "av" { default = "a2" }
resource "terraform_data" "a" { input = "a2" }
