x = "root"
