resource "terraform_data" "a" {
  input = {
    j  = jsonencode({ a = 2, b = [1, 3], c = { d = "f" }, keep = "k", n = null })
    ws = "{\"a\":1}"
    tojson = "[1]"
  }
}
