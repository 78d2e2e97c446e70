output "a" { value = "one" }
output "gone" { value = "x" }
output "same" { value = "s" }
