variable "name" {
  type    = string
  default = null

  validation {
    condition     = var.name == null || length(var.name) > 3
    error_message = "The name must be longer than three characters."
  }
}

resource "terraform_data" "named" {
  count = var.name != null ? 1 : 0
  input = "${var.name}-suffix"
}
