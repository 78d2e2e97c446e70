variables {
  prefix = "file"
  tags = {
    team = "core"
  }
  extra = "only in tests"
}

run "uses_file_variables" {
  assert {
    condition     = output.names == ["file-0"]
    error_message = "names: ${jsonencode(output.names)}"
  }

  assert {
    condition     = output.tag_keys == ["team"]
    error_message = "tags"
  }

  assert {
    condition     = var.extra == "only in tests"
    error_message = "undeclared test variables are visible to assertions"
  }
}

run "run_overrides_file" {
  variables {
    prefix   = "run"
    count_of = 2
  }

  assert {
    condition     = output.names == ["run-0", "run-1"]
    error_message = "names: ${jsonencode(output.names)}"
  }
}

run "derived_from_var" {
  variables {
    prefix = "${var.extra}!"
  }

  assert {
    condition     = output.names[0] == "only in tests!-0"
    error_message = "names: ${jsonencode(output.names)}"
  }
}
