//! Lifecycle and state-moving features against `terraform_data` and the
//! fake provider: `replace_triggered_by`, `moved`, `removed`, `import`.

mod support;

use support::{actions, state_addrs, state_attr, Harness};
use terrace_plans::model::{Action, ActionReason};
use terrace_syntax::diagnostic::has_errors;

fn reason(plan: &terrace_plans::model::Plan, addr: &str) -> Option<ActionReason> {
    plan.changes
        .iter()
        .find(|c| c.addr.to_string() == addr && c.deposed.is_none())
        .map(|c| c.action_reason)
}

#[test]
fn replace_triggered_by_resources_instances_and_attributes() {
    let v1 = r#"
resource "terraform_data" "a" {
  count = 2
  input = "a${count.index}"
}
resource "terraform_data" "whole" {
  input = "w"
  lifecycle { replace_triggered_by = [terraform_data.a] }
}
resource "terraform_data" "each" {
  count = 2
  input = "e"
  lifecycle { replace_triggered_by = [terraform_data.a[count.index].output] }
}
resource "terraform_data" "other" {
  input = "o"
  lifecycle { replace_triggered_by = [terraform_data.a[0]] }
}
"#;
    let mut h = Harness::new(&[("main.tf", v1)]);
    let plan = h.plan(&[]);
    // Creating the referenced objects triggers nothing.
    assert!(actions(&plan).iter().all(|a| a.ends_with("Create")));
    h.apply(&[], &plan);
    assert!(actions(&h.plan(&[])).is_empty());

    h.rewrite(&[(
        "main.tf",
        &v1.replace(
            "\"a${count.index}\"",
            "count.index == 1 ? \"changed\" : \"a0\"",
        ),
    )]);
    let plan = h.plan(&[]);
    assert_eq!(
        actions(&plan),
        [
            "terraform_data.a[1] Update",
            "terraform_data.each[1] DeleteThenCreate",
            "terraform_data.whole DeleteThenCreate",
        ]
    );
    assert_eq!(
        reason(&plan, "terraform_data.whole"),
        Some(ActionReason::ReplaceByTriggers)
    );
    let old = state_attr(&h.state, "terraform_data.whole", "id");
    h.apply(&[], &plan);
    assert_ne!(state_attr(&h.state, "terraform_data.whole", "id"), old);
    assert!(actions(&h.plan(&[])).is_empty());
}

#[test]
fn replace_triggered_by_undeclared_resource_is_an_error() {
    let h = Harness::new(&[(
        "main.tf",
        r#"
resource "terraform_data" "b" {
  input = "b"
  lifecycle { replace_triggered_by = [terraform_data.zz] }
}
"#,
    )]);
    let (_, diags) = h.plan_with(&[], &Default::default());
    assert!(has_errors(&diags));
    let d = diags
        .iter()
        .find(|d| d.summary == "Reference to undeclared resource");
    assert_eq!(
        d.map(|d| d.detail.as_str()),
        Some("A resource terraform_data.zz has not been declared in the root module")
    );
    let _ = (Action::NoOp, state_addrs(&h.state));
}

fn prev_of(plan: &terrace_plans::model::Plan, addr: &str) -> Option<String> {
    plan.changes
        .iter()
        .find(|c| c.addr.to_string() == addr && c.deposed.is_none())
        .map(|c| c.prev_run_addr.to_string())
}

