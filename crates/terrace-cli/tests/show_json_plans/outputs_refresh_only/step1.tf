resource "terraform_data" "a" {
  input = "one"
}

output "o" {
  value = terraform_data.a.output
}

output "gone" {
  value = "bye"
}

output "v" {
  value = "x"
}

output "w" {
  value = "y"
}

output "p" {
  value = { a = "x" }
}
