//! How data sources take part in plans and applies: they are never
//! deleted (so they have no place among the deletes that a
//! `create_before_destroy` resource orders), and their reads wait for
//! apply when what they depend on has changes pending. Also how a
//! replacement is reported: as the create and the delete it is made of.

mod support;

use std::sync::Mutex;
use support::{actions, state_addrs, Harness};
use terrace_addrs::AbsResourceInstance;
use terrace_engine::{Hooks, PlanOptions};
use terrace_plans::model::Action;
use terrace_syntax::diagnostic::has_errors;

const REMOTE_STATE: &str = r#"{
  "version": 4,
  "terraform_version": "1.11.4",
  "serial": 1,
  "lineage": "00000000-0000-0000-0000-000000000001",
  "outputs": { "v": { "value": "hello", "type": "string" } },
  "resources": [],
  "check_results": null
}
"#;

const CBD_READING_DATA: &str = r#"
data "terraform_remote_state" "x" {
  backend = "local"
  config  = { path = "${path.module}/remote.tfstate" }
}

resource "terraform_data" "a" {
  input = data.terraform_remote_state.x.outputs.v
  lifecycle {
    create_before_destroy = true
  }
}
"#;

#[test]
fn create_before_destroy_resource_reading_a_data_source_applies_and_destroys() {
    let mut h = Harness::new(&[
        ("main.tf", CBD_READING_DATA),
        ("remote.tfstate", REMOTE_STATE),
    ]);
    // Destroying before anything exists must not find a cycle either.
    h.destroy(&[]);
    let plan = h.plan(&[]);
    assert_eq!(actions(&plan), ["terraform_data.a Create"]);
    h.apply(&[], &plan);
    assert_eq!(
        state_addrs(&h.state),
        ["data.terraform_remote_state.x", "terraform_data.a"]
    );
    let opts = PlanOptions {
        force_replace: vec![AbsResourceInstance::parse_str("terraform_data.a").expect("address")],
        ..PlanOptions::default()
    };
    let (plan, diags) = h.plan_with(&[], &opts);
    assert!(!has_errors(&diags), "{diags:#?}");
    assert_eq!(actions(&plan), ["terraform_data.a CreateThenDelete"]);
    h.apply(&[], &plan);
    h.destroy(&[]);
    assert!(
        state_addrs(&h.state).is_empty(),
        "{:?}",
        state_addrs(&h.state)
    );
}

/// The actions the apply hooks hear, in order.
#[derive(Default)]
struct Heard(Mutex<Vec<String>>);

impl Hooks for Heard {
    fn apply_started(
        &self,
        addr: &AbsResourceInstance,
        _: Option<&terrace_states::DeposedKey>,
        action: Action,
        _: Option<&str>,
    ) {
        if let Ok(mut h) = self.0.lock() {
            h.push(format!("{addr} {action:?} started"));
        }
    }
    fn apply_finished(
        &self,
        addr: &AbsResourceInstance,
        _: Option<&terrace_states::DeposedKey>,
        action: Action,
        _: Option<&str>,
        _: std::time::Duration,
        ok: bool,
    ) {
        if let Ok(mut h) = self.0.lock() {
            h.push(format!("{addr} {action:?} finished ok={ok}"));
        }
    }
}

#[test]
fn replacements_are_heard_as_a_create_and_a_delete() {
    let mut h = Harness::new(&[(
        "main.tf",
        "resource \"terraform_data\" \"a\" {\n  input = \"x\"\n}\n",
    )]);
    let plan = h.plan(&[]);
    h.apply(&[], &plan);
    let opts = PlanOptions {
        force_replace: vec![AbsResourceInstance::parse_str("terraform_data.a").expect("address")],
        ..PlanOptions::default()
    };
    let (plan, _) = h.plan_with(&[], &opts);
    let heard = Heard::default();
    let (_, diags) = terrace_engine::apply(&h.context(&[]), &plan, &heard);
    assert!(!has_errors(&diags), "{diags:#?}");
    let heard = heard.0.into_inner().unwrap_or_default();
    assert_eq!(
        heard,
        [
            "terraform_data.a Delete started",
            "terraform_data.a Delete finished ok=true",
            "terraform_data.a Create started",
            "terraform_data.a Create finished ok=true",
        ]
    );
}

/// The order objects leave the state in, as the journal hears it.
#[derive(Default)]
struct Gone(Mutex<Vec<String>>);

impl Hooks for Gone {
    fn object_changed(
        &self,
        addr: &AbsResourceInstance,
        deposed: Option<&terrace_states::model::DeposedKey>,
        _: &terrace_addrs::AbsProviderConfig,
        _: &terrace_addrs::InstanceKey,
        object: Option<&terrace_states::model::ObjectState>,
    ) {
        if object.is_none() && deposed.is_none() {
            if let Ok(mut g) = self.0.lock() {
                g.push(addr.to_string());
            }
        }
    }
}

#[test]
fn module_depending_on_a_resource_applies_replaces_and_destroys() {
    let mut h = Harness::new(&[
        (
            "main.tf",
            r#"
resource "terraform_data" "a" {
  input = "a"
}

module "dep" {
  source     = "./mod"
  depends_on = [terraform_data.a]
}
"#,
        ),
        (
            "mod/main.tf",
            "resource \"terraform_data\" \"inner\" {\n  input = \"x\"\n}\n",
        ),
    ]);
    let plan = h.plan(&[]);
    h.apply(&[], &plan);
    assert_eq!(
        state_addrs(&h.state),
        ["module.dep.terraform_data.inner", "terraform_data.a"]
    );
    let opts = PlanOptions {
        force_replace: vec![AbsResourceInstance::parse_str("terraform_data.a").expect("address")],
        ..PlanOptions::default()
    };
    let (plan, diags) = h.plan_with(&[], &opts);
    assert!(!has_errors(&diags), "{diags:#?}");
    h.apply(&[], &plan);
    let opts = PlanOptions {
        mode: terrace_plans::model::PlanMode::Destroy,
        ..PlanOptions::default()
    };
    let (plan, diags) = h.plan_with(&[], &opts);
    assert!(!has_errors(&diags), "{diags:#?}");
    let gone = Gone::default();
    let (state, diags) = terrace_engine::apply(&h.context(&[]), &plan, &gone);
    assert!(!has_errors(&diags), "{diags:#?}");
    assert!(state_addrs(&state).is_empty());
    // What depends on a resource goes first.
    assert_eq!(
        gone.0.into_inner().unwrap_or_default(),
        ["module.dep.terraform_data.inner", "terraform_data.a"]
    );
}

#[test]
fn destroying_what_a_data_source_counted_needs_no_count() {
    let remote = REMOTE_STATE.replace(
        r#""value": "hello", "type": "string""#,
        r#""value": 2, "type": "number""#,
    );
    let mut h = Harness::new(&[
        (
            "main.tf",
            r#"
data "terraform_remote_state" "x" {
  backend = "local"
  config  = { path = "${path.module}/remote.tfstate" }
}

resource "terraform_data" "n" {
  count = data.terraform_remote_state.x.outputs.v
  input = count.index
}
"#,
        ),
        ("remote.tfstate", &remote),
    ]);
    let plan = h.plan(&[]);
    assert_eq!(
        actions(&plan),
        ["terraform_data.n[0] Create", "terraform_data.n[1] Create"]
    );
    h.apply(&[], &plan);
    // The destroy plan drops the data source, so its count is unknown
    // while the objects it counted are deleted.
    h.destroy(&[]);
    assert!(state_addrs(&h.state).is_empty());
}
