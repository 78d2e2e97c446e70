//! Plan/apply scenarios against the fake provider and the built-in
//! `terraform_data`: configuration text in, planned actions and final
//! state out.

mod support;

use support::{actions, state_addrs, state_attr, Harness};
use terrace_engine::PlanOptions;
use terrace_plans::model::Action;
use terrace_syntax::diagnostic::has_errors;

const FAKE_REQ: &str = r#"
terraform {
  required_providers {
    fake = { source = "hashicorp/fake" }
  }
}
"#;

/// One data-driven case: files, expected actions of the first plan, and
/// the state's instances after applying it.
struct Case {
    name: &'static str,
    files: &'static [(&'static str, &'static str)],
    vars: &'static [(&'static str, &'static str)],
    actions: &'static [&'static str],
    state: &'static [&'static str],
}

const CASES: &[Case] = &[
    Case {
        name: "count and references between resources",
        files: &[(
            "main.tf",
            r#"
resource "terraform_data" "a" {
  count = 3
  input = "a${count.index}"
}
resource "terraform_data" "b" {
  count = 3
  input = terraform_data.a[count.index].output
}
output "last" { value = terraform_data.b[2].output }
"#,
        )],
        vars: &[],
        actions: &[
            "terraform_data.a[0] Create",
            "terraform_data.a[1] Create",
            "terraform_data.a[2] Create",
            "terraform_data.b[0] Create",
            "terraform_data.b[1] Create",
            "terraform_data.b[2] Create",
        ],
        state: &[
            "terraform_data.a[0]",
            "terraform_data.a[1]",
            "terraform_data.a[2]",
            "terraform_data.b[0]",
            "terraform_data.b[1]",
            "terraform_data.b[2]",
        ],
    },
    Case {
        name: "for_each over a variable, locals",
        files: &[
            ("versions.tf", FAKE_REQ),
            (
                "main.tf",
                r#"
variable "names" {
  type    = set(string)
  default = ["x", "y"]
}
locals {
  prefix = "p-"
}
resource "fake_thing" "t" {
  for_each = var.names
  input    = "${local.prefix}${each.key}"
}
resource "fake_thing" "single" {
  input = join(",", [for k, v in fake_thing.t : v.output])
}
output "joined" { value = fake_thing.single.output }
"#,
            ),
        ],
        vars: &[("names", "[\"x\",\"y\",\"z\"]")],
        actions: &[
            "fake_thing.single Create",
            "fake_thing.t[\"x\"] Create",
            "fake_thing.t[\"y\"] Create",
            "fake_thing.t[\"z\"] Create",
        ],
        state: &[
            "fake_thing.single",
            "fake_thing.t[\"x\"]",
            "fake_thing.t[\"y\"]",
            "fake_thing.t[\"z\"]",
        ],
    },
];

#[test]
fn scenarios_plan_apply_replan_destroy() {
    for case in CASES {
        let mut h = Harness::new(case.files);
        let plan = h.plan(case.vars);
        assert_eq!(actions(&plan), case.actions, "{}: first plan", case.name);
        h.apply(case.vars, &plan);
        assert_eq!(
            state_addrs(&h.state),
            case.state,
            "{}: state after apply",
            case.name
        );
        let again = h.plan(case.vars);
        assert!(
            actions(&again).is_empty(),
            "{}: second plan {:?}",
            case.name,
            actions(&again)
        );
        assert!(
            again.changes_empty(),
            "{}: outputs changed on replan",
            case.name
        );
        let destroy = h.destroy(case.vars);
        assert_eq!(
            destroy.changes.len(),
            case.state.len(),
            "{}: destroy plan",
            case.name
        );
        assert!(
            h.state.resources.is_empty(),
            "{}: state after destroy",
            case.name
        );
        assert!(
            h.state.outputs.is_empty(),
            "{}: outputs after destroy",
            case.name
        );
    }
}

#[test]
fn values_flow_through_references_and_outputs() {
    let mut h = Harness::new(CASES[1].files);
    let plan = h.plan(&[]);
    h.apply(&[], &plan);
    assert_eq!(
        state_attr(&h.state, "fake_thing.single", "output").as_deref(),
        Some("p-x,p-y")
    );
    let out = h
        .state
        .outputs
        .get("joined")
        .and_then(|o| o.value.as_str().map(str::to_string));
    assert_eq!(out.as_deref(), Some("p-x,p-y"));
    let deps = h
        .state
        .object(&terrace_addrs::AbsResourceInstance::parse_str("fake_thing.single").expect("addr"))
        .map(|o| {
            o.dependencies
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
        });
    assert_eq!(deps, Some(vec!["fake_thing.t".to_string()]));
}

