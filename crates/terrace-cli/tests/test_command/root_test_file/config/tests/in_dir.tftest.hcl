run "in_the_test_directory" {
  command = plan
}
