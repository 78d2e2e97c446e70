run "first" {
  variables {
    seed = "one"
  }
}

run "second" {
  variables {
    seed = "after-${run.first.id}"
  }

  assert {
    condition     = output.id == "node-after-node-one"
    error_message = "chained: ${output.id}"
  }

  assert {
    condition     = run.first.id == "node-one"
    error_message = "earlier run outputs stay visible"
  }
}

run "sensitive_output" {
  variables {
    seed = "x"
  }

  assert {
    condition     = output.secret == "wrong"
    error_message = "the secret did not match"
  }
}
