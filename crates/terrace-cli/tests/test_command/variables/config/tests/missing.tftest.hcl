run "no_prefix" {
  command = plan
}
