variable "name" {
  type    = string
  default = null
}

variable "tags" {
  type    = map(string)
  default = {}
}

variable "settings" {
  type = object({
    enabled = optional(bool, false)
    size    = optional(number)
  })
  default = {}
}

resource "terraform_data" "named" {
  count = var.name != null ? 1 : 0
  input = "${var.name}-suffix"
}

resource "terraform_data" "tagged" {
  for_each = var.settings.enabled ? var.tags : {}
  input    = "${each.key}=${each.value}/${var.settings.size + 1}"
}

output "name_upper" {
  value = upper(var.name)
}
