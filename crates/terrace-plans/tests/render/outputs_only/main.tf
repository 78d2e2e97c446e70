output "a" { value = "two" }
output "new" { value = ["x", "y"] }
output "same" { value = "s" }
output "sens" {
  value     = "z"
  sensitive = true
}
