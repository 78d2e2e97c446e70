resource "random_shuffle" "s" { input = ["a", "b", "c"] }
resource "random_shuffle" "p" { input = ["a", "b", "c"] }
resource "random_shuffle" "q" { input = ["a", "b", "c"] }
