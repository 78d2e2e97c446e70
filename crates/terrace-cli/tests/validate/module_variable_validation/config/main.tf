variable "root_name" {
  type    = string
  default = "ab"

  validation {
    condition     = length(var.root_name) > 3
    error_message = "Only checked when the value is known."
  }
}

module "short" {
  source = "./mod"
  name   = "ab"
}

module "from_root" {
  source = "./mod"
  name   = var.root_name
}
