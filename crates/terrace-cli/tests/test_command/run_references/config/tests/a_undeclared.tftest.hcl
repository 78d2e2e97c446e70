run "first" {
  command = plan
}

run "undeclared" {
  command = plan

  assert {
    condition     = run.later.greeting == "x"
    error_message = "x"
  }
}
