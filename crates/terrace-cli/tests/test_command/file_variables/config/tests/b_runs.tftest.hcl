variables {
  req = run.first.o
}

run "first" {
  command = plan
}
