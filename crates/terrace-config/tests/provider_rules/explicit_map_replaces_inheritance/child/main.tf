terraform {
  required_providers {
    aws = {
      source = "hashicorp/aws"
    }
    google = {
      source = "hashicorp/google"
    }
  }
}

# "google" was not passed to this module, so it has none to pass on.
module "grandchild" {
  source = "./grandchild"
  providers = {
    google = google
  }
}
