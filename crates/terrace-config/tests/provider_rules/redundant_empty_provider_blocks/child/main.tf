provider "aws" {
}

provider "aws" {
  alias = "west"
}

resource "aws_instance" "web" {
  provider = aws.west
}
