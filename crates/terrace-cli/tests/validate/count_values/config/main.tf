resource "terraform_data" "negative" {
  count = -1
}

resource "terraform_data" "fraction" {
  count = 1.5
}

resource "terraform_data" "null" {
  count = null
}

resource "terraform_data" "string" {
  count = "x"
}

resource "terraform_data" "fine" {
  count = "2"
}
