run "message_refers_to_list" {
  assert {
    condition     = length(var.items) == 5
    error_message = "items: ${join(",", var.items)}"
  }
}
