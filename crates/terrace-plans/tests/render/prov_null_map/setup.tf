resource "null_resource" "n" {
  triggers = { a = "1", b = "2", "c d" = "3" }
}
