b = 
c=1
