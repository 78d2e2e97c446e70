override_resource {
  target = random_pet.pet
  values = {
    id = "overridden-pet"
  }
}

override_data {
  target = data.local_file.settings
  values = {
    content = "{\"a\":1}"
  }
}

run "overrides_apply" {
  assert {
    condition     = output.pet == "overridden-pet"
    error_message = "pet: ${output.pet}"
  }

  assert {
    condition     = jsondecode(output.settings).a == 1
    error_message = "settings: ${output.settings}"
  }

  assert {
    condition     = output.other_length == 1
    error_message = "other resources are untouched"
  }
}

run "run_level_override" {
  override_resource {
    target = random_pet.pet
    values = {
      id = "run-pet"
    }
  }

  assert {
    condition     = output.pet == "run-pet"
    error_message = "pet: ${output.pet}"
  }
}
