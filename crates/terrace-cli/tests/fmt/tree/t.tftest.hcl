run "x" {
command=plan
}
