# Every instance of module.counted, for every run of this file.
override_module {
  target = module.counted
  outputs = {
    greeting = "from the file"
  }
}

run "real_child" {
  assert {
    condition     = output.greeting == "hello root"
    error_message = "greeting: ${output.greeting}"
  }

  assert {
    condition     = output.counted == ["from the file", "from the file"]
    error_message = "counted: ${jsonencode(output.counted)}"
  }
}

run "child_replaced" {
  override_module {
    target = module.child
    outputs = {
      greeting = "overridden"
      unused   = 1
    }
  }

  assert {
    condition     = output.greeting == "overridden"
    error_message = "greeting: ${output.greeting}"
  }

  assert {
    condition     = output.child_id == null
    error_message = "outputs the override leaves out are null"
  }

  assert {
    condition     = terraform_data.uses_child.output == "overridden"
    error_message = "uses_child: ${terraform_data.uses_child.output}"
  }
}

run "validation_not_run" {
  command = plan

  variables {
    name = ""
  }

  override_module {
    target = module.child
  }

  assert {
    condition     = output.greeting == null
    error_message = "no outputs given"
  }
}

run "nested_call" {
  override_module {
    target = module.outer.module.inner
    outputs = {
      greeting = "deep"
    }
  }

  assert {
    condition     = output.nested == "deep"
    error_message = "nested: ${output.nested}"
  }
}

run "wrong_value_fails" {
  command = plan

  override_module {
    target = module.child
    outputs = {
      greeting = "something else"
    }
  }

  assert {
    condition     = output.greeting == "overridden"
    error_message = "greeting: ${output.greeting}"
  }
}
