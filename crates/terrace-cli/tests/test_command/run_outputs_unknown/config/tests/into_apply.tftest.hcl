run "planned" {
  command = plan
}

run "consume" {
  variables {
    name = "${run.planned.greeting}!"
  }
}
