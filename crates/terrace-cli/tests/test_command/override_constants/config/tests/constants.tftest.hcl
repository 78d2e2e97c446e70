variables {
  v = "q"
}

override_resource {
  target = terraform_data.a
  values = {
    output = upper("x")
  }
}

run "reference_in_values" {
  override_resource {
    target = terraform_data.a
    values = {
      output = var.v
    }
  }
}
