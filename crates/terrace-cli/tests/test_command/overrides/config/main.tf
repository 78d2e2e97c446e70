terraform {
  required_providers {
    random = {
      source = "hashicorp/random"
    }
    local = {
      source = "hashicorp/local"
    }
  }
}

resource "random_pet" "pet" {
  length = 3
}

resource "random_pet" "other" {
  length = 1
}

data "local_file" "settings" {
  filename = "${path.module}/settings.json"
}

output "pet" {
  value = random_pet.pet.id
}

output "other_length" {
  value = random_pet.other.length
}

output "settings" {
  value = data.local_file.settings.content
}
