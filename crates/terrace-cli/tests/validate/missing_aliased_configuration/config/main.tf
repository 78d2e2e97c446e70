resource "terraform_data" "a" {
  provider = terraform.west
}
