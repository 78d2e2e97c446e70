run "postcondition" {
  variables {
    level = 7
  }

  expect_failures = [terraform_data.box]
}

run "check_after_apply" {
  variables {
    level = 4
  }

  expect_failures = [check.health]
}
