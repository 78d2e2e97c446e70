//! State interoperability with terraform 1.11.4, in both directions, for
//! configurations without provider `for_each`: terrace applies and
//! terraform plans "No changes" (exit 0 with `-detailed-exitcode`) on the
//! state terrace wrote; terraform applies and terrace plans no changes on
//! the state terraform wrote. Three configurations: every bundled provider
//! (random feeding null, local and kv, with a data source and outputs),
//! the real AWS provider against `moto_server`, and `terraform_data` alone
//! (count, for_each, module calls with count, outputs, a sensitive one).

mod engine_support;

use engine_support::{
    aws_moto_endpoints_body, have_aws_and_moto, have_terraform, Moto, Overrides, Work,
};

const BUNDLED_TF: &str = r#"
terraform {
  required_providers {
    random = { source = "hashicorp/random" }
    null   = { source = "hashicorp/null" }
    local  = { source = "hashicorp/local" }
    kv     = { source = "terrace/kv" }
  }
}

provider "kv" {
  directory = "${path.module}/store"
  namespace = "interop"
}

resource "random_pet" "name" {
  length = 2
}

resource "random_id" "id" {
  byte_length = 4
}

resource "random_integer" "n" {
  min = 1
  max = 1000
}

resource "random_password" "p" {
  length = 16
}

resource "random_shuffle" "order" {
  input = ["a", "b", "c"]
}

resource "null_resource" "n" {
  triggers = {
    pet = random_pet.name.id
  }
}

resource "local_file" "f" {
  filename = "${path.module}/out/name.txt"
  content  = "${random_pet.name.id}-${random_id.id.hex}"
}

resource "local_sensitive_file" "s" {
  filename = "${path.module}/out/secret.txt"
  content  = random_password.p.result
}

resource "kv_entry" "e" {
  key   = random_pet.name.id
  value = tostring(random_integer.n.result)
  tags = {
    id    = random_id.id.b64_url
    order = join(",", random_shuffle.order.result)
  }
}

resource "kv_entry" "many" {
  count = 3
  key   = "item-${count.index}"
  value = random_pet.name.id
}

data "kv_entry" "e" {
  key = kv_entry.e.key
}

output "pet" {
  value = random_pet.name.id
}

output "password" {
  value     = random_password.p.result
  sensitive = true
}

output "stored" {
  value = data.kv_entry.e.value
}

output "items" {
  value = kv_entry.many[*].id
}
"#;

fn aws_tf() -> String {
    format!(
        r#"
terraform {{
  required_providers {{
    aws = {{ source = "hashicorp/aws" }}
  }}
}}

variable "endpoint" {{
  type = string
}}

variable "prefix" {{
  type = string
}}

provider "aws" {{
  region = "eu-west-1"
{body}}}

resource "aws_ssm_parameter" "p" {{
  name  = "/${{var.prefix}}/setting"
  type  = "String"
  value = "on"
  tags = {{
    owner = var.prefix
  }}
}}

resource "aws_cloudwatch_log_group" "logs" {{
  name              = "${{var.prefix}}-logs"
  retention_in_days = 14
}}

resource "aws_sns_topic" "t" {{
  name = "${{var.prefix}}-topic"
  tags = {{
    log_group = aws_cloudwatch_log_group.logs.name
  }}
}}

resource "aws_s3_bucket" "b" {{
  bucket = "${{var.prefix}}-bucket"
}}

output "topic" {{
  value = aws_sns_topic.t.arn
}}
"#,
        body = aws_moto_endpoints_body(
            "var.endpoint",
            &["ssm", "cloudwatchlogs", "sns", "s3", "sts"]
        ) + "  s3_use_path_style           = true\n"
    )
}

const DATA_TF: &str = r#"
variable "n" {
  default = 3
}

resource "terraform_data" "base" {
  input = "base"
}

resource "terraform_data" "counted" {
  count            = var.n
  input            = "${terraform_data.base.output}-${count.index}"
  triggers_replace = [count.index]
}

resource "terraform_data" "each" {
  for_each = toset(["a", "b"])
  input = {
    key   = each.key
    count = length(terraform_data.counted)
    list  = [1, 2]
  }
}

module "child" {
  source = "./child"
  count  = 2
  prefix = "m${count.index}"
}

module "single" {
  source = "./child"
  prefix = "s"
}

