//! Deferred provider expansion (a terrace extension, rules in
//! docs/CONFORMANCE.md) with the real AWS provider against `moto_server`:
//! the region list comes from a resource (`terraform_data`), the
//! regional AWS configuration iterates over it, and an SSM parameter is
//! made in each region. The first apply creates the list and defers the
//! parameters; the second creates each through its own region's instance
//! (checked in moto region by region); the third plans no changes.

use crate::engine_support::{aws_moto_provider_body, have_aws_and_moto, Moto, Overrides, Work};
use serde_json::json;

const REGIONS: [&str; 2] = ["us-east-1", "eu-west-1"];

fn main_tf() -> String {
    format!(
        r#"
terraform {{
  required_providers {{
    aws = {{ source = "hashicorp/aws" }}
  }}
}}

resource "terraform_data" "regions" {{
  input = {regions:?}
}}

provider "aws" {{
  alias    = "by_region"
  for_each = toset(terraform_data.regions.output)
  region   = each.key
{body}}}

resource "aws_ssm_parameter" "here" {{
  for_each = {{ for region in terraform_data.regions.output : region => "made in ${{region}}" }}
  provider = aws.by_region[each.key]
  name     = "/terrace/deferred/here"
  type     = "String"
  value    = each.value
}}
"#,
        regions = REGIONS,
        body = aws_moto_provider_body()
    )
}

fn parameters(moto: &Moto) -> serde_json::Value {
    moto.query(&format!(
        "out = {{}}\n\
         for region in {REGIONS:?}:\n    \
             got = client('ssm', region).get_parameters(Names=['/terrace/deferred/here'])['Parameters']\n    \
             if got:\n        \
                 out[region] = got[0]['Value']\n\
         print(json.dumps(out))"
    ))
}

#[test]
fn regional_parameters_wait_for_the_region_list_then_land_in_their_regions() {
    if !have_aws_and_moto() {
        return;
    }
    let moto = Moto::start();
    let work = Work::new(
        "deferred-aws",
        Overrides {
            bundled: false,
            aws: true,
        },
    )
    .aws_at(&moto);
    work.write("main.tf", &main_tf());
    let apply = || work.terrace_ok(&["apply", "-auto-approve"], 0);

    let first = apply();
    assert!(
        first
            .stdout
            .contains("Apply complete! Resources: 1 added, 0 changed, 0 destroyed."),
        "{}",
        first.output()
    );
    assert!(
        first.stdout.contains("Deferred: the for_each of provider configuration provider[\"registry.terraform.io/hashicorp/aws\"].by_region is not known until apply. What is bound to it was not applied: aws_ssm_parameter.here."),
        "{}",
        first.output()
    );
    assert_eq!(parameters(&moto), json!({}));

    let second = apply();
    assert!(
        second
            .stdout
            .contains("Apply complete! Resources: 2 added, 0 changed, 0 destroyed."),
        "{}",
        second.output()
    );
    assert!(!second.stdout.contains("Deferred:"), "{}", second.output());
    assert_eq!(
        parameters(&moto),
        json!({ "us-east-1": "made in us-east-1", "eu-west-1": "made in eu-west-1" })
    );

    let plan = work.terrace_ok(&["plan", "-detailed-exitcode"], 0);
    assert!(plan.stdout.contains("No changes."), "{}", plan.output());
}
