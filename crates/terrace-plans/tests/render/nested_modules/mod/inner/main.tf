resource "terraform_data" "b" { input = "b" }
