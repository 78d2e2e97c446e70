resource "terraform_data" "a" {
  input = {
    s2n    = "1"
    s2l    = "x"
    l2m    = ["a"]
    n2null = 5
    null2s = null
    o2s    = { k = "v" }
    b      = true
    long   = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]
    multi  = ["one\ntwo", "x"]
    objs   = [{ a = 1 }, { a = 2 }, { a = 3 }]
  }
}
