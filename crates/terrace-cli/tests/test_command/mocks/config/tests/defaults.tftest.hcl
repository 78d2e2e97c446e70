mock_provider "null" {
  mock_resource "null_resource" {
    defaults = {
      id = "fixed-id"
    }
  }
}

mock_provider "random" {
  mock_resource "random_pet" {
    defaults = {
      id = "mocked-pet"
    }
  }
}

mock_provider "local" {
  mock_data "local_file" {
    defaults = {
      content = "mocked content"
    }
  }
}

run "mocked_values" {
  assert {
    condition     = output.trigger_id == "fixed-id"
    error_message = "null id: ${output.trigger_id}"
  }

  assert {
    condition     = output.pet == "mocked-pet"
    error_message = "pet: ${output.pet}"
  }

  assert {
    condition     = output.file_content == "mocked content"
    error_message = "content: ${output.file_content}"
  }
}

run "generated_values" {
  assert {
    condition     = output.number == 0
    error_message = "numbers are generated as zero"
  }

  assert {
    condition     = length(random_integer.number.id) == 8
    error_message = "strings are generated as eight characters"
  }
}

run "plan_leaves_computed_unknown" {
  command = plan

  variables {
    unused = true
  }

  assert {
    condition     = random_pet.pet.length == 2
    error_message = "configured values are planned"
  }
}
