mock_provider "null" {
  mock_resource "null_resource" {
    defaults = {
      id = "fixed-id"
    }
  }
}

mock_provider "random" {
}

mock_provider "local" {
}

run "wrong_expectation" {
  assert {
    condition     = output.trigger_id == "other-id"
    error_message = "null id: ${output.trigger_id}"
  }
}
