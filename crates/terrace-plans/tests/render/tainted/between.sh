terraform taint terraform_data.a >/dev/null
