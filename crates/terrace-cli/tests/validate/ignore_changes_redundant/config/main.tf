resource "terraform_data" "a" {
  lifecycle {
    ignore_changes = [output, input, id, triggers_replace]
  }
}
