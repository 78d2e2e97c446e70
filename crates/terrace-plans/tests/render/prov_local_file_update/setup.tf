resource "local_file" "f" {
  filename = "${path.module}/out.txt"
  content  = "hello\nworld\n"
}
