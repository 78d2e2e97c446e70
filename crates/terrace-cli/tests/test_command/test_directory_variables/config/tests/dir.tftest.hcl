run "test_directory_files_beat_the_command_line" {
  command = plan

  assert {
    condition     = output.x == "tests" && output.y == "tests-auto"
    error_message = "x=${output.x} y=${output.y}"
  }

  assert {
    condition     = var.only_tests == "t"
    error_message = "undeclared values are the test's own"
  }
}
