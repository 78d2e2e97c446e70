terraform {
  required_providers {
    blocks = { source = "terrace/blocks" }
  }
}

resource "blocks_thing" "t" {
  name     = "n"
  tags     = { env = "dev", "team name" = "x", new = "y" }
  ports    = [443, 8080]
  items    = ["a", "c"]
  obj      = { x = "2", y = [1, 2, 3] }
  secret   = "other"
  token    = "tok2"
  replaced = "r"
  rule {
    name  = "r1"
    port  = 23
    cidrs = ["10.0.0.0/8", "192.168.0.0/16"]
  }
  ingress {
    from = 1
    to   = 2
  }
  ingress {
    from = 5
    to   = 6
  }
  setting "alpha" {
    value = "2"
  }
  setting "gamma" {
    value = "3"
  }
  config {
    a        = "x"
    b        = 2
    password = "pw2"
  }
}
resource "blocks_thing" "empty" {
  name = "e"
  rule {
    name = "added"
  }
}
