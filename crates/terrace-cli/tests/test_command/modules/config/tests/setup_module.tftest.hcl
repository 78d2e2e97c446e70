run "setup" {
  module {
    source = "./setup"
  }

  assert {
    condition     = output.token == "setup-ready"
    error_message = "setup token"
  }
}

run "main" {
  variables {
    label = run.setup.token
  }

  assert {
    condition     = output.child_value == "child-setup-ready"
    error_message = "child: ${output.child_value}"
  }

  assert {
    condition     = module.child.value == output.child_value
    error_message = "module outputs are visible to assertions"
  }
}

run "setup_again" {
  module {
    source = "./setup"
  }

  variables {
    prefix = "second"
  }

  assert {
    condition     = output.token == "second-ready"
    error_message = "setup token ${output.token}"
  }
}
