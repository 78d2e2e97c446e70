resource "terraform_data" "a" {
  input = "hello"
}

output "a" {
  value = terraform_data.a.output
}
