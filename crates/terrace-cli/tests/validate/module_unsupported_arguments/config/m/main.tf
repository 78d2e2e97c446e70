variable "req" { default = 1 }
