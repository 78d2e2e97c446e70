mock_provider "random" {
  override_resource {
    target = random_pet.other
    values = {
      id = "from-mock-provider"
    }
  }
}

override_data {
  target = data.local_file.settings
  values = {
    content = "x"
  }
}

run "mock_provider_override" {
  assert {
    condition     = random_pet.other.id == "from-mock-provider"
    error_message = "other: ${random_pet.other.id}"
  }

  assert {
    condition     = output.pet != "from-mock-provider"
    error_message = "only the target is overridden"
  }
}
