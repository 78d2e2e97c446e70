resource "terraform_data" "keep" {
  input = "keep"

  lifecycle {
    prevent_destroy = true
  }
}

resource "terraform_data" "other" {
  input = terraform_data.keep.output
}
