mock_provider "foo" {}

mock_provider "bar" {}

run "mocks_of_uninstalled_providers" {
  command = plan
}
