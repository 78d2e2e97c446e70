provider "kv" {
  namespace = "no-directory"
}

run "required_argument_missing" {
  command = plan
}
