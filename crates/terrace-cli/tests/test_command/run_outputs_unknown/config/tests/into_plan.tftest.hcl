run "planned" {
  command = plan
}

run "consume" {
  command = plan

  variables {
    name = run.planned.greeting
  }
}
