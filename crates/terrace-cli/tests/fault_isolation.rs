//! One instance of an iterated provider configuration that cannot be
//! configured (a region that is down, a credential that expired) takes
//! only its own resources out of the plan and the apply: the other
//! instances' resources are planned and applied, the run ends with exit
//! status 1 naming the instance left out, and the next run, once it can
//! be configured, converges. Shown with the kv provider, whose
//! configuration fails when its store directory cannot be created.

mod engine_support;

use engine_support::{Overrides, Work};

const CONFIG: &str = r#"
terraform {
  required_providers {
    kv = {
      source = "terrace/kv"
    }
  }
}

variable "regions" {
  type = map(string)
  default = {
    north = "n"
    south = "s"
    down  = "d"
  }
}

variable "suffix" {
  default = "1"
}

provider "kv" {
  alias    = "by_region"
  for_each = var.regions
  directory = "${path.root}/stores/${each.key}"
}

resource "kv_entry" "e" {
  for_each = var.regions
  provider = kv.by_region[each.key]
  key      = "k"
  value    = "${each.value}-${var.suffix}"
}

resource "terraform_data" "unrelated" {
  input = var.suffix
}

output "values" {
  value = { for k, e in kv_entry.e : k => e.value }
}
"#;

fn stored(w: &Work, region: &str) -> Option<String> {
    std::fs::read_to_string(w.path(&format!("stores/{region}/default/k"))).ok()
}

#[test]
fn an_unconfigurable_provider_instance_takes_out_only_its_own_resources() {
    let w = Work::new(
        "fault-isolation",
        Overrides {
            bundled: true,
            aws: false,
        },
    );
    w.write("main.tf", CONFIG);
    // A file where the "down" region's store directory would go: its
    // provider instance cannot be configured.
    w.write("stores/down", "not a directory");

    let plan = w.terrace_ok(&["plan"], 1);
    let all = plan.all();
    assert!(all.contains("Cannot create the store"), "{}", plan.output());
    assert!(
        all.contains("Provider instance unavailable"),
        "{}",
        plan.output()
    );
    assert!(
        all.contains("kv_entry.e[\"down\"] was not planned"),
        "{}",
        plan.output()
    );
    assert!(
        plan.stdout
            .contains("kv_entry.e[\"north\"] will be created"),
        "{}",
        plan.output()
    );
    assert!(
        plan.stdout.contains("Not planned: the resources of 1 provider instance that could not be configured: provider[\"registry.terraform.io/terrace/kv\"].by_region[\"down\"]."),
        "{}",
        plan.output()
    );

    let apply = w.terrace_ok(&["apply", "-auto-approve"], 1);
    assert!(
        apply
            .stdout
            .contains("Apply complete! Resources: 3 added, 0 changed, 0 destroyed."),
        "{}",
        apply.output()
    );
    assert!(apply.stdout.contains("Not applied:"), "{}", apply.output());
    assert_eq!(stored(&w, "north").as_deref(), Some("n-1"));
    assert_eq!(stored(&w, "south").as_deref(), Some("s-1"));
    assert_eq!(stored(&w, "down"), None);
    let addresses = w.state_addresses();
    assert!(addresses.contains(&"kv_entry.e[\"north\"]".to_string()));
    assert!(!addresses.contains(&"kv_entry.e[\"down\"]".to_string()));

    // Back up: the next run creates what was left out, nothing else.
    std::fs::remove_file(w.path("stores/down")).unwrap_or_else(|e| panic!("{e}"));
    let apply = w.terrace_ok(&["apply", "-auto-approve"], 0);
    assert!(
        apply
            .stdout
            .contains("Apply complete! Resources: 1 added, 0 changed, 0 destroyed."),
        "{}",
        apply.output()
    );
    assert_eq!(stored(&w, "down").as_deref(), Some("d-1"));

    // Down again while everything changes: the others are updated, the
    // object of the region that is down stays as it was, in the state
    // and in what refers to it.
    std::fs::remove_dir_all(w.path("stores/down")).unwrap_or_else(|e| panic!("{e}"));
    w.write("stores/down", "not a directory");
    let apply = w.terrace_ok(&["apply", "-auto-approve", "-var", "suffix=2"], 1);
    assert!(
        apply
            .stdout
            .contains("Apply complete! Resources: 0 added, 3 changed, 0 destroyed."),
        "{}",
        apply.output()
    );
    assert_eq!(stored(&w, "north").as_deref(), Some("n-2"));
    let state = w.state();
    let text = state.to_string();
    assert!(
        text.contains("d-1"),
        "the unavailable region's object is kept\n{text}"
    );
    assert!(w
        .state_addresses()
        .contains(&"kv_entry.e[\"down\"]".to_string()));
    let outputs = w.terrace_ok(&["output", "-json", "values"], 0);
    assert!(
        outputs.stdout.contains("\"down\": \"d-1\"") || outputs.stdout.contains("\"down\":\"d-1\""),
        "{}",
        outputs.output()
    );
}

/// A provider configuration without `for_each` that cannot be configured
/// stops its resources as terraform does: one error, nothing of it
/// planned, no extra diagnostics.
#[test]
fn a_single_provider_configuration_fails_as_in_terraform() {
    let w = Work::new(
        "fault-single",
        Overrides {
            bundled: true,
            aws: false,
        },
    );
    w.write(
        "main.tf",
        r#"
terraform {
  required_providers {
    kv = {
      source = "terrace/kv"
    }
  }
}

provider "kv" {
  directory = "${path.root}/blocked"
}

resource "kv_entry" "e" {
  key   = "k"
  value = "v"
}
"#,
    );
    w.write("blocked", "not a directory");
    let plan = w.terrace_ok(&["plan"], 1);
    assert!(
        plan.all().contains("Cannot create the store"),
        "{}",
        plan.output()
    );
    assert!(
        !plan.all().contains("Provider instance unavailable"),
        "{}",
        plan.output()
    );
    assert!(!plan.stdout.contains("Not planned"), "{}", plan.output());
}
