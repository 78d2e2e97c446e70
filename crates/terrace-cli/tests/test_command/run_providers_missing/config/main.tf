resource "null_resource" "n" {}

output "id" {
  value = null_resource.n.id
}
