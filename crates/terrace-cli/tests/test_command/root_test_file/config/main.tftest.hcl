run "beside_the_module" {
  command = plan

  assert {
    condition     = output.upper == "ALPHA"
    error_message = "upper"
  }
}
