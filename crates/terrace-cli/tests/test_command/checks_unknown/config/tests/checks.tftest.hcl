run "plan_unknown_check" {
  command = plan

  variables {
    size = 3
  }
}

run "create" {}

run "output_precondition" {
  variables {
    size = 4
  }

  expect_failures = [output.out]
}
