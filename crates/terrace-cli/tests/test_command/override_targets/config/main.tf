resource "terraform_data" "a" {
  input = "x"
}

output "a" {
  value = terraform_data.a.output
}
