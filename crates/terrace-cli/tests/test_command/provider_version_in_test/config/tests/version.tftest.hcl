provider "terraform" {
  version = "~> 1.0"
}

run "never_runs" {
  command = plan
}
