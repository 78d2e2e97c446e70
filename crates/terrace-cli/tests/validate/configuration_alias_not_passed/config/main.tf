provider "terraform" {
  alias = "other"
}

module "child" {
  source = "./child"
}