#[test]
fn moved_blocks_rename_resources_instances_and_modules() {
    let v1 = r#"
resource "terraform_data" "a" { input = "a" }
resource "terraform_data" "c" {
  count = 2
  input = "c${count.index}"
}
module "m" {
  source = "./mod"
}
"#;
    let child = r#"resource "terraform_data" "x" { input = "x" }"#;
    let mut h = Harness::new(&[("main.tf", v1), ("mod/main.tf", child)]);
    let plan = h.plan(&[]);
    h.apply(&[], &plan);
    let id_a = state_attr(&h.state, "terraform_data.a", "id");
    let id_c1 = state_attr(&h.state, "terraform_data.c[1]", "id");

    // A chain (a → b → final), an instance move, a module rename and a
    // resource moved out of a module.
    let v2 = r#"
resource "terraform_data" "final" { input = "a" }
resource "terraform_data" "c" {
  count = 1
  input = "c${count.index}"
}
resource "terraform_data" "d" { input = "c1" }
resource "terraform_data" "y" { input = "x" }
module "n" {
  source = "./mod"
}
moved {
  from = terraform_data.b
  to   = terraform_data.final
}
moved {
  from = terraform_data.a
  to   = terraform_data.b
}
moved {
  from = terraform_data.c[1]
  to   = terraform_data.d
}
moved {
  from = module.m
  to   = module.n
}
"#;
    h.rewrite(&[("main.tf", v2), ("mod/main.tf", child)]);
    let plan = h.plan(&[]);
    assert_eq!(actions(&plan), ["terraform_data.y Create"]);
    assert_eq!(
        prev_of(&plan, "terraform_data.final").as_deref(),
        Some("terraform_data.a")
    );
    assert_eq!(
        prev_of(&plan, "terraform_data.d").as_deref(),
        Some("terraform_data.c[1]")
    );
    assert_eq!(
        prev_of(&plan, "module.n.terraform_data.x").as_deref(),
        Some("module.m.terraform_data.x")
    );
    assert!(plan
        .prev_run_state
        .object(&addr("terraform_data.final"))
        .is_some());
    h.apply(&[], &plan);
    assert_eq!(state_attr(&h.state, "terraform_data.final", "id"), id_a);
    assert_eq!(state_attr(&h.state, "terraform_data.d", "id"), id_c1);
    assert!(actions(&h.plan(&[])).is_empty());
}

fn addr(s: &str) -> terrace_addrs::AbsResourceInstance {
    terrace_addrs::AbsResourceInstance::parse_str(s).expect("address")
}

#[test]
fn moved_module_and_implied_count_moves() {
    let child = r#"resource "terraform_data" "x" { input = "x" }"#;
    let mut h = Harness::new(&[
        ("main.tf", "module \"m\" { source = \"./mod\" }\nresource \"terraform_data\" \"a\" { input = \"a\" }\n"),
        ("mod/main.tf", child),
    ]);
    let plan = h.plan(&[]);
    h.apply(&[], &plan);
    let id = state_attr(&h.state, "module.m.terraform_data.x", "id");
    h.rewrite(&[
        (
            "main.tf",
            r#"
module "n" { source = "./mod" }
moved {
  from = module.m
  to   = module.n
}
resource "terraform_data" "a" {
  count = 1
  input = "a"
}
"#,
        ),
        ("mod/main.tf", child),
    ]);
    let plan = h.plan(&[]);
    assert!(actions(&plan).is_empty(), "{:?}", actions(&plan));
    assert_eq!(
        prev_of(&plan, "module.n.terraform_data.x").as_deref(),
        Some("module.m.terraform_data.x")
    );
    assert_eq!(
        prev_of(&plan, "terraform_data.a[0]").as_deref(),
        Some("terraform_data.a")
    );
    h.apply(&[], &plan);
    assert_eq!(state_attr(&h.state, "module.n.terraform_data.x", "id"), id);
    assert_eq!(
        state_addrs(&h.state),
        ["module.n.terraform_data.x", "terraform_data.a[0]"]
    );
}

