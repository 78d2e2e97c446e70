mock_resource "random_pet" {
  defaults = {
    id = "shared-pet"
  }
}

override_resource {
  target = random_string.s
  values = {
    result = "shared"
  }
}
