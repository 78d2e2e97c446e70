//! One provider instance per region, end to end with the real AWS provider
//! against `moto_server`: one `aws` configuration with an instance per
//! region (provider `for_each`), an SSM parameter per enabled region bound
//! to `aws.by_region[each.key]`, and a child module per enabled region
//! given that instance through its `providers` map, holding a CloudWatch
//! log group. Each step is applied by terrace and then checked in moto
//! region by region (so an object made through the wrong provider instance
//! shows up in the wrong region):
//!
//! 1. two regions; 2. a third added; 3. the third disabled (its objects
//!    destroyed through its still-present provider instance); 4. the third
//!    removed from the map (nothing left to destroy, so it works);
//! 5. an enabled region removed in one step: `plan` and `apply` fail with
//!    "Provider instance not present" and neither the state file (byte for
//!    byte) nor moto changes; 6. destroy of what is left.
//!
//! The region map comes from `terraform.tfvars`, as a team would keep it,
//! and `init` runs first: it must evaluate the provider's `for_each` from
//! the tfvars file before any plan. `engine_provider_for_each_vars` covers `-var` and
//! `-var-file`.

mod engine_support;

use engine_support::{aws_moto_provider_body, have_aws_and_moto, Moto, Work};
use serde_json::{json, Value as Json};

const REGIONS: [&str; 3] = ["us-east-1", "eu-west-1", "ap-southeast-2"];

fn main_tf() -> String {
    format!(
        r#"
terraform {{
  required_providers {{
    aws = {{ source = "hashicorp/aws" }}
  }}
}}

locals {{
  # Resources exist only in enabled regions; the provider instance of a
  # disabled region stays, so its objects can still be destroyed.
  enabled_regions = {{
    for region, config in var.regions : region => config
    if config.enabled
  }}
}}

variable "regions" {{
  type = map(object({{
    enabled = optional(bool, true)
  }}))
}}

provider "aws" {{
  alias    = "by_region"
  for_each = var.regions
  region   = each.key
{body}}}

resource "aws_ssm_parameter" "region" {{
  for_each = local.enabled_regions
  provider = aws.by_region[each.key]

  name  = "/terrace/regions/${{each.key}}"
  type  = "String"
  value = each.key
}}

module "app" {{
  source   = "./app"
  for_each = local.enabled_regions
  providers = {{
    aws = aws.by_region[each.key]
  }}

  region = each.key
}}

output "parameters" {{
  value = {{ for region, p in aws_ssm_parameter.region : region => p.name }}
}}

output "log_groups" {{
  value = {{ for region, m in module.app : region => m.log_group }}
}}
"#,
        body = aws_moto_provider_body()
    )
}

const APP_TF: &str = r#"
terraform {
  required_providers {
    aws = { source = "hashicorp/aws" }
  }
}

variable "region" {
  type = string
}

resource "aws_cloudwatch_log_group" "app" {
  name              = "terrace-app-${var.region}"
  retention_in_days = 7
}

output "log_group" {
  value = aws_cloudwatch_log_group.app.name
}
"#;

/// `terraform.tfvars`: the region map, each entry `(region, enabled)`.
fn regions_tfvars(regions: &[(&str, bool)]) -> String {
    let mut entries = String::new();
    for (region, enabled) in regions {
        entries.push_str(&format!("  {region:?} = {{ enabled = {enabled} }}\n"));
    }
    format!("regions = {{\n{entries}}}\n")
}

/// What moto holds, per region: the parameter names under /terrace/ and
/// the log group names starting with terrace-.
fn moto_contents(moto: &Moto) -> Json {
    moto.query(&format!(
        "out = {{}}\n\
         for region in {regions:?}:\n    \
             ssm = client('ssm', region)\n    \
             params = sorted(p['Name'] for p in ssm.get_parameters_by_path(Path='/terrace', Recursive=True)['Parameters'])\n    \
             logs = client('logs', region)\n    \
             groups = sorted(g['logGroupName'] for g in logs.describe_log_groups(logGroupNamePrefix='terrace-')['logGroups'])\n    \
             out[region] = {{'parameters': params, 'log_groups': groups}}\n\
         print(json.dumps(out))\n",
        regions = REGIONS.to_vec()
    ))
}

