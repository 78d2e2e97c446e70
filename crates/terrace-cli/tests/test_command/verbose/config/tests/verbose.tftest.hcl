run "planned" {
  command = plan
}

run "failed_plan" {
  command = plan

  assert {
    condition     = output.known == "other"
    error_message = "known is ${output.known}"
  }
}
