//! A collection of provider instances passed to a module (a terrace
//! extension; the rules are in docs/CONFORMANCE.md): the root configures
//! one kv instance per region, a module declares the collection in
//! `configuration_collections` and creates an entry in each region through
//! `kv.by_region[each.key]`, and hands one instance of it to a nested
//! module per region. Regions are added and removed, each object lands in
//! its own region's store, and the wrong ways of passing a collection are
//! refused without touching the state.

mod engine_support;

use engine_support::{Overrides, Work};

const ROOT_TF: &str = r#"
terraform {
  required_providers {
    kv = { source = "terrace/kv" }
  }
}

variable "provider_regions" {
  type = set(string)
}

variable "deployed_regions" {
  type = set(string)
}

provider "kv" {
  alias     = "by_region"
  for_each  = var.provider_regions
  directory = "${path.root}/stores/${each.key}"
}

module "regional" {
  source  = "./regional"
  regions = var.deployed_regions
  providers = {
    kv.by_region = kv.by_region
  }
}

output "entries" {
  value = module.regional.entries
}
"#;

const REGIONAL_TF: &str = r#"
terraform {
  required_providers {
    kv = {
      source                    = "terrace/kv"
      configuration_collections = [kv.by_region]
    }
  }
}

variable "regions" {
  type = set(string)
}

resource "kv_entry" "app" {
  for_each = var.regions
  provider = kv.by_region[each.key]
  key      = "app"
  value    = "app in ${each.key}"
}

module "marker" {
  source   = "./marker"
  for_each = var.regions
  region   = each.key
  providers = {
    kv = kv.by_region[each.key]
  }
}

output "entries" {
  value = { for region, entry in kv_entry.app : region => entry.value }
}
"#;

const MARKER_TF: &str = r#"
terraform {
  required_providers {
    kv = { source = "terrace/kv" }
  }
}

variable "region" {
  type = string
}

resource "kv_entry" "marker" {
  key   = "marker"
  value = "marker of ${var.region}"
}
"#;

fn work() -> Work {
    let w = Work::new(
        "provider-collections",
        Overrides {
            bundled: true,
            aws: false,
        },
    );
    w.write("main.tf", ROOT_TF);
    w.write("regional/main.tf", REGIONAL_TF);
    w.write("regional/marker/main.tf", MARKER_TF);
    w
}

fn set(regions: &[&str]) -> String {
    let quoted: Vec<String> = regions.iter().map(|r| format!("{r:?}")).collect();
    format!("[{}]", quoted.join(", "))
}

fn vars(providers: &[&str], deployed: &[&str]) -> String {
    format!(
        "provider_regions = {}\ndeployed_regions = {}\n",
        set(providers),
        set(deployed)
    )
}

fn stored(w: &Work, region: &str, key: &str) -> Option<String> {
    std::fs::read_to_string(w.path(&format!("stores/{region}/default/{key}"))).ok()
}

/// Each object in the state with the provider instance it is bound to.
fn bindings(w: &Work) -> Vec<(String, String)> {
    let state = w.state();
    let mut out = Vec::new();
    for r in state["resources"].as_array().into_iter().flatten() {
        for i in r["instances"].as_array().into_iter().flatten() {
            let key = match &i["index_key"] {
                serde_json::Value::String(k) => format!("[{k:?}]"),
                _ => String::new(),
            };
            out.push((
                format!(
                    "{}.{}.{}{key}",
                    r["module"].as_str().unwrap_or_default(),
                    r["type"].as_str().unwrap_or_default(),
                    r["name"].as_str().unwrap_or_default()
                ),
                i["provider"]
                    .as_str()
                    .or(r["provider"].as_str())
                    .unwrap_or_default()
                    .to_string(),
            ));
        }
    }
    out.sort();
    out
}

