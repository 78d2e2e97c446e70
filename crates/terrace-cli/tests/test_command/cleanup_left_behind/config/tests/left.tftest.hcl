run "create" {
  assert {
    condition     = terraform_data.other.output == "keep"
    error_message = "other does not follow keep"
  }
}
