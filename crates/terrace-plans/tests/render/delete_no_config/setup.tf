resource "terraform_data" "a" { input = { x = 1, y = ["a"] } }
resource "terraform_data" "b" { input = "stay" }