#[test]
fn a_module_uses_every_instance_of_a_collection_passed_to_it() {
    let w = work();
    w.write(
        "terraform.tfvars",
        &vars(&["north", "south"], &["north", "south"]),
    );
    w.terrace_ok(&["validate"], 0);
    let run = w.terrace_ok(&["apply", "-auto-approve"], 0);
    assert!(
        run.stdout
            .contains("Apply complete! Resources: 4 added, 0 changed, 0 destroyed."),
        "{}",
        run.output()
    );
    for region in ["north", "south"] {
        assert_eq!(
            stored(&w, region, "app").as_deref(),
            Some(format!("app in {region}").as_str())
        );
        assert_eq!(
            stored(&w, region, "marker").as_deref(),
            Some(format!("marker of {region}").as_str())
        );
    }
    let kv = "provider[\"registry.terraform.io/terrace/kv\"].by_region";
    assert_eq!(
        bindings(&w),
        vec![
            (
                "module.regional.kv_entry.app[\"north\"]".to_string(),
                format!("{kv}[\"north\"]")
            ),
            (
                "module.regional.kv_entry.app[\"south\"]".to_string(),
                format!("{kv}[\"south\"]")
            ),
            (
                "module.regional.module.marker[\"north\"].kv_entry.marker".to_string(),
                format!("{kv}[\"north\"]")
            ),
            (
                "module.regional.module.marker[\"south\"].kv_entry.marker".to_string(),
                format!("{kv}[\"south\"]")
            ),
        ]
    );
    let plan = w.terrace_ok(&["plan", "-detailed-exitcode"], 0);
    assert!(plan.stdout.contains("No changes."), "{}", plan.output());

    // A third region: its provider instance and objects come together.
    w.write(
        "terraform.tfvars",
        &vars(&["north", "south", "east"], &["north", "south", "east"]),
    );
    let run = w.terrace_ok(&["apply", "-auto-approve"], 0);
    assert!(
        run.stdout
            .contains("Apply complete! Resources: 2 added, 0 changed, 0 destroyed."),
        "{}",
        run.output()
    );
    assert_eq!(stored(&w, "east", "app").as_deref(), Some("app in east"));

    // No longer deployed there: destroyed through its still-present
    // provider instance.
    w.write(
        "terraform.tfvars",
        &vars(&["north", "south", "east"], &["north", "south"]),
    );
    let run = w.terrace_ok(&["apply", "-auto-approve"], 0);
    assert!(
        run.stdout
            .contains("Apply complete! Resources: 0 added, 0 changed, 2 destroyed."),
        "{}",
        run.output()
    );
    assert_eq!(stored(&w, "east", "app"), None);
    assert_eq!(stored(&w, "east", "marker"), None);
    assert_eq!(stored(&w, "north", "app").as_deref(), Some("app in north"));
}

#[test]
fn a_collection_passed_the_wrong_way_is_refused_and_changes_nothing() {
    let w = work();
    w.write("terraform.tfvars", &vars(&["north"], &["north"]));
    w.terrace_ok(&["apply", "-auto-approve"], 0);
    let before = w.state_bytes();

    let cases: [(&str, &str, &str); 3] = [
        (
            "main.tf",
            &ROOT_TF.replace(
                "kv.by_region = kv.by_region\n",
                "kv.by_region = kv.by_region[\"north\"]\n",
            ),
            "Pass the whole configuration, kv.by_region, without an instance key.",
        ),
        (
            "main.tf",
            &format!(
                "{}\nprovider \"kv\" {{\n  alias     = \"single\"\n  directory = \"${{path.root}}/stores/single\"\n}}\n",
                ROOT_TF.replace("kv.by_region = kv.by_region\n", "kv.by_region = kv.single\n")
            ),
            "but kv.single is a single provider configuration.",
        ),
        (
            "regional/main.tf",
            &REGIONAL_TF.replace(
                "provider = kv.by_region[each.key]",
                "provider = kv.by_region",
            ),
            "A reference to a provider configuration which uses for_each requires an instance key.",
        ),
    ];
    for (file, text, expected) in cases {
        let w = work();
        std::fs::write(w.path("terraform.tfstate"), &before).unwrap_or_else(|e| panic!("{e}"));
        w.write("terraform.tfvars", &vars(&["north"], &["north"]));
        w.write(file, text);
        for args in [
            &["validate"][..],
            &["plan"][..],
            &["apply", "-auto-approve"][..],
        ] {
            let run = w.terrace_ok(args, 1);
            assert!(
                run.stderr.contains("Invalid module provider configuration")
                    || run
                        .stderr
                        .contains("Invalid resource provider configuration"),
                "{}",
                run.output()
            );
            // Diagnostics are wrapped for the terminal.
            let unwrapped = run.all().split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(unwrapped.contains(expected), "{}", run.output());
        }
        assert_eq!(w.state_bytes(), before);
    }
}
