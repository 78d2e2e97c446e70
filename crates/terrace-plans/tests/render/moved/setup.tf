resource "terraform_data" "old" { input = "x" }
resource "terraform_data" "old2" { input = "x" }
