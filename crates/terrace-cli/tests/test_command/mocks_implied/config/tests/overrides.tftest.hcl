mock_provider "null" {
  override_resource {
    target = null_resource.n
    values = {
      id = "O"
    }
  }
}

run "overridden" {
  assert {
    condition     = output.id == "O"
    error_message = "The override was not used."
  }
}
