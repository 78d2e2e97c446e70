resource "terraform_data" "a" {
  input = "line one\nline 2\nline three\nline four\n"
}
