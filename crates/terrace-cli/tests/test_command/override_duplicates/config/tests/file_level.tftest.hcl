override_resource {
  target = terraform_data.a
  values = {
    output = "first"
  }
}

override_resource {
  target = terraform_data.a
  values = {
    output = "second"
  }
}

run "r" {
  override_resource {
    target = terraform_data.a
    values = {
      output = "run"
    }
  }
}
