//! Modules with `count`/`for_each`, provider configurations with
//! `for_each` (one provider instance per key) reached directly and through `providers` maps,
//! data sources and `depends_on`.

mod support;

use support::{actions, state_addrs, state_attr, Harness};
use terrace_addrs::{AbsResourceInstance, InstanceKey};
use terrace_engine::PlanOptions;
use terrace_plans::model::{Action, ActionReason};

const CHILD: &str = r#"
variable "name" { type = string }
resource "fake_thing" "t" { input = var.name }
output "out" { value = fake_thing.t.output }
"#;

#[test]
fn module_instances_expand_and_shrink() {
    let root = |keys: &str| {
        format!(
            r#"
module "m" {{
  source   = "./mod"
  for_each = toset({keys})
  name     = "n-${{each.key}}"
}}
module "c" {{
  source = "./mod"
  count  = 2
  name   = "c${{count.index}}"
}}
output "outs" {{ value = {{ for k, m in module.m : k => m.out }} }}
output "first" {{ value = module.c[0].out }}
"#
        )
    };
    let two = root("[\"a\", \"b\"]");
    let mut h = Harness::new(&[("main.tf", &two), ("mod/main.tf", CHILD)]);
    let plan = h.plan(&[]);
    assert_eq!(
        actions(&plan),
        [
            "module.c[0].fake_thing.t Create",
            "module.c[1].fake_thing.t Create",
            "module.m[\"a\"].fake_thing.t Create",
            "module.m[\"b\"].fake_thing.t Create",
        ]
    );
    h.apply(&[], &plan);
    let outs = h.state.outputs.get("outs").map(|o| o.value.clone());
    let b = outs
        .as_ref()
        .and_then(|v| v.as_attributes())
        .and_then(|a| a.get("b"))
        .and_then(|v| v.as_str().map(str::to_string));
    assert_eq!(b.as_deref(), Some("n-b"));
    let first = h
        .state
        .outputs
        .get("first")
        .and_then(|o| o.value.as_str().map(str::to_string));
    assert_eq!(first.as_deref(), Some("c0"));
    assert!(actions(&h.plan(&[])).is_empty());

    let one = root("[\"a\"]");
    h.rewrite(&[("main.tf", &one), ("mod/main.tf", CHILD)]);
    let plan = h.plan(&[]);
    assert_eq!(actions(&plan), ["module.m[\"b\"].fake_thing.t Delete"]);
    let reason = plan
        .changes
        .iter()
        .find(|c| c.action == Action::Delete)
        .map(|c| c.action_reason);
    assert_eq!(reason, Some(ActionReason::DeleteBecauseNoModule));
    h.apply(&[], &plan);
    assert_eq!(
        state_addrs(&h.state),
        [
            "module.c[0].fake_thing.t",
            "module.c[1].fake_thing.t",
            "module.m[\"a\"].fake_thing.t"
        ]
    );
}

const REGIONS: &str = r#"
variable "regions" {
  type = map(object({ enabled = optional(bool, true) }))
}
locals {
  enabled = { for k, v in var.regions : k => v if v.enabled }
}
provider "fake" {
  alias    = "by_region"
  for_each = var.regions
  region   = each.key
}
resource "fake_thing" "r" {
  for_each = local.enabled
  provider = fake.by_region[each.key]
  input    = each.key
}
module "m" {
  source    = "./mod"
  for_each  = local.enabled
  providers = { fake = fake.by_region[each.key] }
  name      = "m-${each.key}"
}
"#;

fn region_of(h: &Harness, addr: &str) -> Option<String> {
    state_attr(&h.state, addr, "region")
}

