locals {
  l = 1
}

resource "terraform_data" "b" {}

resource "terraform_data" "undeclared" {
  depends_on = [terraform_data.nope]
}

resource "terraform_data" "attribute" {
  depends_on = [terraform_data.b.id]
}

resource "terraform_data" "keyed" {
  depends_on = [terraform_data.b[0]]
}

resource "terraform_data" "fine" {
  depends_on = [terraform_data.b, local.l]
}
