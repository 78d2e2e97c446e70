mock_provider "null" {
  mock_data "null_data_source" {
    defaults = {
      random = "R"
    }
  }
}

run "mocked" {
  assert {
    condition     = can(regex("^[a-z0-9]{8}$", output.id))
    error_message = "The id is not a generated one."
  }

  assert {
    condition     = output.random == "R"
    error_message = "The data source did not take the mock's default."
  }
}
