mock_resource "null_resource" {
  defaults = {
    id = "from-shared-file"
  }
}
