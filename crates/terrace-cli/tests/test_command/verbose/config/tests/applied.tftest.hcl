mock_provider "null" {
  mock_resource "null_resource" {
    defaults = {
      id = "mocked"
    }
  }
}

override_resource {
  target = terraform_data.d
  values = {
    id = "overridden"
  }
}

run "applied" {
}
