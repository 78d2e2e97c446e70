variables {
  x = "file-level"
}

run "file_variables_beat_test_directory_files" {
  command = plan

  assert {
    condition     = output.x == "file-level" && output.y == "tests-auto"
    error_message = "x=${output.x} y=${output.y}"
  }
}

run "run_variables_beat_everything" {
  command = plan

  variables {
    y = "run-level"
  }

  assert {
    condition     = output.y == "run-level"
    error_message = "y=${output.y}"
  }
}
