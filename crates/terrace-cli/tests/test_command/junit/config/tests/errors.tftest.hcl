run "first_errors" {
  variables {
    name = run.missing.value
  }
}

run "then_skipped" {
}
