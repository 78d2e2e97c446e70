run "plan_known_values" {
  command = plan

  assert {
    condition     = length(terraform_data.sized) == 2
    error_message = "two items planned"
  }

  assert {
    condition     = output.inputs == ["item-0", "item-1"]
    error_message = "inputs known at plan time"
  }
}

run "plan_with_variable" {
  command = plan

  variables {
    size = 3
  }

  assert {
    condition     = length(output.inputs) == 3
    error_message = "three items"
  }
}

run "unknown_at_plan" {
  command = plan

  assert {
    condition     = output.outputs[0] == "item-0"
    error_message = "not known yet"
  }
}

run "skipped_after_error" {
  command = plan
}
