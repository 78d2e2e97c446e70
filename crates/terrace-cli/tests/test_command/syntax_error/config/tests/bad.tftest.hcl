run "ok" {
  command = plan

  assert {
    condition     = output.greeting == "hello"
    error_message = "x"

}
