resource "terraform_data" "a" { input = "after" }
