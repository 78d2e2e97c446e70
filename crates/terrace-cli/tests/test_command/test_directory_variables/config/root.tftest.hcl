run "root_files_see_only_the_command_line" {
  command = plan

  assert {
    condition     = output.x == "cli"
    error_message = "x=${output.x}"
  }
}

run "undeclared_variable" {
  command = plan

  assert {
    condition     = output.x == "cli"
    error_message = "x=${output.x} ${var.only_tests}"
  }
}
