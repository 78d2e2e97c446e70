terraform {
  required_providers {
    foo = {
      source = "example.com/vendor/foo"
    }
  }
}
