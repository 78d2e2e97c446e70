run "bad_count" {
  command = plan

  variables {
    prefix   = "x"
    count_of = "many"
  }
}
