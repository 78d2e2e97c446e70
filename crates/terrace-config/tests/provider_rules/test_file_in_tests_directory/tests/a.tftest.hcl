run "setup" {
  module {
    source = "./tests/setup"
  }
}

run "main" {
}
