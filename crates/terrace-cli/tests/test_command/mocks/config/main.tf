terraform {
  required_providers {
    null = {
      source = "hashicorp/null"
    }
    random = {
      source = "hashicorp/random"
    }
    local = {
      source = "hashicorp/local"
    }
  }
}

resource "null_resource" "trigger" {
  triggers = {
    name = "a"
  }
}

resource "random_pet" "pet" {
  length = 2
}

resource "random_integer" "number" {
  min = 1
  max = 100
}

data "local_file" "config" {
  filename = "${path.module}/does-not-exist.txt"
}

output "trigger_id" {
  value = null_resource.trigger.id
}

output "pet" {
  value = random_pet.pet.id
}

output "number" {
  value = random_integer.number.result
}

output "file_content" {
  value = data.local_file.config.content
}
