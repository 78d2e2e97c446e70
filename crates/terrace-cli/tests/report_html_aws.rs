//! The HTML report of the regions example with the real AWS provider
//! against `moto_server`: one `aws` configuration with an instance per
//! region (`for_each`), an SSM parameter per region on
//! `aws.by_region[each.key]`, and a child module per region given that
//! instance. After a first apply in two regions, the next plan adds a
//! region, updates a log group's retention and replaces a tainted
//! parameter; its report groups every change under the provider instance
//! of its region, and matches `show -json`. The screenshot is kept as
//! `target/report-html/regions.png` (the README's picture comes from it).

mod engine_support;
mod report_support;

use engine_support::{aws_moto_endpoints_body, have_aws_and_moto, Moto, Overrides, Work};
use report_support::*;
use serde_json::Value as Json;
use terrace_testsupport::chromium;

fn main_tf(regions: &[&str], retention: u32) -> String {
    let mut entries = String::new();
    for region in regions {
        entries.push_str(&format!("    {region:?} = {{}}\n"));
    }
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

variable "regions" {{
  type = map(object({{}}))
  default = {{
{entries}  }}
}}

provider "aws" {{
  alias    = "by_region"
  for_each = var.regions
  region   = each.key
{body}}}

module "app" {{
  source   = "./app"
  for_each = var.regions
  providers = {{
    aws = aws.by_region[each.key]
  }}

  region    = each.key
  retention = {retention}
}}

resource "aws_ssm_parameter" "region" {{
  for_each = var.regions
  provider = aws.by_region[each.key]

  name  = "/terrace/regions/${{each.key}}"
  type  = "String"
  value = module.app[each.key].log_group
}}
"#,
        body = aws_moto_endpoints_body("var.endpoint", &["ssm", "cloudwatchlogs", "sts"])
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

variable "retention" {
  type = number
}

resource "aws_cloudwatch_log_group" "app" {
  name              = "terrace-app-${var.region}"
  retention_in_days = var.retention
}

output "log_group" {
  value = aws_cloudwatch_log_group.app.name
}
"#;

#[test]
fn report_of_the_regions_example_groups_changes_by_provider_instance() {
    if !have_aws_and_moto() || !chromium::require_chromium() {
        return;
    }
    let moto = Moto::start();
    let work = Work::new(
        "report-regions",
        Overrides {
            bundled: false,
            aws: true,
        },
    );
    let endpoint = format!("-var=endpoint={}", moto.endpoint);
    work.write("app/main.tf", APP_TF);
    work.write("main.tf", &main_tf(&["eu-west-1", "us-east-1"], 7));
    work.terrace_ok(&["apply", "-auto-approve", &endpoint], 0);

    work.write(
        "main.tf",
        &main_tf(&["eu-west-1", "us-east-1", "ap-southeast-2"], 14),
    );
    work.terrace_ok(&["taint", "aws_ssm_parameter.region[\"us-east-1\"]"], 0);
    work.terrace_ok(&["plan", &endpoint, "-out=p.tfplan"], 0);
    let show = work.terrace_ok(&["show", "-html", "p.tfplan"], 0);
    work.write("show.html", &show.stdout);
    let json: Json =
        serde_json::from_str(&work.terrace_ok(&["show", "-json", "p.tfplan"], 0).stdout)
            .expect("show -json");

    let html = std::fs::read_to_string(work.path("show.html")).expect("the report");
    assert_eq!(loading_references(&html), Vec::<String>::new());

    let run =
        chromium::dump_dom(&work.path("show.html"), &work.dir).unwrap_or_else(|e| panic!("{e}"));
    assert!(run.dom.contains("data-ready=\"1\""));
    assert_eq!(page_requests(&run.net_log), Vec::<String>::new());
    let artifacts = artifacts_dir();
    let _ = std::fs::copy(work.path("show.html"), artifacts.join("regions.html"));
    chromium::screenshot(
        &work.path("show.html"),
        &artifacts.join("regions.png"),
        1200,
        1500,
        &work.dir,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    // The README's picture: the tainted parameter's change opened.
    let tainted_id = run
        .dom
        .split("<details class=\"change a-replace\" id=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_default()
        .to_string();
    chromium::screenshot_at(
        &work.path("show.html"),
        &tainted_id,
        &artifacts.join("regions-opened.png"),
        1200,
        1250,
        &work.dir,
    )
    .unwrap_or_else(|e| panic!("{e}"));

    let dom = run.dom;
    assert_eq!(shown_counts(&dom), json_counts(&json));
    let counts = shown_counts(&dom);
    assert_eq!(
        (counts["add"], counts["change"], counts["replace"]),
        (2, 2, 1),
        "{counts:?}"
    );
    assert_changes_match_json(&dom, &json);
    // Every change sits under the provider instance of its region.
    let changes = shown_changes(&dom);
    assert_eq!(changes.len(), 5);
    for change in &changes {
        let region = ["eu-west-1", "us-east-1", "ap-southeast-2"]
            .into_iter()
            .find(|r| change.address.contains(&format!("[\"{r}\"]")))
            .unwrap_or_else(|| panic!("no region in {}", change.address));
        assert_eq!(
            change.group,
            format!("aws.by_region[\"{region}\"]"),
            "{}",
            change.address
        );
    }
    let tainted = changes
        .iter()
        .find(|c| c.address == "aws_ssm_parameter.region[\"us-east-1\"]")
        .expect("the tainted parameter");
    assert!(tainted.summary.contains("tainted"), "{}", tainted.summary);
    let updated = changes
        .iter()
        .find(|c| c.address == "module.app[\"eu-west-1\"].aws_cloudwatch_log_group.app")
        .expect("the updated log group");
    assert!(
        updated.diff.contains("~ retention_in_days = 7 -> 14"),
        "{}",
        updated.diff
    );
}
