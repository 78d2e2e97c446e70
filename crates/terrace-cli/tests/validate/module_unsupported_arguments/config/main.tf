module "m" {
  source = "./m"
  bogus  = 1
  reqq   = 2
}