#[test]
fn provider_instances_by_region_two_step_removal() {
    let mut h = Harness::new(&[("main.tf", REGIONS), ("mod/main.tf", CHILD)]);
    let v1 = [("regions", "{ us = {}, eu = {} }")];
    let plan = h.plan(&v1);
    assert_eq!(plan.changes.len(), 4);
    h.apply(&v1, &plan);
    assert_eq!(region_of(&h, "fake_thing.r[\"eu\"]").as_deref(), Some("eu"));
    assert_eq!(region_of(&h, "fake_thing.r[\"us\"]").as_deref(), Some("us"));
    assert_eq!(
        region_of(&h, "module.m[\"eu\"].fake_thing.t").as_deref(),
        Some("eu")
    );
    let key = h
        .state
        .instance(&AbsResourceInstance::parse_str("module.m[\"us\"].fake_thing.t").expect("addr"))
        .map(|i| i.provider_key.clone());
    assert_eq!(key, Some(InstanceKey::string("us")));
    assert!(actions(&h.plan(&v1)).is_empty());

    // Add a region.
    let v2 = [("regions", "{ us = {}, eu = {}, ap = {} }")];
    let plan = h.plan(&v2);
    assert_eq!(
        actions(&plan),
        [
            "fake_thing.r[\"ap\"] Create",
            "module.m[\"ap\"].fake_thing.t Create"
        ]
    );
    h.apply(&v2, &plan);
    assert_eq!(
        region_of(&h, "module.m[\"ap\"].fake_thing.t").as_deref(),
        Some("ap")
    );

    // Removing it in one step is refused and changes nothing.
    let gone = [("regions", "{ us = {}, eu = {} }")];
    let (plan, diags) = h.plan_with(&gone, &PlanOptions::default());
    assert!(plan.errored);
    let summaries: Vec<&str> = diags.iter().map(|d| d.summary.as_str()).collect();
    assert!(
        summaries.contains(&"Provider instance not present"),
        "{diags:#?}"
    );
    assert!(
        diags.iter().any(|d| d
            .detail
            .contains("provider[\"registry.terraform.io/hashicorp/fake\"].by_region[\"ap\"]")),
        "{diags:#?}"
    );

    // Disable it first, then remove it.
    let disabled = [("regions", "{ us = {}, eu = {}, ap = { enabled = false } }")];
    let plan = h.plan(&disabled);
    assert_eq!(
        actions(&plan),
        [
            "fake_thing.r[\"ap\"] Delete",
            "module.m[\"ap\"].fake_thing.t Delete"
        ]
    );
    h.apply(&disabled, &plan);
    let plan = h.plan(&gone);
    assert!(actions(&plan).is_empty());
    h.apply(&gone, &plan);
    h.destroy(&gone);
    assert!(h.state.resources.is_empty());
    assert!(h
        .cloud
        .objects
        .lock()
        .map(|o| o.is_empty())
        .unwrap_or(false));
}

#[test]
fn unknown_provider_key_is_refused() {
    let text = r#"
provider "fake" {
  alias    = "by_region"
  for_each = toset(["us"])
  region   = each.key
}
resource "fake_thing" "r" {
  provider = fake.by_region["eu"]
  input    = "x"
}
"#;
    let h = Harness::new(&[("main.tf", text)]);
    let (_, diags) = h.plan_with(&[], &PlanOptions::default());
    assert!(
        diags
            .iter()
            .any(|d| d.summary == "Provider instance not present"),
        "{diags:#?}"
    );
}

#[test]
fn removed_provider_configuration_is_reported() {
    let text = r#"
provider "fake" {
  alias  = "west"
  region = "west"
}
resource "fake_thing" "r" {
  provider = fake.west
  input    = "x"
}
"#;
    let mut h = Harness::new(&[("main.tf", text)]);
    let plan = h.plan(&[]);
    h.apply(&[], &plan);
    h.rewrite(&[("main.tf", "# nothing\n")]);
    let (_, diags) = h.plan_with(&[], &PlanOptions::default());
    assert!(
        diags
            .iter()
            .any(|d| d.summary == "Provider configuration not present"),
        "{diags:#?}"
    );
}

#[test]
fn data_sources_read_during_plan_or_apply() {
    let text = r#"
provider "fake" { region = "here" }
resource "fake_thing" "a" { input = "x" }
data "fake_data" "known" { input = "k" }
data "fake_data" "later" { input = fake_thing.a.id }
resource "fake_thing" "b" {
  input = "${data.fake_data.known.result}|${data.fake_data.later.result}"
}
"#;
    let mut h = Harness::new(&[("main.tf", text)]);
    let plan = h.plan(&[]);
    assert_eq!(
        actions(&plan),
        [
            "data.fake_data.later Read",
            "fake_thing.a Create",
            "fake_thing.b Create"
        ]
    );
    let known = plan
        .prior_state
        .object(&AbsResourceInstance::parse_str("data.fake_data.known").expect("addr"))
        .is_some();
    assert!(known, "the known data source was read during plan");
    h.apply(&[], &plan);
    let b = state_attr(&h.state, "fake_thing.b", "output").unwrap_or_default();
    assert!(b.starts_with("data:k@here|data:obj-"), "{b}");
    assert!(actions(&h.plan(&[])).is_empty());
}

