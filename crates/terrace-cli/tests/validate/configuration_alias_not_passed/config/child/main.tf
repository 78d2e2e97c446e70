terraform {
  required_providers {
    terraform = {
      source                = "terraform.io/builtin/terraform"
      configuration_aliases = [terraform.other]
    }
  }
}

resource "terraform_data" "a" {
  provider = terraform.other
}
