resource "terraform_data" "a" {
}

data "terraform_remote_state" "b" {
  backend = "local"
}
