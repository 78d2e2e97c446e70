resource "terraform_data" "a" {
  input = "two"
}

resource "terraform_data" "b" {
  input = "unchanged"
}

resource "terraform_data" "c" {
  input = terraform_data.a.output
}

# Unknown now: the prior state keeps the previous value.
output "o" {
  value = terraform_data.a.output
}

output "c" {
  value = terraform_data.c.input
}

# Null and new: no change at all.
output "n" {
  value = null
}

output "ns" {
  value     = null
  sensitive = true
}

# Known before, null now: an update, and gone from the prior state.
output "v" {
  value = null
}

# Only the sensitivity changes.
output "w" {
  value     = "y"
  sensitive = true
}

output "k" {
  value = "known"
}

# Partly unknown: the prior state keeps the previous value.
output "p" {
  value = { a = "x", b = terraform_data.c.id }
}