#[test]
fn update_replace_and_orphans() {
    let v1 = r#"
resource "fake_thing" "a" {
  count      = 3
  input      = "v1"
  replace_me = "r1"
}
"#;
    let mut h = Harness::new(&[("versions.tf", FAKE_REQ), ("main.tf", v1)]);
    let plan = h.plan(&[]);
    h.apply(&[], &plan);
    let id0 = state_attr(&h.state, "fake_thing.a[0]", "id");

    let v2 = r#"
resource "fake_thing" "a" {
  count      = 2
  input      = count.index == 0 ? "v2" : "v1"
  replace_me = count.index == 1 ? "r2" : "r1"
}
"#;
    h.rewrite(&[("versions.tf", FAKE_REQ), ("main.tf", v2)]);
    let plan = h.plan(&[]);
    assert_eq!(
        actions(&plan),
        [
            "fake_thing.a[0] Update",
            "fake_thing.a[1] DeleteThenCreate",
            "fake_thing.a[2] Delete"
        ]
    );
    h.apply(&[], &plan);
    assert_eq!(
        state_addrs(&h.state),
        ["fake_thing.a[0]", "fake_thing.a[1]"]
    );
    assert_eq!(
        state_attr(&h.state, "fake_thing.a[0]", "id"),
        id0,
        "update keeps the object"
    );
    assert_eq!(
        state_attr(&h.state, "fake_thing.a[0]", "output").as_deref(),
        Some("v2")
    );
    assert!(actions(&h.plan(&[])).is_empty());

    let v3 = r#"
resource "fake_thing" "a" {
  count      = 2
  input      = "v1"
  replace_me = "r3"
  lifecycle { create_before_destroy = true }
}
"#;
    h.rewrite(&[("versions.tf", FAKE_REQ), ("main.tf", v3)]);
    let plan = h.plan(&[]);
    assert_eq!(
        actions(&plan),
        [
            "fake_thing.a[0] CreateThenDelete",
            "fake_thing.a[1] CreateThenDelete"
        ]
    );
    h.apply(&[], &plan);
    let objects = h.cloud.objects.lock().map(|o| o.len()).unwrap_or(0);
    assert_eq!(objects, 2, "deposed objects were deleted");
    assert!(h
        .state
        .all_instances()
        .all(|(_, _, i)| i.deposed.is_empty()));
}

#[test]
fn drift_is_detected_and_deleted_objects_are_recreated() {
    let mut h = Harness::new(&[
        ("versions.tf", FAKE_REQ),
        (
            "main.tf",
            "resource \"fake_thing\" \"a\" { input = \"x\" }\n",
        ),
    ]);
    let plan = h.plan(&[]);
    h.apply(&[], &plan);
    if let Ok(mut o) = h.cloud.objects.lock() {
        o.clear();
    }
    let plan = h.plan(&[]);
    assert_eq!(actions(&plan), ["fake_thing.a Create"]);
    assert_eq!(plan.drift.len(), 1);
    assert_eq!(plan.drift[0].action, Action::Delete);
    let opts = PlanOptions {
        refresh: false,
        ..PlanOptions::default()
    };
    let (plan, diags) = h.plan_with(&[], &opts);
    assert!(!has_errors(&diags));
    assert!(
        actions(&plan).is_empty(),
        "-refresh=false does not see the drift"
    );
}

#[test]
fn errors_have_opentofu_wording() {
    let cases: &[(&str, &str)] = &[
        (
            "resource \"terraform_data\" \"a\" { input = terraform_data.b.output }\nresource \"terraform_data\" \"b\" { input = terraform_data.a.output }\n",
            "Cycle: ",
        ),
        (
            "resource \"terraform_data\" \"a\" {}\nresource \"terraform_data\" \"b\" {\n  count = length(terraform_data.a.id)\n}\n",
            "Invalid count argument",
        ),
        (
            "resource \"terraform_data\" \"a\" {}\nresource \"terraform_data\" \"b\" {\n  for_each = toset([terraform_data.a.id])\n}\n",
            "Invalid for_each argument",
        ),
        (
            "resource \"terraform_data\" \"b\" {\n  for_each = [\"a\"]\n}\n",
            "Invalid for_each argument",
        ),
    ];
    for (text, summary) in cases {
        let h = Harness::new(&[("main.tf", text)]);
        let (_, diags) = h.plan_with(&[], &PlanOptions::default());
        assert!(
            diags.iter().any(|d| d.summary.starts_with(summary)),
            "{summary}: {diags:#?}"
        );
    }
}

#[test]
fn sensitive_values_are_marked_in_plan_and_state() {
    let text = r#"
variable "pw" {
  type      = string
  sensitive = true
}
resource "fake_thing" "a" {
  input  = "x"
  secret = "s"
}
resource "fake_thing" "b" {
  input = var.pw
}
"#;
    let mut h = Harness::new(&[("versions.tf", FAKE_REQ), ("main.tf", text)]);
    let plan = h.plan(&[("pw", "hunter2")]);
    for c in &plan.changes {
        assert!(
            c.after.deep_marks().is_sensitive(),
            "{} after is marked",
            c.addr
        );
    }
    h.apply(&[("pw", "hunter2")], &plan);
    for (addr, _, is) in h.state.all_instances() {
        let obj = is.current.as_ref().expect("object");
        assert!(
            !obj.sensitive_paths.is_empty(),
            "{addr} records sensitive paths"
        );
    }
}

