variable "prefix" {
  type = string
}

variable "tags" {
  type    = map(string)
  default = {}
}

variable "count_of" {
  type    = number
  default = 1
}

resource "terraform_data" "named" {
  count = var.count_of
  input = "${var.prefix}-${count.index}"
}

output "names" {
  value = terraform_data.named[*].input
}

output "tag_keys" {
  value = keys(var.tags)
}
