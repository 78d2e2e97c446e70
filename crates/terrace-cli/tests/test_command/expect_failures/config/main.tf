variable "level" {
  type    = number
  default = 1

  validation {
    condition     = var.level < 10
    error_message = "level must be below 10"
  }
}

resource "terraform_data" "box" {
  input = var.level

  lifecycle {
    postcondition {
      condition     = self.output < 5
      error_message = "box too big"
    }
  }
}

output "doubled" {
  value = var.level * 2

  precondition {
    condition     = var.level != 3
    error_message = "three is not allowed"
  }
}

check "health" {
  assert {
    condition     = var.level != 4
    error_message = "four is unhealthy"
  }
}
