terraform {
  required_providers {
    null = {
      source = "hashicorp/null"
    }
    random = {
      source = "hashicorp/random"
    }
  }
}

resource "null_resource" "a" {
  triggers = {
    k = "v"
  }
}

resource "random_pet" "p" {
  length = 2
}

resource "random_string" "s" {
  length = 4
}

output "null_id" {
  value = null_resource.a.id
}

output "pet" {
  value = random_pet.p.id
}

output "s" {
  value = random_string.s.result
}
