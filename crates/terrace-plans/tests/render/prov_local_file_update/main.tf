resource "local_file" "f" {
  filename = "${path.module}/out.txt"
  content  = "hello\nthere\nworld\n"
}
