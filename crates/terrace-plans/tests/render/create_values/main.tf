resource "terraform_data" "a" {
  count = 2
  input = {
    s      = "hello"
    n      = 42
    f      = 1.5
    big    = 12345678901234567890
    neg    = -3
    b      = false
    l      = ["a", "b"]
    m      = { k1 = "v1", "key two" = "v2" }
    tm     = tomap({ x = "1", "y z" = "2" })
    nested = { x = [1, 2, { y = true }] }
    multi  = "line1\nline2\n"
    json   = jsonencode({ a = 1, b = [1, 2] })
    jl     = jsonencode([1, "two"])
    secret = sensitive("shh")
    nul    = null
    e      = []
    em     = {}
    es     = ""
    q      = "quote \" backslash \\ tab \t uni é ☃"
    set    = toset(["z", "a"])
  }
  triggers_replace = ["x"]
}
output "o" { value = terraform_data.a[0].output }
output "s" {
  value     = "x"
  sensitive = true
}
output "obj" { value = { a = 1, b = ["x"] } }
