module "inner" {
  source = "../child"
  name   = "inner"
}

output "inner_greeting" {
  value = module.inner.greeting
}
