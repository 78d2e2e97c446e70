mock_provider "null" {
  mock_resource "null_resource" {
    defaults = {
      id = "at-plan"
    }
    override_during = plan
  }
}

mock_provider "random" {
}

mock_provider "local" {
}

run "known_at_plan" {
  command = plan

  assert {
    condition     = null_resource.trigger.id == "at-plan"
    error_message = "id: ${null_resource.trigger.id}"
  }
}