#[test]
fn depends_on_orders_and_is_recorded() {
    let text = r#"
resource "fake_thing" "a" { input = "a" }
resource "fake_thing" "b" {
  input      = "b"
  depends_on = [fake_thing.a]
}
locals { via = fake_thing.b.output }
resource "fake_thing" "c" { input = local.via }
"#;
    let mut h = Harness::new(&[("main.tf", text)]);
    let plan = h.plan(&[]);
    h.apply(&[], &plan);
    let deps = |addr: &str| {
        h.state
            .object(&AbsResourceInstance::parse_str(addr).expect("addr"))
            .map(|o| {
                o.dependencies
                    .iter()
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default()
    };
    assert_eq!(deps("fake_thing.b"), ["fake_thing.a"]);
    assert_eq!(deps("fake_thing.c"), ["fake_thing.a", "fake_thing.b"]);
    // Destroy order: c, then b, then a (ids are assigned in creation order).
    let order_before: Vec<String> = ["a", "b", "c"]
        .iter()
        .filter_map(|n| state_attr(&h.state, &format!("fake_thing.{n}"), "id"))
        .collect();
    assert_eq!(order_before, ["obj-0", "obj-1", "obj-2"]);
    h.destroy(&[]);
    assert!(h.state.resources.is_empty());
}

#[test]
fn providers_are_closed_after_use() {
    let mut h = Harness::new(&[("main.tf", REGIONS), ("mod/main.tf", CHILD)]);
    let v = [("regions", "{ us = {}, eu = {} }")];
    let plan = h.plan(&v);
    h.apply(&v, &plan);
    let started = h.cloud.started.load(std::sync::atomic::Ordering::SeqCst);
    let closed = h.cloud.closed.load(std::sync::atomic::Ordering::SeqCst);
    assert_eq!(started, closed, "every started instance was closed");
    let configured = h
        .cloud
        .configured
        .lock()
        .map(|c| c.clone())
        .unwrap_or_default();
    assert!(configured.contains(&"us".to_string()) && configured.contains(&"eu".to_string()));
}

/// Renaming a provider configuration (alias `before` to `after`, the same
/// `for_each`) while its resource instances have nothing to change: the
/// state records the provider instance each object's configuration
/// resolves to now, so the old configuration can go.
#[test]
fn a_renamed_provider_configuration_is_recorded_for_unchanged_objects() {
    let config = |alias: &str| {
        format!(
            r#"
provider "fake" {{
  alias    = "{alias}"
  for_each = toset(["a", "b"])
  region   = each.key
}}
resource "fake_thing" "t" {{
  for_each = toset(["a", "b"])
  provider = fake.{alias}[each.key]
  input    = each.key
}}
"#
        )
    };
    let mut h = Harness::new(&[("main.tf", &config("before"))]);
    let plan = h.plan(&[]);
    h.apply(&[], &plan);
    h.rewrite(&[("main.tf", &config("after"))]);
    let plan = h.plan(&[]);
    assert!(actions(&plan).is_empty(), "{:?}", actions(&plan));
    h.apply(&[], &plan);
    for key in ["a", "b"] {
        let addr = AbsResourceInstance::parse_str(&format!("fake_thing.t[\"{key}\"]"))
            .unwrap_or_else(|_| panic!("address"));
        let provider = h.state.provider_instance(&addr).map(|p| p.to_string());
        assert_eq!(
            provider.as_deref(),
            Some(
                format!("provider[\"registry.terraform.io/hashicorp/fake\"].after[\"{key}\"]")
                    .as_str()
            ),
        );
    }
    // The next run needs only the new configuration.
    let plan = h.plan(&[]);
    assert!(actions(&plan).is_empty());
}

/// A provider instance key may not come from an ephemeral value (it is
/// recorded in the state).
#[test]
fn an_ephemeral_provider_instance_key_is_refused() {
    let h = Harness::new(&[(
        "main.tf",
        r#"
variable "region" {
  type      = string
  ephemeral = true
}
provider "fake" {
  alias    = "by_region"
  for_each = toset(["a"])
  region   = each.key
}
resource "fake_thing" "t" {
  provider = fake.by_region[var.region]
  input    = "x"
}
"#,
    )]);
    let (_, diags) = h.plan_with(&[("region", "a")], &PlanOptions::default());
    let found = diags.iter().any(|d| {
        d.summary == "Invalid provider instance key"
            && d.detail == "A provider instance key must not be derived from an ephemeral value."
    });
    assert!(found, "{diags:?}");
}
