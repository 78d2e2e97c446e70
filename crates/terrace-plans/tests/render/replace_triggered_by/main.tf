resource "terraform_data" "t" { input = "2" }
resource "terraform_data" "a" {
  input = "x"
  lifecycle { replace_triggered_by = [terraform_data.t] }
}
