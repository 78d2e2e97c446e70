mock_provider "null" {
  source = "./tests/shared"
}

mock_provider "random" {
  source = "./tests/other"

  mock_resource "random_pet" {
    defaults = {
      id = "own-pet"
    }
  }
}

run "shared_defaults" {
  assert {
    condition     = output.null_id == "from-shared-file"
    error_message = "null_id: ${output.null_id}"
  }

  assert {
    condition     = output.pet == "own-pet"
    error_message = "the block's own mock_resource wins: ${output.pet}"
  }

  assert {
    condition     = output.s == "shared"
    error_message = "s: ${output.s}"
  }
}

run "shared_defaults_at_plan" {
  command = plan

  assert {
    condition     = output.s == "shared"
    error_message = "overrides apply at apply time only"
  }
}
