run "nothing_fails" {
  command = plan

  expect_failures = [var.level]
}

run "skipped" {
  command = plan
}
