run "child_value_wrong" {
  assert {
    condition     = output.child_value == "child-other"
    error_message = "child value is ${output.child_value}"
  }
}
