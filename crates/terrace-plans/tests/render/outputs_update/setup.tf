output "l" { value = ["a", "b", "c"] }
output "m" { value = { a = 1, b = { c = "d" } } }
output "multi" { value = "one\ntwo\n" }
output "t" { value = "x" }
output "s" {
  value     = "secret"
  sensitive = true
}
