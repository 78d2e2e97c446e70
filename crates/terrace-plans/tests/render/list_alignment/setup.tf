output "o1" { value = ["a", "b", "c"] }
output "o2" { value = ["a", "b"] }
output "o3" { value = ["a", "b", "c", "d"] }
output "o4" { value = tolist(["a", "b", "c"]) }
output "o5" { value = ["x", "y", "j"] }
output "o6" { value = ["a", "b", "c"] }
output "o7" { value = "a\nb\nc\n" }
output "o8" { value = [{a=1},{a=2}] }
output "o9" { value = ["a", "b", "c", "d", "e"] }
output "o10" { value = ["a", "b"] }
output "o11" { value = ["a", "b", "c"] }
output "o12" { value = ["a", "b", "c", "d"] }
output "o13" { value = ["a", "b", "c"] }
output "o14" { value = ["a", "b"] }
output "o15" { value = ["a", "b", "c"] }
output "o16" { value = ["a", "b"] }
output "o17" { value = ["a", "b", "c", "d"] }
output "o18" { value = ["a", "b", "c"] }
output "o19" { value = ["a", "b", "c"] }
output "o20" { value = ["a", "b", "c"] }
output "o21" { value = ["a", "b", "b"] }
output "o22" { value = [] }
output "o23" { value = [{a=1},{a=2}] }
output "o24" { value = [{a=1}] }
output "p1" { value = ["one\ntwo", "x"] }
output "p2" { value = [{a=1},{a=2}] }
output "p3" { value = ["a", "a", "b"] }
output "p4" { value = [1, 2, 3] }
