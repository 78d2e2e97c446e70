mock_provider "null" {
  alias = "fake"

  mock_resource "null_resource" {
    defaults = {
      id = "fake-id"
    }
  }
}

run "mocked" {
  providers = {
    null = null.fake
  }

  assert {
    condition     = output.id == "fake-id"
    error_message = "The mock was not used."
  }
}

run "missing" {
  providers = {
    null = null.nope
  }
  state_key = "other"
}
