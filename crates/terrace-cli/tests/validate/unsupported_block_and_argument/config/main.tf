resourc "terraform_data" "a" {
}

variable "x" {
  typ = string
}
