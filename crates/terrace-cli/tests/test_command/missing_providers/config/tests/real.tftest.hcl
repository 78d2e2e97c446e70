run "needs_uninstalled_providers" {
  command = plan
}

run "skipped" {
  command = plan
}
