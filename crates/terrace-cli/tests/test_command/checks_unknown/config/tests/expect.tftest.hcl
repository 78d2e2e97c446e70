run "create" {}

run "output_precondition" {
  variables {
    size = 4
  }

  expect_failures = [output.out]
}
