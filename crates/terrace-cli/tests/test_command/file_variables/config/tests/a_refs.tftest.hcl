variables {
  req   = "r"
  extra = "x"
  combo = "${var.extra}-c"
}

run "combo" {
  command = plan

  variables {
    req = var.combo
  }
}
