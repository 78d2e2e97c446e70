terraform {
  required_providers {
    acme = {
      source = "example.com/corp/acme"
    }
  }
}

resource "acme_thing" "t" {
}
