resource "terraform_data" "a" {
}

resource "terraform_data" "a" {
}
