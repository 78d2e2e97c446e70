resource "local_file" "f" {
  filename = "${path.module}/out.txt"
  content  = "hello\nworld\n"
}
resource "local_sensitive_file" "s" {
  filename = "${path.module}/s.txt"
  content  = "secret"
}
