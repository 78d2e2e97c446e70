run "refers_to_missing_run" {
  variables {
    seed = run.nowhere.id
  }
}
