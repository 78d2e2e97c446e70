run "twice" {
  override_resource {
    target = terraform_data.a
  }

  override_resource {
    target = terraform_data.a
  }
}
