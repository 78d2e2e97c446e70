run "create" {
}

run "grow_plan" {
  command = plan

  variables {
    size = 3
  }
}

run "shrink" {
  variables {
    size   = 1
    secret = "other"
  }

  assert {
    condition     = output.names == ["c0"]
    error_message = "names: ${jsonencode(output.names)}"
  }
}