#[test]
fn lifecycle_prevent_destroy_and_ignore_changes() {
    let v1 = r#"
resource "fake_thing" "keep" {
  input      = "a"
  replace_me = "r1"
  lifecycle { prevent_destroy = true }
}
resource "fake_thing" "ign" {
  input = "first"
  lifecycle { ignore_changes = [input] }
}
"#;
    let mut h = Harness::new(&[("main.tf", v1)]);
    let plan = h.plan(&[]);
    h.apply(&[], &plan);
    let v2 = r#"
resource "fake_thing" "keep" {
  input      = "a"
  replace_me = "r2"
  lifecycle { prevent_destroy = true }
}
resource "fake_thing" "ign" {
  input = "second"
  lifecycle { ignore_changes = [input] }
}
"#;
    h.rewrite(&[("main.tf", v2)]);
    let (plan, diags) = h.plan_with(&[], &PlanOptions::default());
    assert!(plan.errored);
    assert!(
        diags
            .iter()
            .any(|d| d.summary == "Instance cannot be destroyed"),
        "{diags:#?}"
    );
    let ign = plan
        .changes
        .iter()
        .find(|c| c.addr.to_string() == "fake_thing.ign")
        .map(|c| c.action);
    assert_eq!(ign, Some(Action::NoOp), "ignored argument changes nothing");
}

#[derive(Default)]
struct Journal {
    events: std::sync::Mutex<Vec<String>>,
}

impl terrace_engine::Hooks for Journal {
    fn object_changed(
        &self,
        addr: &terrace_addrs::AbsResourceInstance,
        _deposed: Option<&terrace_states::model::DeposedKey>,
        _provider: &terrace_addrs::AbsProviderConfig,
        _key: &terrace_addrs::InstanceKey,
        object: Option<&terrace_states::model::ObjectState>,
    ) {
        if let Ok(mut e) = self.events.lock() {
            e.push(format!(
                "{addr} {}",
                if object.is_some() { "set" } else { "gone" }
            ));
        }
    }
}

#[test]
fn every_applied_object_is_journaled() {
    let mut h = Harness::new(CASES[0].files);
    let plan = h.plan(&[]);
    let ctx = h.context(&[]);
    let journal = Journal::default();
    let (state, diags) = terrace_engine::apply(&ctx, &plan, &journal);
    assert!(!has_errors(&diags));
    let mut events = journal.events.lock().map(|e| e.clone()).unwrap_or_default();
    events.sort();
    let want: Vec<String> = CASES[0].state.iter().map(|a| format!("{a} set")).collect();
    assert_eq!(events, want);
    h.state = state;
    let opts = PlanOptions {
        mode: terrace_plans::model::PlanMode::Destroy,
        ..PlanOptions::default()
    };
    let (plan, _) = h.plan_with(&[], &opts);
    let journal = Journal::default();
    let (state, diags) = terrace_engine::apply(&ctx, &plan, &journal);
    assert!(!has_errors(&diags));
    assert!(state.resources.is_empty());
    let events = journal.events.lock().map(|e| e.clone()).unwrap_or_default();
    // b's objects go before the a objects they depend on.
    let pos = |a: &str| events.iter().position(|e| e == &format!("{a} gone"));
    let (b0, a0) = (pos("terraform_data.b[0]"), pos("terraform_data.a[0]"));
    assert!(b0.is_some() && a0.is_some() && b0 < a0, "{events:?}");
}

#[test]
fn validate_decodes_bodies_with_unknown_instance_data() {
    let ok = r#"
variable "n" { type = number }
resource "fake_thing" "a" {
  count = var.n
  input = "x${count.index}"
}
"#;
    let h = Harness::new(&[("main.tf", ok)]);
    let diags = terrace_engine::validate(&h.context(&[("n", "2")]));
    assert!(!has_errors(&diags), "{diags:#?}");
    let bad =
        "resource \"fake_thing\" \"a\" {\n  input = [\"not\", \"a\", \"string\"]\n  nope  = 1\n}\n";
    let h = Harness::new(&[("main.tf", bad)]);
    let diags = terrace_engine::validate(&h.context(&[]));
    let summaries: Vec<&str> = diags.iter().map(|d| d.summary.as_str()).collect();
    assert!(
        summaries.contains(&"Incorrect attribute value type"),
        "{diags:#?}"
    );
    assert!(summaries.contains(&"Unsupported argument"), "{diags:#?}");
}
