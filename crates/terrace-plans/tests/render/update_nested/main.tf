resource "terraform_data" "a" {
  input = {
    a = "1", b = "changed", c = "3"
    obj = { p = 1, q = 3, r = { deep = "z", other = "y" } }
    list = ["a", "b", "X", "d", "e", "f", "g", "h"]
    objs = [{ n = "one", v = 1 }, { n = "two", v = 3 }]
    added = true
    tonull = null
  }
}
