resource "terraform_data" "a" { input = "x" }
output "o" { value = terraform_data.a.output }
