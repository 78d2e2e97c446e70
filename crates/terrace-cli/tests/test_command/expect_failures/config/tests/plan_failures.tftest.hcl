run "variable_validation" {
  command = plan

  variables {
    level = 20
  }

  expect_failures = [var.level]
}

run "output_precondition" {
  command = plan

  variables {
    level = 3
  }

  expect_failures = [output.doubled]
}

run "check_block" {
  command = plan

  variables {
    level = 4
  }

  expect_failures = [check.health]
}
