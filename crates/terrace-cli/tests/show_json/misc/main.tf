terraform {
  required_providers {
    terraform = {
      source = "terraform.io/builtin/terraform"
    }
  }
}

resource "terraform_data" "heredoc" {
  input = <<-T
    hello ${"world"}
  T
  triggers_replace = [1, 2.5, -3, 1e20, 12345678901234567890]
}

resource "terraform_data" "dyn" {
  input = { for i in [1, 2] : tostring(i) => i }
  provisioner "local-exec" {
    command = "echo ${self.id}"
  }
}

resource "terraform_data" "tpl" {
  input = "%{if true}yes%{endif}"
}

output "html" {
  value       = "<a&b> \u2028"
  description = "x<y"
}
