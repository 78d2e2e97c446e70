override_resource {
  target = terraform_data.gone
}

run "targets_not_in_the_module" {
  command = plan

  override_resource {
    target = terraform_data.nope
  }

  override_data {
    target = data.terraform_remote_state.nope
  }

  override_module {
    target = module.nope
  }
}

run "one_missing_target" {
  command = plan

  override_resource {
    target = terraform_data.a
    values = {
      input = "y"
    }
  }

  override_data {
    target = data.terraform_remote_state.elsewhere
  }
}
