run "string_false" {
  assert {
    condition     = var.items[0] == "a" ? "no" : "yes"
    error_message = "a string that does not convert"
  }
}
