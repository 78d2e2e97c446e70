provider "kv" {
  directory = "unavailable-store"
  namespace = try(run.first.next_namespace, "first")
}

run "first" {
  command = plan
}