/// The moto contents expected when exactly `deployed` regions have their
/// objects.
fn expected(deployed: &[&str]) -> Json {
    let mut out = serde_json::Map::new();
    for region in REGIONS {
        let here = deployed.contains(&region);
        out.insert(
            region.to_string(),
            if here {
                json!({
                    "parameters": [format!("/terrace/regions/{region}")],
                    "log_groups": [format!("terrace-app-{region}")],
                })
            } else {
                json!({ "parameters": [], "log_groups": [] })
            },
        );
    }
    Json::Object(out)
}

/// The state addresses expected when exactly `deployed` regions have
/// their objects.
fn expected_addresses(deployed: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for region in deployed {
        out.push(format!("aws_ssm_parameter.region[{region:?}]"));
        out.push(format!(
            "module.app[{region:?}].aws_cloudwatch_log_group.app"
        ));
    }
    out.sort();
    out
}

/// The provider instance each resource instance in the state is bound to
/// (the instance-level `provider`, with its instance key).
fn provider_instances(work: &Work) -> Vec<(String, String)> {
    let state = work.state();
    let mut out = Vec::new();
    for resource in state["resources"].as_array().into_iter().flatten() {
        let name = format!(
            "{}{}.{}",
            resource["module"]
                .as_str()
                .map(|m| format!("{m}."))
                .unwrap_or_default(),
            resource["type"].as_str().unwrap_or_default(),
            resource["name"].as_str().unwrap_or_default()
        );
        for instance in resource["instances"].as_array().into_iter().flatten() {
            let key = match instance["index_key"].as_str() {
                Some(k) => format!("[{k:?}]"),
                None => String::new(),
            };
            let provider = instance["provider"]
                .as_str()
                .or(resource["provider"].as_str())
                .unwrap_or_default()
                .to_string();
            out.push((format!("{name}{key}"), provider));
        }
    }
    out.sort();
    out
}

fn summary_line(run: &engine_support::Run) -> String {
    run.stdout
        .lines()
        .find(|l| l.starts_with("Apply complete!") || l.starts_with("Destroy complete!"))
        .unwrap_or("<no summary line>")
        .to_string()
}

