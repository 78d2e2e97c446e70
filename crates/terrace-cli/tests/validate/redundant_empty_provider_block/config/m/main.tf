provider "terraform" {}

resource "terraform_data" "a" {}
