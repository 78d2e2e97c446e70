provider "aws" {
  alias  = "west"
  region = "us-west-1"
}

provider "aws" {
  alias  = "west"
  region = "us-west-2"
}
