resource "terraform_data" "a" {
  input = {
    s2n    = 1
    s2l    = ["x"]
    l2m    = { a = "a" }
    n2null = null
    null2s = "s"
    o2s    = "v"
    b      = false
    long   = ["a", "c", "d", "e", "f", "g", "h", "i", "k"]
    multi  = ["one\nthree", "x"]
    objs   = [{ a = 1 }, { a = 3 }]
  }
}
