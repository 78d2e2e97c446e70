run "unexpected_check" {
  variables {
    level = 4
  }
}

run "unexpected_postcondition" {
  variables {
    level = 6
  }
}
