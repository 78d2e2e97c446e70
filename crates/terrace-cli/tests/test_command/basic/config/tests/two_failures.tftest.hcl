run "both_fail" {
  variables {
    name = "delta"
  }

  assert {
    condition     = output.upper == "ALPHA"
    error_message = "first: ${output.upper}"
  }

  assert {
    condition     = length(output.greeting) < 3
    error_message = "second"
  }

  assert {
    condition     = output.upper == "DELTA"
    error_message = "this one holds"
  }
}
