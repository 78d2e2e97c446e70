provider "terraform" {
  version = "1.0"
}

resource "terraform_data" "a" {
}
