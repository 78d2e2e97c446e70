run "cannot_apply" {
  variables {
    level = 11
  }

  expect_failures = [var.level]
}
