resource "terraform_data" "a" {
  for_each = { "k one" = 1 }
  input    = each.value
}
