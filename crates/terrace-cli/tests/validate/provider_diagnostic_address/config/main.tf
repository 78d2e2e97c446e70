data "terraform_remote_state" "x" {
  count   = 2
  backend = "nope"
}
