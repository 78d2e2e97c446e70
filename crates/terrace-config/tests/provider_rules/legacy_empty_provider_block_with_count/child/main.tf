provider "aws" {
}

resource "aws_instance" "web" {
}
