resource "aws_instance" "example" {
}
