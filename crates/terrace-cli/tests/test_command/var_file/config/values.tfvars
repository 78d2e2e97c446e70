prefix   = "from-file"
count_of = 2
