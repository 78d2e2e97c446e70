mock_provider "null" {}

run "mocked" {
  assert {
    condition     = data.null_data_source.d.id != ""
    error_message = "The mock gave no id."
  }
}
