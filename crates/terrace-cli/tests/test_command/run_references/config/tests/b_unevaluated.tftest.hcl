run "unevaluated" {
  command = plan

  assert {
    condition     = run.ghost.greeting == "x"
    error_message = "x"
  }
}

run "ghost" {
  command = plan
}
