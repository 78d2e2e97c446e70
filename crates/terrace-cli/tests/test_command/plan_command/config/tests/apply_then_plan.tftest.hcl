run "create" {
}

run "no_changes_planned" {
  command = plan

  assert {
    condition     = output.outputs == ["item-0", "item-1"]
    error_message = "outputs come from the state after apply"
  }
}
