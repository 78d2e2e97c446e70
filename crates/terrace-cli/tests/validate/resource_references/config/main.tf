resource "terraform_data" "a" {}
resource "terraform_data" "c" {
  count = 2
}
resource "terraform_data" "f" {
  for_each = toset(["x"])
}
output "o1" { value = terraform_data.a.bogus }
output "o2" { value = terraform_data.a.inpt }
output "o3" { value = terraform_data.c.id }
output "o4" { value = terraform_data.f.id }
output "o5" { value = terraform_data.a[0].id }
output "o6" { value = terraform_data.c[0].bogus }
output "o7" { value = terraform_data.a }
output "o8" { value = terraform_data.c }
output "o9" { value = terraform_data.a["k"] }
