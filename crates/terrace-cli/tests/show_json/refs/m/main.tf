output "o" { value = 1 }
