# No required_providers: the null provider is implied by the types.
resource "null_resource" "n" {}

data "null_data_source" "d" {}

output "id" {
  value = null_resource.n.id
}

output "random" {
  value = data.null_data_source.d.random
}
