variable "names" {
  type = list(string)
}

variable "enabled" {
  type = bool
}

variable "numbers" {
  type = set(number)
}

variable "anything" {}

resource "terraform_data" "tuple_literal" {
  for_each = ["a"]
}

resource "terraform_data" "list_variable" {
  for_each = var.names
}

resource "terraform_data" "number_set" {
  for_each = var.numbers
}

resource "terraform_data" "bool_count" {
  count = var.enabled
}

resource "terraform_data" "bool_literal_count" {
  count = true
}

resource "terraform_data" "fine" {
  for_each = toset(var.names)
  input    = var.anything
}

resource "terraform_data" "fine_count" {
  count = var.enabled ? 1 : 0
}

module "m" {
  source   = "./m"
  for_each = var.names
}
