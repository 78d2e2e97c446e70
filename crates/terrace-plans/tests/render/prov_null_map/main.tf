resource "null_resource" "n" {
  triggers = { a = "1", b = "20", e = "5" }
}
