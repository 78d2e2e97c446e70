//! `terrace test` with the real hashicorp/aws provider against moto: a
//! test-level `provider "aws"` block replaces the module's configuration
//! with one pointing at moto (its region from a variable only the test
//! file declares), a run applies real objects (SSM parameters,
//! a log group) and checks them, a later run of another module reads one
//! back through a data source, and when the file ends everything it
//! created is destroyed: moto is empty again. (Each walk starts the AWS
//! provider afresh, seconds each, so the file is kept to two runs.)

mod engine_support;

use engine_support::{aws_moto_endpoints_body, have_aws_and_moto, Moto, Overrides, Work};

const MODULE: &str = r#"terraform {
  required_providers {
    aws = {
      source = "hashicorp/aws"
    }
  }
}

# What the module uses outside its tests; the test file replaces it.
provider "aws" {
  region = "us-east-1"
}

variable "prefix" {
  type = string
}

variable "value" {
  type    = string
  default = "first"
}

variable "names" {
  type    = set(string)
  default = ["a", "b"]
}

resource "aws_ssm_parameter" "setting" {
  for_each = var.names
  name     = "${var.prefix}/${each.key}"
  type     = "String"
  value    = "${var.value}-${each.key}"
}

resource "aws_cloudwatch_log_group" "logs" {
  name              = "${trimprefix(var.prefix, "/")}-logs"
  retention_in_days = 7
}

output "parameter_names" {
  value = sort([for p in aws_ssm_parameter.setting : p.name])
}

output "log_group_arn" {
  value = aws_cloudwatch_log_group.logs.arn
}
"#;

fn test_file(endpoint: &str) -> String {
    format!(
        r#"provider "aws" {{
  region = var.aws_region
{body}}}

variables {{
  prefix     = "/terrace-test"
  aws_region = "us-east-1"
}}

run "create" {{
  command = apply

  assert {{
    condition     = output.parameter_names == tolist(["/terrace-test/a", "/terrace-test/b"])
    error_message = "parameters: ${{jsonencode(output.parameter_names)}}"
  }}

  assert {{
    condition     = aws_ssm_parameter.setting["a"].value == "first-a"
    error_message = "value: ${{aws_ssm_parameter.setting["a"].value}}"
  }}

  assert {{
    condition     = startswith(output.log_group_arn, "arn:aws:logs:us-east-1:")
    error_message = "log group: ${{output.log_group_arn}}"
  }}
}}

run "read_back" {{
  command = plan

  module {{
    source = "./reader"
  }}

  variables {{
    name = run.create.parameter_names[0]
  }}

  assert {{
    condition     = data.aws_ssm_parameter.read.value == "first-a"
    error_message = "read back: ${{data.aws_ssm_parameter.read.value}}"
  }}
}}
"#,
        body = aws_moto_endpoints_body(&format!("{endpoint:?}"), &["ssm", "cloudwatchlogs", "sts"])
    )
}

const READER: &str = r#"terraform {
  required_providers {
    aws = {
      source = "hashicorp/aws"
    }
  }
}

variable "name" {
  type = string
}

data "aws_ssm_parameter" "read" {
  name = var.name
}
"#;

fn moto_objects(moto: &Moto) -> serde_json::Value {
    moto.query(
        "ssm = client('ssm', 'us-east-1')\n\
         params = sorted(p['Name'] for p in ssm.get_parameters_by_path(Path='/terrace-test', Recursive=True)['Parameters'])\n\
         logs = client('logs', 'us-east-1')\n\
         groups = sorted(g['logGroupName'] for g in logs.describe_log_groups(logGroupNamePrefix='terrace-test')['logGroups'])\n\
         print(json.dumps({'parameters': params, 'log_groups': groups}))\n",
    )
}

#[test]
fn applies_against_moto_and_leaves_it_empty() {
    if !have_aws_and_moto() {
        return;
    }
    let moto = Moto::start();
    let work = Work::new(
        "test-aws",
        Overrides {
            bundled: false,
            aws: true,
        },
    );
    work.write("main.tf", MODULE);
    work.write("reader/main.tf", READER);
    work.write("tests/moto.tftest.hcl", &test_file(&moto.endpoint));
    let run = work.terrace(&["test", "-no-color"]);
    assert_eq!(run.code, Some(0), "{}", run.output());
    assert_eq!(
        run.stdout,
        "tests/moto.tftest.hcl... in progress\n  run \"create\"... pass\n  run \"read_back\"... pass\ntests/moto.tftest.hcl... tearing down\ntests/moto.tftest.hcl... pass\n\nSuccess! 2 passed, 0 failed.\n",
        "{}",
        run.output()
    );
    assert_eq!(
        moto_objects(&moto),
        serde_json::json!({"parameters": [], "log_groups": []}),
        "the file's objects were destroyed when it ended"
    );
}
