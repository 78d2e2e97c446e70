# Root module for the `terrace console` differential tests. It deliberately has
# no providers and no resources so `terraform console` runs without `init`.

variable "name" {
  type    = string
  default = "terrace"
}

variable "port" {
  type    = number
  default = 8080
}

variable "zones" {
  type    = list(string)
  default = ["eu-west-1a", "eu-west-1b", "eu-west-1c"]
}

variable "services" {
  type = map(object({
    image    = string
    replicas = optional(number, 1)
    ports    = optional(list(number), [])
    labels   = optional(map(string))
  }))
  default = {
    web = {
      image    = "nginx:1.25"
      replicas = 3
      ports    = [80, 443]
    }
    worker = {
      image  = "busybox"
      labels = { tier = "backend" }
    }
  }
}

variable "password" {
  type      = string
  default   = "hunter2"
  sensitive = true
}

variable "maybe" {
  type     = string
  default  = null
  nullable = true
}

variable "untyped" {
  default = {
    a = [1, 2]
    b = "two"
  }
}

locals {
  greeting      = "Hello, ${var.name}!"
  doubled_port  = var.port * 2
  zone_count    = length(var.zones)
  replica_total = sum([for s in var.services : s.replicas])
  by_image      = { for k, s in var.services : s.image => k }
  secret_len    = length(var.password)
  multiline     = "line one\nline two\n"
  nested = {
    list  = [1, "two", true, null]
    map   = { x = 1, y = 2 }
    empty = []
  }
  numbers = [3, 1, 4, 1, 5, 9, 2, 6]
  # Template sources for templatestring(), which refuses literal templates.
  tpl_greeting = "Hello, $${name}!"
  tpl_loop     = "%%{ for x in xs }[$${x}]%%{ endfor }"
  tpl_funcs    = "$${upper(x)}-$${length(x)}"
  tpl_bad      = "$${nope}"
  tpl_unclosed = "$${a"
  people = [
    { name = "ann", age = 31, tags = ["a", "b"] },
    { name = "bob", age = 27, tags = [] },
    { name = "cid", age = 31, tags = ["c"] },
  ]
}

# No default: the recorder passes `-var=region=...` (see the header of
# expected.txt) so the replay must apply command-line variables too.
variable "region" {
  type = string
}
