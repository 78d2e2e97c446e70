resource "terraform_data" "a" { input = "before" }
