//! A provider `for_each` over a root variable takes the value given on the
//! command line (`-var-file`, `-var`) or in `terraform.tfvars`, as every
//! other use of the variable does; the keys are known before planning, so
//! the provider instances follow the given map, not the default. Runs
//! offline with the bundled kv provider (one namespace per instance).

mod engine_support;

use engine_support::{Overrides, Work};

const MAIN_TF: &str = r#"
terraform {
  required_providers {
    kv = { source = "terrace/kv" }
  }
}

variable "regions" {
  type = map(string)
  default = {
    fallback = "fallback"
  }
}

provider "kv" {
  alias     = "by_region"
  for_each  = var.regions
  directory = "${path.root}/store"
  namespace = each.value
}

resource "kv_entry" "app" {
  for_each = var.regions
  provider = kv.by_region[each.key]

  key   = "app"
  value = each.key
}
"#;

fn entries(work: &Work) -> Vec<String> {
    let mut out = Vec::new();
    for namespace in std::fs::read_dir(work.path("store"))
        .into_iter()
        .flatten()
        .flatten()
    {
        for entry in std::fs::read_dir(namespace.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            out.push(format!(
                "{}/{}",
                namespace.file_name().to_string_lossy(),
                entry.file_name().to_string_lossy()
            ));
        }
    }
    out.sort();
    out
}

#[test]
fn provider_for_each_follows_var_file_var_and_tfvars() {
    let work = Work::new(
        "foreach-vars",
        Overrides {
            bundled: true,
            aws: false,
        },
    );
    work.write("main.tf", MAIN_TF);
    work.write(
        "two.tfvars",
        "regions = { east = \"ns-east\", west = \"ns-west\" }\n",
    );
    let run = work.terrace_ok(&["apply", "-auto-approve", "-var-file=two.tfvars"], 0);
    assert!(
        run.stdout
            .contains("Apply complete! Resources: 2 added, 0 changed, 0 destroyed."),
        "{}",
        run.output()
    );
    assert_eq!(entries(&work), ["ns-east/app", "ns-west/app"]);

    // A third region on the command line: one more instance and entry.
    let three = r#"regions={east="ns-east",west="ns-west",north="ns-north"}"#;
    let run = work.terrace_ok(&["plan", "-detailed-exitcode", "-var", three], 2);
    assert!(
        run.stdout
            .contains("Plan: 1 to add, 0 to change, 0 to destroy."),
        "{}",
        run.output()
    );

    // The same map from terraform.tfvars, read without any flag.
    work.write(
        "terraform.tfvars",
        "regions = { east = \"ns-east\", west = \"ns-west\", north = \"ns-north\" }\n",
    );
    let run = work.terrace_ok(&["apply", "-auto-approve"], 0);
    assert!(
        run.stdout
            .contains("Apply complete! Resources: 1 added, 0 changed, 0 destroyed."),
        "{}",
        run.output()
    );
    assert_eq!(
        entries(&work),
        ["ns-east/app", "ns-north/app", "ns-west/app"]
    );
}
