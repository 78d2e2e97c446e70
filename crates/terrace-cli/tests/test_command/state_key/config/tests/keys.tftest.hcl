run "first_state" {
  state_key = "one"

  variables {
    name = "first"
  }
}

run "second_state" {
  state_key = "two"

  variables {
    name = "second"
  }

  assert {
    condition     = output.name == "second"
    error_message = "name: ${output.name}"
  }
}

run "first_state_again" {
  state_key = "one"
  command   = plan

  variables {
    name = "first"
  }

  assert {
    condition     = terraform_data.item.output == "first"
    error_message = "the first state kept its object"
  }
}
