variable "regions" {
  type      = set(string)
  default   = ["us-east-1"]
  sensitive = true
}

provider "aws" {
  alias    = "by_region"
  for_each = var.regions
}
