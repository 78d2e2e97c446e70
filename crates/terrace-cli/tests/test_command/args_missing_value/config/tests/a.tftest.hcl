run "a" {
  command = plan

  assert {
    condition     = terraform_data.a.input == "a"
    error_message = "input"
  }
}
