run "wrong_greeting" {
  assert {
    condition     = output.greeting == "hello gamma"
    error_message = "unexpected greeting ${output.greeting}"
  }
}

run "still_runs" {
  assert {
    condition     = output.upper == "ALPHA"
    error_message = "upper"
  }
}
