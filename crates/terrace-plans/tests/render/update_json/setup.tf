resource "terraform_data" "a" {
  input = {
    j  = jsonencode({ a = 1, b = [1, 2, 3], c = { d = "e" }, keep = "k" })
    ws = "{\"a\": 1}"
    tojson = "plain"
  }
}