#[test]
fn moved_block_errors() {
    let cases: &[(&str, &str)] = &[
        (
            r#"
resource "terraform_data" "a" { input = "a" }
resource "terraform_data" "b" { input = "b" }
moved {
  from = terraform_data.a
  to   = terraform_data.b
}
"#,
            "Moved object still exists",
        ),
        (
            r#"
resource "terraform_data" "c" { input = "c" }
moved {
  from = terraform_data.a
  to   = terraform_data.c
}
moved {
  from = terraform_data.b
  to   = terraform_data.c
}
"#,
            "Ambiguous move statements",
        ),
        (
            r#"
moved {
  from = terraform_data.a
  to   = terraform_data.b
}
moved {
  from = terraform_data.b
  to   = terraform_data.a
}
"#,
            "Cyclic dependency in move statements",
        ),
    ];
    for (text, want) in cases {
        let h = Harness::new(&[("main.tf", text)]);
        let (_, diags) = h.plan_with(&[], &Default::default());
        let got: Vec<&str> = diags.iter().map(|d| d.summary.as_str()).collect();
        assert!(got.contains(want), "{want}: {got:?}");
    }
}

#[test]
fn removed_blocks_forget_or_destroy() {
    let mut h = Harness::new(&[(
        "main.tf",
        "resource \"terraform_data\" \"a\" { input = \"a\" }\nresource \"terraform_data\" \"b\" { input = \"b\" }\n",
    )]);
    let plan = h.plan(&[]);
    h.apply(&[], &plan);
    h.rewrite(&[(
        "main.tf",
        r#"
removed {
  from = terraform_data.a
  lifecycle { destroy = false }
}
removed {
  from = terraform_data.b
  lifecycle { destroy = true }
}
"#,
    )]);
    let (plan, diags) = h.plan_with(&[], &Default::default());
    assert!(!has_errors(&diags), "{diags:#?}");
    assert_eq!(
        actions(&plan),
        ["terraform_data.a Forget", "terraform_data.b Delete"]
    );
    assert!(diags.iter().any(
        |d| d.summary == "Some objects will no longer be managed by terrace"
            && d.detail.contains("\n - terraform_data.a\n")
    ));
    h.apply(&[], &plan);
    assert!(h.state.resources.is_empty());

    h.rewrite(&[(
        "main.tf",
        r#"
resource "terraform_data" "b" { input = "b" }
removed {
  from = terraform_data.b
  lifecycle { destroy = false }
}
"#,
    )]);
    let (_, diags) = h.plan_with(&[], &Default::default());
    let d = diags
        .iter()
        .find(|d| d.summary == "Removed resource still exists");
    assert_eq!(
        d.map(|d| d.detail.as_str()),
        Some("This statement declares that terraform_data.b was removed, but it is still declared in configuration.")
    );
}

#[test]
fn import_blocks_import_during_plan_and_record_in_apply() {
    let cfg = r#"
import {
  to = terraform_data.a
  id = "abc"
}
resource "terraform_data" "a" {}
locals {
  ids = { x = "1" }
}
import {
  for_each = local.ids
  to       = terraform_data.b[each.key]
  id       = each.value
}
resource "terraform_data" "b" {
  for_each = toset(["x"])
}
"#;
    let mut h = Harness::new(&[("main.tf", cfg)]);
    let plan = h.plan(&[]);
    let imported: Vec<(String, Option<String>, Action)> = plan
        .changes
        .iter()
        .map(|c| (c.addr.to_string(), c.importing.clone(), c.action))
        .collect();
    assert_eq!(
        imported,
        [
            (
                "terraform_data.a".to_string(),
                Some("abc".to_string()),
                Action::NoOp
            ),
            (
                "terraform_data.b[\"x\"]".to_string(),
                Some("1".to_string()),
                Action::NoOp
            ),
        ]
    );
    assert!(
        plan.prior_state.resources.is_empty(),
        "import happens in apply"
    );
    h.apply(&[], &plan);
    assert_eq!(
        state_attr(&h.state, "terraform_data.a", "id").as_deref(),
        Some("abc")
    );
    assert_eq!(
        state_attr(&h.state, "terraform_data.b[\"x\"]", "id").as_deref(),
        Some("1")
    );
    let again = h.plan(&[]);
    assert!(again
        .changes
        .iter()
        .all(|c| c.importing.is_none() && c.action == Action::NoOp));
}

