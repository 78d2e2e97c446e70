run "dup" {
  command = plan
}

run "dup" {
  command = plan
}
