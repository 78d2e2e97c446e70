run "from_var_file" {
  command = plan

  assert {
    condition     = output.names == ["from-file-0", "from-file-1"]
    error_message = "names: ${jsonencode(output.names)}"
  }
}

run "file_value_overridden" {
  command = plan

  variables {
    count_of = 1
  }

  assert {
    condition     = length(output.names) == 1
    error_message = "names: ${jsonencode(output.names)}"
  }
}
