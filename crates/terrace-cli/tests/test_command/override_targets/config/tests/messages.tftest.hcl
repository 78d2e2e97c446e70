run "message_evaluated_when_the_condition_holds" {
  assert {
    condition     = output.a == "x"
    error_message = "a: ${null}"
  }
}

run "skipped_after_the_error" {
  assert {
    condition     = output.a == "x"
    error_message = "a"
  }
}
