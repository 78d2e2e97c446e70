resource "terraform_data" "a" {
  input = "line one\nline two\nline three\n"
}
