run "for_each_values" {
  assert {
    condition     = output.uppers["a"] == "A"
    error_message = "a"
  }

  assert {
    condition     = alltrue([for k, v in terraform_data.each : v.output == upper(k)])
    error_message = "every item is upper-cased"
  }
}

run "null_result" {
  assert {
    condition     = var.items[0] == "a" ? null : true
    error_message = "null is not a result"
  }
}

run "string_result" {
  assert {
    condition     = var.items[0] == "a" ? "yes" : "no"
    error_message = "a string that converts"
  }
}
