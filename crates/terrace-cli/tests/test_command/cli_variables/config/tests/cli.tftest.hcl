run "from_command_line" {
  assert {
    condition     = output.names == ["cli-0"]
    error_message = "names: ${jsonencode(output.names)}"
  }
}

run "run_beats_command_line" {
  variables {
    prefix = "run"
  }

  assert {
    condition     = output.names == ["run-0"]
    error_message = "names: ${jsonencode(output.names)}"
  }
}
