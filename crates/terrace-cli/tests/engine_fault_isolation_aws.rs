//! Fault isolation with the real AWS provider against `moto_server`: an
//! `aws` configuration with an instance per region, one of which cannot
//! be configured (its region is not one the provider accepts, as a region
//! that does not answer or a credential that expired would fail it). The
//! other regions' parameters are created and checked in moto; the failing
//! region's resources are left out with "Provider instance unavailable"
//! and the run exits 1 naming that instance; once the region is fixed the
//! next apply creates only what was left out.

mod engine_support;

use engine_support::{aws_moto_provider_body, have_aws_and_moto, Moto, Overrides, Work};
use serde_json::{json, Value as Json};

const GOOD: [&str; 2] = ["us-east-1", "eu-west-1"];

fn main_tf(third: &str) -> String {
    format!(
        r#"
terraform {{
  required_providers {{
    aws = {{ source = "hashicorp/aws" }}
  }}
}}

variable "regions" {{
  type    = map(string)
  default = {{
    "us-east-1" = "us-east-1"
    "eu-west-1" = "eu-west-1"
    "third"     = "{third}"
  }}
}}

provider "aws" {{
  alias    = "by_region"
  for_each = var.regions
  region   = each.value
{body}}}

resource "aws_ssm_parameter" "region" {{
  for_each = var.regions
  provider = aws.by_region[each.key]

  name  = "/terrace/isolation/${{each.key}}"
  type  = "String"
  value = each.value
}}
"#,
        body = aws_moto_provider_body()
    )
}

/// The parameter names under /terrace/isolation in each region.
fn moto_parameters(moto: &Moto, regions: &[&str]) -> Json {
    moto.query(&format!(
        "out = {{}}\n\
         for region in {regions:?}:\n    \
             ssm = client('ssm', region)\n    \
             out[region] = sorted(p['Name'] for p in ssm.get_parameters_by_path(Path='/terrace/isolation', Recursive=True)['Parameters'])\n\
         print(json.dumps(out))\n",
        regions = regions.to_vec()
    ))
}

#[test]
fn one_region_that_cannot_be_configured_leaves_the_others_applied() {
    if !have_aws_and_moto() {
        return;
    }
    let moto = Moto::start();
    let w = Work::new(
        "fault-isolation-aws",
        Overrides {
            bundled: false,
            aws: true,
        },
    )
    .aws_at(&moto);
    w.write("main.tf", &main_tf("nowhere-central-9"));

    let apply = w.terrace_ok(&["apply", "-auto-approve"], 1);
    let all = apply.all();
    assert!(
        all.contains("Provider instance unavailable"),
        "{}",
        apply.output()
    );
    assert!(
        all.contains("aws_ssm_parameter.region[\"third\"] was not planned"),
        "{}",
        apply.output()
    );
    assert!(
        apply
            .stdout
            .contains("Apply complete! Resources: 2 added, 0 changed, 0 destroyed."),
        "{}",
        apply.output()
    );
    assert!(
        apply.stdout.contains(
            "Not applied: the resources of 1 provider instance that could not be configured: provider[\"registry.terraform.io/hashicorp/aws\"].by_region[\"third\"]."
        ),
        "{}",
        apply.output()
    );
    let regions = ["us-east-1", "eu-west-1", "ap-southeast-2"];
    assert_eq!(
        moto_parameters(&moto, &regions),
        json!({
            "us-east-1": ["/terrace/isolation/us-east-1"],
            "eu-west-1": ["/terrace/isolation/eu-west-1"],
            "ap-southeast-2": [],
        })
    );
    let mut expected: Vec<String> = GOOD
        .iter()
        .map(|r| format!("aws_ssm_parameter.region[{r:?}]"))
        .collect();
    expected.sort();
    assert_eq!(w.state_addresses(), expected);

    // The third region fixed: only its parameter is created.
    w.write("main.tf", &main_tf("ap-southeast-2"));
    let apply = w.terrace_ok(&["apply", "-auto-approve"], 0);
    assert!(
        apply
            .stdout
            .contains("Apply complete! Resources: 1 added, 0 changed, 0 destroyed."),
        "{}",
        apply.output()
    );
    assert_eq!(
        moto_parameters(&moto, &regions),
        json!({
            "us-east-1": ["/terrace/isolation/us-east-1"],
            "eu-west-1": ["/terrace/isolation/eu-west-1"],
            "ap-southeast-2": ["/terrace/isolation/third"],
        })
    );
    w.terrace_ok(&["destroy", "-auto-approve"], 0);
    assert_eq!(
        moto_parameters(&moto, &regions),
        json!({ "us-east-1": [], "eu-west-1": [], "ap-southeast-2": [] })
    );
}
