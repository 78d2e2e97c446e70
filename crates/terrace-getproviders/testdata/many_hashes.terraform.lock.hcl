# This file is maintained automatically by "terraform init".
# Manual edits may be lost in future updates.

provider "example.com/acme/widget" {
  version = "2.0.0"
  hashes = [
    "h1:V3Us0DV4KR70MFGENOE0wh3LCGjbIEJ9oUM9yAPMlxY=",
  ]
}

provider "registry.terraform.io/hashicorp/null" {
  version     = "1.1.0"
  constraints = ">= 1.0.0, < 2.0.0"
  hashes = [
    "h1:qLat4+sjXCnceqLAQ9yonijar9Jfnl43+Wc/ctHCGGY=",
    "zh:aaaa",
    "zh:bbbb",
  ]
}
