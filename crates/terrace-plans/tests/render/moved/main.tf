resource "terraform_data" "new" { input = "x" }
moved {
  from = terraform_data.old
  to   = terraform_data.new
}
resource "terraform_data" "new2" { input = "y" }
moved {
  from = terraform_data.old2
  to   = terraform_data.new2
}