#[test]
fn import_block_errors() {
    let cases: &[(&str, &str, &str)] = &[
        (
            r#"
import {
  to = terraform_data.z
  id = "abc"
}
"#,
            "Configuration for import target does not exist",
            "The configuration for the given import target terraform_data.z does not exist.",
        ),
        (
            r#"
import {
  to = terraform_data.c[3]
  id = "c3"
}
resource "terraform_data" "c" {
  count = 1
}
"#,
            "Configuration for import target does not exist",
            "The configuration for the given import terraform_data.c[3] does not exist. All target instances must have an associated configuration to be imported.",
        ),
    ];
    for (text, summary, detail) in cases {
        let h = Harness::new(&[("main.tf", text)]);
        let (_, diags) = h.plan_with(&[], &Default::default());
        let d = diags.iter().find(|d| d.summary == *summary);
        assert!(
            d.is_some_and(|d| d.detail.starts_with(detail)),
            "{summary}: {diags:#?}"
        );
    }
}

#[test]
fn import_api_imports_and_refuses_managed_or_unconfigured_targets() {
    let h = Harness::new(&[("main.tf", "resource \"terraform_data\" \"a\" {}\n")]);
    let ctx = h.context(&[]);
    let a = addr("terraform_data.a");
    let (state, diags) = terrace_engine::import(
        &ctx,
        &h.state,
        &[(a.clone(), "abc".to_string())],
        &terrace_engine::NoHooks,
    );
    assert!(!has_errors(&diags), "{diags:#?}");
    assert_eq!(
        state_attr(&state, "terraform_data.a", "id").as_deref(),
        Some("abc")
    );

    let (again, diags) = terrace_engine::import(
        &ctx,
        &state,
        &[(a, "abc".to_string())],
        &terrace_engine::NoHooks,
    );
    assert_eq!(diags[0].summary, "Resource already managed by terrace");
    assert_eq!(
        diags[0].detail,
        "terrace is already managing a remote object for terraform_data.a. To import to this address you must first remove the existing object from the state."
    );
    assert_eq!(state_addrs(&again), ["terraform_data.a"]);

    let (_, diags) = terrace_engine::import(
        &ctx,
        &h.state,
        &[(addr("terraform_data.q"), "x".to_string())],
        &terrace_engine::NoHooks,
    );
    assert_eq!(
        diags[0].summary,
        "resource address \"terraform_data.q\" does not exist in the configuration."
    );
}

#[test]
fn targeting_warnings_in_plan_and_apply() {
    let h = Harness::new(&[(
        "main.tf",
        "resource \"terraform_data\" \"a\" {}\nresource \"terraform_data\" \"b\" {}\n",
    )]);
    let target = terrace_addrs::Target {
        subject: terrace_addrs::Targetable::AbsResourceInstance(addr("terraform_data.a")),
        source_range: Default::default(),
    };
    let opts = terrace_engine::PlanOptions {
        targets: vec![target],
        ..Default::default()
    };
    let (plan, diags) = h.plan_with(&[], &opts);
    assert_eq!(actions(&plan), ["terraform_data.a Create"]);
    let w: Vec<&str> = diags.iter().map(|d| d.summary.as_str()).collect();
    assert_eq!(w, ["Resource targeting is in effect"]);
    assert!(diags[0]
        .detail
        .starts_with("You are creating a plan with the -target option,"));
    let ctx = h.context(&[]);
    let (_, diags) = terrace_engine::apply(&ctx, &plan, &terrace_engine::NoHooks);
    let w: Vec<&str> = diags.iter().map(|d| d.summary.as_str()).collect();
    assert_eq!(w, ["Applied changes may be incomplete"]);
}

