resource "terraform_data" "b" { input = "stay" }
