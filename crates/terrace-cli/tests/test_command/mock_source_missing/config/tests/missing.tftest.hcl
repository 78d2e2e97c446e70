mock_provider "null" {
  source = "./mocks"
}

run "never_runs" {
  command = plan
}
