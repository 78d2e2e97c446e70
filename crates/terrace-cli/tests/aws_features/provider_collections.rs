//! A module receiving a collection of regional AWS provider instances (a
//! terrace extension, rules in docs/CONFORMANCE.md), with the real AWS
//! provider against `moto_server`: the root configures `aws.by_region`
//! with one instance per region, the module declares it in
//! `configuration_collections` and creates an SSM parameter in each
//! region through `aws.by_region[each.key]`. moto is checked region by
//! region, so a parameter made through the wrong instance shows up in the
//! wrong region; then one region is dropped from the module and its
//! parameter deleted through its instance.

use crate::engine_support::{aws_moto_provider_body, have_aws_and_moto, Moto, Overrides, Work};
use serde_json::json;

const REGIONS: [&str; 3] = ["us-east-1", "eu-west-1", "ap-southeast-2"];

fn root_tf() -> String {
    format!(
        r#"
terraform {{
  required_providers {{
    aws = {{ source = "hashicorp/aws" }}
  }}
}}

variable "deployed" {{
  type = set(string)
}}

provider "aws" {{
  alias    = "by_region"
  for_each = toset({regions:?})
  region   = each.key
{body}}}

module "parameters" {{
  source  = "./parameters"
  regions = var.deployed
  providers = {{
    aws.by_region = aws.by_region
  }}
}}
"#,
        regions = REGIONS,
        body = aws_moto_provider_body()
    )
}

const MODULE_TF: &str = r#"
terraform {
  required_providers {
    aws = {
      source                    = "hashicorp/aws"
      configuration_collections = [aws.by_region]
    }
  }
}

variable "regions" {
  type = set(string)
}

resource "aws_ssm_parameter" "here" {
  for_each = var.regions
  provider = aws.by_region[each.key]
  name     = "/terrace/collections/here"
  type     = "String"
  value    = each.key
}
"#;

/// The value of `/terrace/collections/here` in each region that has it.
fn parameters(moto: &Moto) -> serde_json::Value {
    moto.query(&format!(
        "out = {{}}\n\
         for region in {REGIONS:?}:\n    \
             got = client('ssm', region).get_parameters(Names=['/terrace/collections/here'])['Parameters']\n    \
             if got:\n        \
                 out[region] = got[0]['Value']\n\
         print(json.dumps(out))"
    ))
}

#[test]
fn a_module_creates_a_parameter_in_each_region_of_the_collection() {
    if !have_aws_and_moto() {
        return;
    }
    let moto = Moto::start();
    let work = Work::new(
        "collections-aws",
        Overrides {
            bundled: false,
            aws: true,
        },
    )
    .aws_at(&moto);
    work.write("main.tf", &root_tf());
    work.write("parameters/main.tf", MODULE_TF);

    work.write(
        "terraform.tfvars",
        "deployed = [\"us-east-1\", \"eu-west-1\", \"ap-southeast-2\"]\n",
    );
    let run = work.terrace_ok(&["apply", "-auto-approve"], 0);
    assert!(
        run.stdout
            .contains("Apply complete! Resources: 3 added, 0 changed, 0 destroyed."),
        "{}",
        run.output()
    );
    assert_eq!(
        parameters(&moto),
        json!({
            "us-east-1": "us-east-1",
            "eu-west-1": "eu-west-1",
            "ap-southeast-2": "ap-southeast-2",
        })
    );
    let plan = work.terrace_ok(&["plan", "-detailed-exitcode"], 0);
    assert!(plan.stdout.contains("No changes."), "{}", plan.output());

    work.write(
        "terraform.tfvars",
        "deployed = [\"us-east-1\", \"eu-west-1\"]\n",
    );
    let run = work.terrace_ok(&["apply", "-auto-approve"], 0);
    assert!(
        run.stdout
            .contains("Apply complete! Resources: 0 added, 0 changed, 1 destroyed."),
        "{}",
        run.output()
    );
    assert_eq!(
        parameters(&moto),
        json!({ "us-east-1": "us-east-1", "eu-west-1": "eu-west-1" })
    );
}
