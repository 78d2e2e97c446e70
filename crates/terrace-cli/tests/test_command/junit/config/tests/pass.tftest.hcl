run "default_name" {
  assert {
    condition     = output.greeting == "hello alpha"
    error_message = "unexpected greeting ${output.greeting}"
  }

  assert {
    condition     = terraform_data.greeting.input == "hello alpha"
    error_message = "unexpected input"
  }
}

run "other_name" {
  variables {
    name = "beta"
  }

  assert {
    condition     = local.upper == "BETA"
    error_message = "locals are visible to assertions"
  }
}
