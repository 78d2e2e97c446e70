variable "size" {
  type    = number
  default = 2
}

resource "terraform_data" "a" {
  input = var.size
}

check "health" {
  assert {
    condition     = terraform_data.a.output != 3
    error_message = "health: 3 is bad"
  }
}

output "out" {
  value = terraform_data.a.output

  precondition {
    condition     = var.size != 4
    error_message = "output: size 4"
  }
}
