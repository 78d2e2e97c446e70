v="${var.x}"
list = [ 1,2 ]
