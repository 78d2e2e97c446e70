variable "items" {
  type    = list(string)
  default = ["a", "b"]
}

resource "terraform_data" "each" {
  for_each = toset(var.items)
  input    = upper(each.key)
}

output "uppers" {
  value = { for k, v in terraform_data.each : k => v.output }
}
