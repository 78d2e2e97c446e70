variable "v" {
  type = "string"
}
