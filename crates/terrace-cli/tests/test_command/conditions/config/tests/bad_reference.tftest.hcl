run "undeclared_output" {
  assert {
    condition     = output.nothing == "x"
    error_message = "no such output"
  }
}
