resource "terraform_data" "a" {
  for_each = toset(["x", "z"])
  input    = each.key
}
