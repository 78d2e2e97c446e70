//! Deferred provider expansion (a terrace extension; the rules are in
//! docs/CONFORMANCE.md): a provider `for_each` built from a resource's
//! result is expanded during the walk. While that result is not known,
//! the configuration is deferred: everything else is planned and applied,
//! the resources bound to it wait (named in a closing note), and the next
//! run plans them. No `-target` is needed. Shown with the kv provider, a
//! region list produced by `terraform_data`.

mod engine_support;

use engine_support::{Overrides, Run, Work};

fn config(regions: &[&str]) -> String {
    let quoted: Vec<String> = regions.iter().map(|r| format!("{r:?}")).collect();
    format!(
        r#"
terraform {{
  required_providers {{
    kv = {{ source = "terrace/kv" }}
  }}
}}

resource "terraform_data" "regions" {{
  input = [{list}]
}}

provider "kv" {{
  alias     = "by_region"
  for_each  = toset(terraform_data.regions.output)
  directory = "${{path.root}}/stores/${{each.key}}"
}}

resource "kv_entry" "e" {{
  for_each = {{ for region in terraform_data.regions.output : region => "in ${{region}}" }}
  provider = kv.by_region[each.key]
  key      = "k"
  value    = each.value
}}

resource "terraform_data" "unrelated" {{
  input = "always planned"
}}
"#,
        list = quoted.join(", ")
    )
}

fn stored(w: &Work, region: &str) -> Option<String> {
    std::fs::read_to_string(w.path(&format!("stores/{region}/default/k"))).ok()
}

fn deferred_note(run: &Run) -> Option<String> {
    run.stdout
        .lines()
        .find(|l| l.starts_with("Deferred: "))
        .map(str::to_string)
}

const KV_BY_REGION: &str = "provider[\"registry.terraform.io/terrace/kv\"].by_region";

#[test]
fn a_provider_for_each_known_only_after_apply_defers_its_resources_until_the_next_run() {
    let w = Work::new(
        "deferred-expansion",
        Overrides {
            bundled: true,
            aws: false,
        },
    );
    w.write("main.tf", &config(&["north", "south"]));
    w.terrace_ok(&["validate"], 0);

    // The region list does not exist yet: the kv entries wait.
    let plan = w.terrace_ok(&["plan", "-detailed-exitcode"], 2);
    assert!(
        plan.stdout
            .contains("Plan: 2 to add, 0 to change, 0 to destroy."),
        "{}",
        plan.output()
    );
    assert!(!plan.stdout.contains("# kv_entry"), "{}", plan.output());
    assert_eq!(
        deferred_note(&plan),
        Some(format!(
            "Deferred: the for_each of provider configuration {KV_BY_REGION} is not known until apply. What is bound to it was not planned: kv_entry.e. Run terrace apply again once what the for_each refers to exists, to plan it."
        ))
    );

    // Applied from a saved plan, which remembers what it deferred.
    w.terrace_ok(&["plan", "-out=tfplan"], 0);
    let apply = w.terrace_ok(&["apply", "tfplan"], 0);
    assert!(
        apply
            .stdout
            .contains("Apply complete! Resources: 2 added, 0 changed, 0 destroyed."),
        "{}",
        apply.output()
    );
    assert!(deferred_note(&apply).is_some(), "{}", apply.output());
    assert_eq!(stored(&w, "north"), None);

    // Now the list is known: the entries are planned and made, each
    // through its own region's instance.
    let apply = w.terrace_ok(&["apply", "-auto-approve"], 0);
    assert!(
        apply
            .stdout
            .contains("Apply complete! Resources: 2 added, 0 changed, 0 destroyed."),
        "{}",
        apply.output()
    );
    assert_eq!(deferred_note(&apply), None, "{}", apply.output());
    assert_eq!(stored(&w, "north").as_deref(), Some("in north"));
    assert_eq!(stored(&w, "south").as_deref(), Some("in south"));
    let plan = w.terrace_ok(&["plan", "-detailed-exitcode"], 0);
    assert!(plan.stdout.contains("No changes."), "{}", plan.output());

    // A region added: the list changes during the next apply, so the
    // entries wait one run again, the existing ones untouched meanwhile.
    w.write("main.tf", &config(&["north", "south", "east"]));
    let first = w.terrace_ok(&["apply", "-auto-approve"], 0);
    assert!(
        first
            .stdout
            .contains("Apply complete! Resources: 0 added, 1 changed, 0 destroyed."),
        "{}",
        first.output()
    );
    assert!(deferred_note(&first).is_some(), "{}", first.output());
    assert_eq!(stored(&w, "east"), None);
    let second = w.terrace_ok(&["apply", "-auto-approve"], 0);
    assert!(
        second
            .stdout
            .contains("Apply complete! Resources: 1 added, 0 changed, 0 destroyed."),
        "{}",
        second.output()
    );
    assert_eq!(stored(&w, "east").as_deref(), Some("in east"));
    assert_eq!(stored(&w, "north").as_deref(), Some("in north"));
    let plan = w.terrace_ok(&["plan", "-detailed-exitcode"], 0);
    assert!(plan.stdout.contains("No changes."), "{}", plan.output());
}
