resource "terraform_data" "a" { input = "x" }
data "terraform_remote_state" "r" {
  backend = "local"
  config  = { path = terraform_data.a.output }
}
