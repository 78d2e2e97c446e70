variable "port" {
  type    = number
  default = "eighty"
}

variable "tags" {
  type = map(string)
  default = {
    a = ["x"]
  }
}
