output "l" { value = ["a", "c", "d"] }
output "m" { value = { a = 2, b = { c = "d" }, e = true } }
output "multi" { value = "one\nthree\n" }
output "t" { value = 5 }
output "s" {
  value     = "secret2"
  sensitive = true
}
output "with-dash" { value = 1 }