/// `removed` with `destroy = false` forgets an instance's deposed objects
/// with its current one: the state keeps nothing of it and nothing is
/// destroyed.
#[test]
fn forgetting_an_instance_forgets_its_deposed_objects() {
    let mut h = support::Harness::new(&[(
        "main.tf",
        "resource \"fake_thing\" \"a\" { input = \"x\" }\n",
    )]);
    let plan = h.plan(&[]);
    h.apply(&[], &plan);
    let addr = terrace_addrs::AbsResourceInstance::parse_str("fake_thing.a")
        .unwrap_or_else(|_| panic!("address"));
    // A deposed object beside the current one, as an interrupted
    // create-before-destroy replacement leaves them.
    let current = h.state.object(&addr).cloned();
    let provider = h
        .state
        .provider_instance(&addr)
        .unwrap_or_else(|| panic!("provider"));
    let _ = h.state.depose_current(&addr);
    h.state.set_current(
        &addr,
        provider.config.clone(),
        provider.key.clone(),
        current,
    );
    h.rewrite(&[(
        "main.tf",
        "removed {\n  from = fake_thing.a\n  lifecycle {\n    destroy = false\n  }\n}\n",
    )]);
    let plan = h.plan(&[]);
    let forgets = plan
        .changes
        .iter()
        .filter(|c| c.action == terrace_plans::model::Action::Forget)
        .count();
    assert_eq!(forgets, 2, "{:?}", support::actions(&plan));
    h.apply(&[], &plan);
    assert!(support::state_addrs(&h.state).is_empty());
    assert!(h.state.all_instances().next().is_none());
}

/// A deposed object is refreshed before it is planned for destruction, as
/// terraform does: one deleted elsewhere is dropped from the state and
/// nothing asks the provider to delete it again; one still there is
/// destroyed. A refresh-only plan refreshes it and plans no destroy.
#[test]
fn deposed_objects_are_refreshed_and_one_gone_is_dropped() {
    use terrace_states::{AttrsJson, DeposedKey};
    let mut h = support::Harness::new(&[(
        "main.tf",
        "resource \"fake_thing\" \"a\" { input = \"x\" }\n",
    )]);
    let plan = h.plan(&[]);
    h.apply(&[], &plan);
    let addr = terrace_addrs::AbsResourceInstance::parse_str("fake_thing.a")
        .unwrap_or_else(|_| panic!("address"));
    let provider = h
        .state
        .provider_instance(&addr)
        .unwrap_or_else(|| panic!("provider"));
    let current = h
        .state
        .object(&addr)
        .cloned()
        .unwrap_or_else(|| panic!("object"));
    let AttrsJson::Json(text) = &current.attributes else {
        panic!("attributes as JSON")
    };
    // The same object under an id the provider no longer has.
    let mut gone = current.clone();
    gone.attributes = AttrsJson::Json(text.replace("\"obj-", "\"deleted-obj-").into());
    h.state.set_deposed(
        &addr,
        DeposedKey("00000001".into()),
        provider.config.clone(),
        provider.key.clone(),
        Some(gone),
    );
    h.state.set_deposed(
        &addr,
        DeposedKey("00000002".into()),
        provider.config.clone(),
        provider.key.clone(),
        Some(current),
    );

    let (refresh_only, diags) = h.plan_with(
        &[],
        &terrace_engine::PlanOptions {
            mode: terrace_plans::model::PlanMode::RefreshOnly,
            ..terrace_engine::PlanOptions::default()
        },
    );
    assert!(!has_errors(&diags), "{diags:#?}");
    assert!(
        support::actions(&refresh_only).is_empty(),
        "{:?}",
        support::actions(&refresh_only)
    );
    let refreshed = refresh_only
        .prior_state
        .instance(&addr)
        .unwrap_or_else(|| panic!("instance"));
    assert_eq!(
        refreshed
            .deposed
            .keys()
            .map(|k| k.to_string())
            .collect::<Vec<_>>(),
        ["00000002"]
    );

    let plan = h.plan(&[]);
    assert_eq!(support::actions(&plan), ["fake_thing.a (00000002) Delete"]);
    h.apply(&[], &plan);
    let left = h
        .state
        .instance(&addr)
        .unwrap_or_else(|| panic!("instance"));
    assert!(left.deposed.is_empty(), "{:?}", left.deposed.keys());
    assert!(left.current.is_some());
}