output "ids" {
  value = terraform_data.counted[*].id
}

output "each" {
  value = { for k, v in terraform_data.each : k => v.output }
}

output "child" {
  value = module.child[*].value
}

output "secret" {
  value     = "hush"
  sensitive = true
}
"#;

const CHILD_TF: &str = r#"
variable "prefix" {
  type = string
}

resource "terraform_data" "x" {
  input = var.prefix
}

resource "terraform_data" "y" {
  for_each   = { one = 1, two = 2 }
  input      = "${var.prefix}-${each.key}-${each.value}"
  depends_on = [terraform_data.x]
}

output "value" {
  value = terraform_data.x.output
}
"#;

/// Both directions for one configuration: `files` written in a fresh
/// directory per direction, `vars(direction)` the `-var` arguments of that
/// direction (the AWS objects are named by it, so the two do not collide).
fn both_directions(
    name: &str,
    overrides: impl Fn() -> Overrides,
    files: &[(&str, &str)],
    needs_init: bool,
    vars: impl Fn(&str) -> Vec<String>,
) {
    let setup = |direction: &str| {
        let work = Work::new(&format!("{name}-{direction}"), overrides());
        for (path, text) in files {
            work.write(path, text);
        }
        if needs_init {
            // terraform wants its module manifest; terrace reads local
            // modules directly.
            work.terraform_ok(&["init", "-input=false"], 0);
        }
        work
    };
    let with_vars = |args: &[&str], vars: &[String]| -> Vec<String> {
        let mut all: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        for v in vars {
            all.push("-var".into());
            all.push(v.clone());
        }
        all
    };

    // terrace writes, terraform reads.
    let vars_a = vars("a");
    let work = setup("terrace-first");
    let args = with_vars(&["apply", "-auto-approve"], &vars_a);
    let applied = work.terrace_ok(&args.iter().map(String::as_str).collect::<Vec<_>>(), 0);
    assert!(
        applied.stdout.contains("Apply complete!"),
        "{}",
        applied.output()
    );
    let args = with_vars(&["plan", "-detailed-exitcode", "-input=false"], &vars_a);
    let plan = work.terraform(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(
        plan.code,
        Some(0),
        "terraform does not plan \"No changes\" on the state terrace wrote:\n{}\n--- the state\n{}",
        plan.output(),
        String::from_utf8_lossy(&work.state_bytes())
    );
    assert!(plan.stdout.contains("No changes."), "{}", plan.output());
    drop(work);

    // terraform writes, terrace reads.
    let vars_b = vars("b");
    let work = setup("terraform-first");
    let args = with_vars(&["apply", "-auto-approve", "-input=false"], &vars_b);
    work.terraform_ok(&args.iter().map(String::as_str).collect::<Vec<_>>(), 0);
    let args = with_vars(&["plan", "-detailed-exitcode"], &vars_b);
    let plan = work.terrace(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(
        plan.code,
        Some(0),
        "terrace does not plan no changes on the state terraform wrote:\n{}\n--- the state\n{}",
        plan.output(),
        String::from_utf8_lossy(&work.state_bytes())
    );
    assert!(plan.stdout.contains("No changes."), "{}", plan.output());
}

#[test]
fn bundled_providers_state_round_trips_with_terraform() {
    if !have_terraform() {
        return;
    }
    both_directions(
        "bundled",
        || Overrides {
            bundled: true,
            aws: false,
        },
        &[("main.tf", BUNDLED_TF)],
        false,
        |_| Vec::new(),
    );
}

#[test]
fn aws_state_round_trips_with_terraform() {
    if !have_terraform() || !have_aws_and_moto() {
        return;
    }
    let moto = Moto::start();
    let main = aws_tf();
    both_directions(
        "aws",
        || Overrides {
            bundled: false,
            aws: true,
        },
        &[("main.tf", &main)],
        false,
        |direction| {
            vec![
                format!("endpoint={}", moto.endpoint),
                format!("prefix=interop-{direction}"),
            ]
        },
    );
}

#[test]
fn terraform_data_state_round_trips_with_terraform() {
    if !have_terraform() {
        return;
    }
    both_directions(
        "data",
        || Overrides {
            bundled: false,
            aws: false,
        },
        &[("main.tf", DATA_TF), ("child/main.tf", CHILD_TF)],
        true,
        |_| Vec::new(),
    );
}
