terraform {
  required_providers {
    blocks = { source = "terrace/blocks" }
  }
}

resource "blocks_thing" "t" {
  name     = "n"
  tags     = { env = "prod", "team name" = "x" }
  ports    = [443, 80]
  items    = ["a", "b"]
  obj      = { x = "1", y = [1, 2] }
  secret   = "s3cret"
  token    = "tok"
  replaced = "r"
  rule {
    name  = "r1"
    port  = 22
    cidrs = ["10.0.0.0/8"]
  }
  rule {
    name = "r2"
  }
  ingress {
    from = 1
    to   = 2
  }
  setting "alpha" {
    value = "1"
  }
  setting "beta" {}
  config {
    a        = "x"
    password = "pw"
  }
}
resource "blocks_thing" "empty" {
  name = "e"
}
