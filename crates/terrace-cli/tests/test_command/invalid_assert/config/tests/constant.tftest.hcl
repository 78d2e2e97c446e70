run "null_condition" {
  assert {
    condition     = null
    error_message = "null is not a result"
  }
}

run "string_condition" {
  assert {
    condition     = "yes"
    error_message = "not a bool"
  }
}