#[test]
fn regions_added_disabled_and_removed_through_provider_instances() {
    if !have_aws_and_moto() {
        return;
    }
    let moto = Moto::start();
    // init installs the provider from the image's mirror, as a team's
    // pipeline would; the other commands take it through dev_overrides,
    // which spares each of them checking the 700 MB package against the
    // lock file.
    let work = Work::at(
        std::env::temp_dir().join(format!("terrace-engine-regions-{}", std::process::id())),
        &format!(
            "provider_installation {{\n  dev_overrides {{\n    \"hashicorp/aws\" = {:?}\n  }}\n  filesystem_mirror {{\n    path = {:?}\n  }}\n}}\n",
            terrace_testsupport::AWS_PROVIDER_PACKAGE,
            terrace_testsupport::PLUGIN_MIRROR
        ),
    )
    .aws_at(&moto);
    work.write("main.tf", &main_tf());
    work.write("app/main.tf", APP_TF);

    // `init` evaluates the provider's `for_each` from terraform.tfvars
    // already.
    work.write(
        "terraform.tfvars",
        &regions_tfvars(&[("us-east-1", true), ("eu-west-1", true)]),
    );
    let init = work.terrace_ok(&["init", "-input=false"], 0);
    assert!(
        init.stdout.contains("has been successfully initialized!"),
        "{}",
        init.output()
    );
    let apply = |regions: &[(&str, bool)]| {
        work.write("terraform.tfvars", &regions_tfvars(regions));
        work.terrace_ok(&["apply", "-auto-approve"], 0)
    };
    let no_changes = || {
        let plan = work.terrace_ok(&["plan", "-detailed-exitcode"], 0);
        assert!(plan.stdout.contains("No changes."), "{}", plan.output());
    };

    // 1. Two regions.
    let run = apply(&[("us-east-1", true), ("eu-west-1", true)]);
    assert_eq!(
        summary_line(&run),
        "Apply complete! Resources: 4 added, 0 changed, 0 destroyed.",
        "{}",
        run.output()
    );
    assert_eq!(moto_contents(&moto), expected(&["us-east-1", "eu-west-1"]));
    assert_eq!(
        work.state_addresses(),
        expected_addresses(&["us-east-1", "eu-west-1"])
    );
    for (addr, provider) in provider_instances(&work) {
        let region = if addr.contains("us-east-1") {
            "us-east-1"
        } else {
            "eu-west-1"
        };
        assert_eq!(
            provider,
            format!("provider[\"registry.terraform.io/hashicorp/aws\"].by_region[{region:?}]"),
            "{addr}"
        );
    }
    no_changes();

    // 2. A third region.
    let run = apply(&[
        ("us-east-1", true),
        ("eu-west-1", true),
        ("ap-southeast-2", true),
    ]);
    assert_eq!(
        summary_line(&run),
        "Apply complete! Resources: 2 added, 0 changed, 0 destroyed.",
        "{}",
        run.output()
    );
    assert_eq!(moto_contents(&moto), expected(&REGIONS));
    assert_eq!(work.state_addresses(), expected_addresses(&REGIONS));

    // 3. The third disabled: its objects go, through its provider instance.
    let run = apply(&[
        ("us-east-1", true),
        ("eu-west-1", true),
        ("ap-southeast-2", false),
    ]);
    assert_eq!(
        summary_line(&run),
        "Apply complete! Resources: 0 added, 0 changed, 2 destroyed.",
        "{}",
        run.output()
    );
    assert_eq!(moto_contents(&moto), expected(&["us-east-1", "eu-west-1"]));
    assert_eq!(
        work.state_addresses(),
        expected_addresses(&["us-east-1", "eu-west-1"])
    );

    // 4. The third removed: nothing of it is left, so this works.
    let run = apply(&[("us-east-1", true), ("eu-west-1", true)]);
    assert_eq!(
        summary_line(&run),
        "Apply complete! Resources: 0 added, 0 changed, 0 destroyed.",
        "{}",
        run.output()
    );
    assert_eq!(moto_contents(&moto), expected(&["us-east-1", "eu-west-1"]));
    no_changes();

    // 5. An enabled region removed in one step: refused, nothing changed.
    let state_before = work.state_bytes();
    let backup_before = std::fs::read(work.path("terraform.tfstate.backup")).ok();
    work.write("terraform.tfvars", &regions_tfvars(&[("us-east-1", true)]));
    for args in [vec!["plan"], vec!["apply", "-auto-approve"]] {
        let run = work.terrace_ok(&args, 1);
        let text = run.all();
        assert!(
            text.contains("Error: Provider instance not present"),
            "{}",
            run.output()
        );
        assert!(
            text.contains(
                "provider[\"registry.terraform.io/hashicorp/aws\"].by_region[\"eu-west-1\"]"
            ),
            "the error names the missing instance:\n{}",
            run.output()
        );
        assert!(
            text.contains("aws_ssm_parameter.region[\"eu-west-1\"]")
                || text.contains("module.app[\"eu-west-1\"].aws_cloudwatch_log_group.app"),
            "the error names an object that needs it:\n{}",
            run.output()
        );
        assert!(
            !run.stdout.contains("Destroying...") && !run.stdout.contains("Apply complete!"),
            "{}",
            run.output()
        );
        assert!(
            work.state_bytes() == state_before,
            "terrace {} changed the state file",
            args[0]
        );
        assert_eq!(
            std::fs::read(work.path("terraform.tfstate.backup")).ok(),
            backup_before,
            "terrace {} rewrote the backup",
            args[0]
        );
        assert_eq!(moto_contents(&moto), expected(&["us-east-1", "eu-west-1"]));
    }

    // 6. Back to both regions, everything destroyed through both instances.
    work.write(
        "terraform.tfvars",
        &regions_tfvars(&[("us-east-1", true), ("eu-west-1", true)]),
    );
    let run = work.terrace_ok(&["destroy", "-auto-approve"], 0);
    assert_eq!(
        summary_line(&run),
        "Destroy complete! Resources: 4 destroyed.",
        "{}",
        run.output()
    );
    assert_eq!(moto_contents(&moto), expected(&[]));
    assert!(work.state_addresses().is_empty());
}
