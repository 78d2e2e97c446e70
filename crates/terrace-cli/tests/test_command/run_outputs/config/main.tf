variable "seed" {
  type = string
}

resource "terraform_data" "node" {
  input = "node-${var.seed}"
}

output "id" {
  value = terraform_data.node.output
}

output "secret" {
  value     = "s3cr3t-${var.seed}"
  sensitive = true
}
