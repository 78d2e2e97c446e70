run "create" {
}

run "target_only_a" {
  variables {
    value = "v2"
  }

  plan_options {
    target = [terraform_data.a]
  }

  assert {
    condition     = terraform_data.a.output == "v2"
    error_message = "a: ${terraform_data.a.output}"
  }
}

run "refresh_only" {
  variables {
    value = "v3"
  }

  plan_options {
    mode = refresh-only
  }

  assert {
    condition     = output.a == "v2"
    error_message = "a: ${output.a}"
  }
}

run "replace_plan" {
  command = plan

  plan_options {
    replace = [terraform_data.a]
  }

  assert {
    condition     = terraform_data.a.input == "v1"
    error_message = "input: ${terraform_data.a.input}"
  }
}

run "no_refresh" {
  command = plan

  plan_options {
    refresh = false
  }

  assert {
    condition     = terraform_data.b.input == "b-v1"
    error_message = "b: ${terraform_data.b.input}"
  }
}
