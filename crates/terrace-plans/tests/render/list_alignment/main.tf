output "o1" { value = ["a", "c", "d"] }
output "o2" { value = ["b"] }
output "o3" { value = ["a", "c", "d", "e"] }
output "o4" { value = tolist(["a", "c", "d"]) }
output "o5" { value = ["x", "y", "k"] }
output "o6" { value = ["b", "c", "d"] }
output "o7" { value = "a\nx\nc\n" }
output "o8" { value = [{a=2},{a=3}] }
output "o9" { value = ["a", "x", "c", "y", "e"] }
output "o10" { value = ["a", "b", "c"] }
output "o11" { value = ["c", "a", "b"] }
output "o12" { value = ["b", "c", "d", "e"] }
output "o13" { value = ["b", "c"] }
output "o14" { value = ["b", "a"] }
output "o15" { value = ["d", "a", "b"] }
output "o16" { value = ["c", "a"] }
output "o17" { value = ["b", "a", "d", "c"] }
output "o18" { value = ["x", "a", "b", "c"] }
output "o19" { value = ["b", "c", "x", "y"] }
output "o20" { value = ["a", "b", "b"] }
output "o21" { value = ["a", "b", "c"] }
output "o22" { value = [] }
output "o23" { value = [{a=2},{a=1}] }
output "o24" { value = [{a=0},{a=1}] }
output "p1" { value = ["one\nthree", "y", "z"] }
output "p2" { value = [{a=1},{a=3},{a=4}] }
output "p3" { value = ["a", "b", "b"] }
output "p4" { value = [1, 2, "3"] }
