resource "terraform_data" "a" {
  input = {
    a = "1", b = "2", c = "3"
    obj = { p = 1, q = 2, r = { deep = "x", other = "y" } }
    list = ["a", "b", "c", "d", "e", "f", "g"]
    objs = [{ n = "one", v = 1 }, { n = "two", v = 2 }]
    gone = "bye"
    tonull = "x"
  }
}
