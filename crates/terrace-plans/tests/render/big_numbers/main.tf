resource "terraform_data" "a" {
  input = [1e30, 0.1, 1/3, -0, 123456789012345678901234567890, 1.5e-7]
}
