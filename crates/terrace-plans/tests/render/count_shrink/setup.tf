resource "terraform_data" "a" {
  count = 3
  input = count.index
}
