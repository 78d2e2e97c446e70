resource "random_shuffle" "s" { input = ["b", "c", "d"] }
resource "random_shuffle" "p" { input = ["c", "a", "b"] }
resource "random_shuffle" "q" { input = ["a", "b", "c", "d"] }
