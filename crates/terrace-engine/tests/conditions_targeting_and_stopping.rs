//! Walks beyond plain create/update/delete: reference checks before
//! decoding, variable validations and `check` blocks, targeting, provider
//! functions, attribute-path diagnostics, failing providers, refresh-only,
//! stopping, and the resource graph export.

mod support;

use support::{actions, state_addrs, state_attr, Harness};
use terrace_engine::PlanOptions;
use terrace_plans::model::Action;
use terrace_syntax::diagnostic::has_errors;
use terrace_syntax::Diagnostics;

const FAKE_REQ: &str = r#"
terraform {
  required_providers {
    fake = { source = "hashicorp/fake" }
  }
}
"#;

fn summaries(d: &Diagnostics) -> Vec<String> {
    d.iter().map(|d| d.summary.clone()).collect()
}

#[test]
fn reference_errors_stop_decoding_the_block() {
    // Each case: configuration, the summaries validate reports (in order).
    let cases: &[(&str, &[&str])] = &[
        (
            "resource \"terraform_data\" \"a\" {\n  input = var.nope\n  bogus = 1\n}\n",
            &["Reference to undeclared input variable"],
        ),
        (
            "resource \"terraform_data\" \"b\" {\n  input = local.x\n  bogus = 2\n}\n",
            &["Reference to undeclared local value"],
        ),
        // Resources are checked first; variables only when they pass.
        (
            "resource \"terraform_data\" \"b\" {\n  input = local.x\n  triggers_replace = [var.y, terraform_data.zz]\n  bogus = 2\n}\n",
            &["Reference to undeclared resource"],
        ),
        (
            "resource \"terraform_data\" \"c\" {\n  input = 1\n  bogus = 2\n}\n",
            &["Unsupported argument"],
        ),
    ];
    for (text, want) in cases {
        let h = Harness::new(&[("main.tf", text)]);
        let ctx = h.context(&[]);
        let diags = terrace_engine::validate(&ctx);
        assert_eq!(summaries(&diags), *want, "{text}");
        let (_, diags) = h.plan_with(&[], &PlanOptions::default());
        assert_eq!(summaries(&diags), *want, "plan: {text}");
    }
}

#[test]
fn resource_graph_follows_references_and_reduces_edges() {
    let h = Harness::new(&[
        (
            "main.tf",
            r#"
resource "terraform_data" "a" {}
locals { l = terraform_data.a.id }
resource "terraform_data" "b" { input = local.l }
resource "terraform_data" "x" { input = [terraform_data.b.id, terraform_data.a.id] }
module "m" {
  source = "./mod"
  v = terraform_data.b.id
}
resource "terraform_data" "after" { input = module.m.o }
data "terraform_remote_state" "r" {
  backend = "local"
  config = { path = terraform_data.a.id }
}
"#,
        ),
        (
            "mod/main.tf",
            r#"
variable "v" {}
resource "terraform_data" "c" { input = var.v }
resource "terraform_data" "free" {}
output "o" { value = terraform_data.c.id }
"#,
        ),
    ]);
    let g = terrace_engine::resource_graph(&h.context(&[])).expect("graph");
    let lines: Vec<String> = g
        .iter()
        .map(|(r, deps)| {
            let deps: Vec<String> = deps.iter().map(|d| d.to_string()).collect();
            format!("{r} -> [{}]", deps.join(", "))
        })
        .collect();
    let mut lines = lines;
    lines.sort();
    assert_eq!(
        lines,
        [
            "data.terraform_remote_state.r -> [terraform_data.a]",
            "module.m.terraform_data.c -> [terraform_data.b]",
            "module.m.terraform_data.free -> []",
            "terraform_data.a -> []",
            "terraform_data.after -> [module.m.terraform_data.c]",
            "terraform_data.b -> [terraform_data.a]",
            "terraform_data.x -> [terraform_data.b]",
        ]
    );
}

#[test]
fn forgetting_starts_no_provider_and_wording_is_terraforms() {
    let mut h = Harness::new(&[
        ("versions.tf", FAKE_REQ),
        (
            "main.tf",
            "resource \"fake_thing\" \"a\" { input = \"a\" }\n",
        ),
    ]);
    let plan = h.plan(&[]);
    h.apply(&[], &plan);
    h.rewrite(&[
        ("versions.tf", FAKE_REQ),
        (
            "main.tf",
            "removed {\n  from = fake_thing.a\n  lifecycle { destroy = false }\n}\n",
        ),
    ]);
    let plan = h.plan(&[]);
    assert_eq!(actions(&plan), ["fake_thing.a Forget"]);
    let before = h.cloud.started.load(std::sync::atomic::Ordering::SeqCst);
    h.apply(&[], &plan);
    let after = h.cloud.started.load(std::sync::atomic::Ordering::SeqCst);
    assert_eq!(before, after, "apply started a provider to forget");
    assert!(h.state.resources.is_empty());

    let mut errored = plan.clone();
    errored.errored = true;
    let (_, diags) = terrace_engine::apply(&h.context(&[]), &errored, &terrace_engine::NoHooks);
    assert_eq!(diags[0].summary, "Cannot apply incomplete plan");
    assert!(diags[0].detail.starts_with("terrace encountered an error"));

    let h = Harness::new(&[("main.tf", "output \"s\" { value = sensitive(\"x\") }\n")]);
    let (_, diags) = h.plan_with(&[], &PlanOptions::default());
    let d = diags
        .iter()
        .find(|d| d.summary == "Output refers to sensitive values")
        .expect("sensitive output error");
    assert!(d.detail.contains(", terrace requires that"), "{}", d.detail);
}

#[test]
fn variable_validation_nullable_and_sensitive() {
    let files: &[(&str, &str)] = &[
        (
            "main.tf",
            r#"
variable "x" {
  type    = string
  default = "ab"
  validation {
    condition     = length(var.x) > 3 && var.y != ""
    error_message = "x must be longer than 3, got ${var.x}."
  }
}
variable "y" {
  type    = string
  default = "q"
}
module "m" {
  source = "./mod"
  v      = var.v
  w      = null
  s      = var.s
}
variable "v" {
  type    = string
  default = "z"
}
variable "s" {
  type    = string
  default = "ok"
}
output "w" { value = module.m.w }
"#,
        ),
        (
            "mod/main.tf",
            r#"
variable "v" {
  type     = string
  nullable = false
}
variable "w" {
  type     = string
  nullable = false
  default  = "dflt"
}
variable "s" {
  type      = string
  sensitive = true
  validation {
    condition     = var.s != "bad"
    error_message = "s is bad."
  }
}
output "w" { value = var.w }
output "s" {
  value     = var.s
  sensitive = true
}
"#,
        ),
    ];
    let h = Harness::new(files);
    let (_, diags) = h.plan_with(&[], &PlanOptions::default());
    assert_eq!(summaries(&diags), ["Invalid value for variable"]);
    let d = &diags[0];
    // File names are as the loader gave them (absolute in tests).
    assert!(
        d.detail.starts_with(
            "x must be longer than 3, got ab.\n\nThis was checked by the validation rule at "
        ) && d.detail.ends_with("/main.tf:5,3-13."),
        "{}",
        d.detail
    );
    assert_eq!(d.subject.as_ref().map(|r| r.start.line), Some(2));
    assert_eq!(
        d.expression_values,
        [
            ("var.x".to_string(), "is \"ab\"".to_string()),
            ("var.y".to_string(), "is \"q\"".to_string())
        ]
    );
    // Validate does not know root variables: no error.
    assert!(!has_errors(&terrace_engine::validate(&h.context(&[]))));

    let (plan, diags) = h.plan_with(&[("x", "abcd")], &PlanOptions::default());
    assert!(!has_errors(&diags), "{diags:#?}");
    let w = plan
        .output_changes
        .iter()
        .find(|o| o.name == "w")
        .map(|o| o.after.clone());
    assert_eq!(
        w.and_then(|v| v.as_str().map(str::to_string)).as_deref(),
        Some("dflt")
    );

    let (_, diags) = h.plan_with(&[("x", "abcd"), ("s", "bad")], &PlanOptions::default());
    assert_eq!(summaries(&diags), ["Invalid value for variable"]);
    assert_eq!(diags[0].subject.as_ref().map(|r| r.start.line), Some(18));
    // A validation sees the value as it was given: the declaration's own
    // `sensitive` does not hide a plain value there, as in terraform 1.11.
    assert_eq!(
        diags[0].expression_values,
        [("var.s".to_string(), "is \"bad\"".to_string())],
        "{diags:#?}"
    );

    let h = Harness::new(&[
        (
            "main.tf",
            "module \"m\" {\n  source = \"./mod\"\n  v = null\n}\n",
        ),
        (
            "mod/main.tf",
            "variable \"v\" {\n  type = string\n  nullable = false\n}\n",
        ),
    ]);
    let (_, diags) = h.plan_with(&[], &PlanOptions::default());
    assert_eq!(summaries(&diags), ["Required variable not set"]);
    assert!(
        diags[0]
            .detail
            .starts_with("The given value is not suitable for module.m.var.v defined at ")
            && diags[0]
                .detail
                .ends_with("mod/main.tf:1,1-13: required variable may not be set to null."),
        "{}",
        diags[0].detail
    );
}

#[test]
fn check_blocks_warn_after_plan_and_apply() {
    let mut h = Harness::new(&[(
        "main.tf",
        r#"
resource "terraform_data" "a" { input = "x" }
variable "v" { default = 1 }
check "c" {
  assert {
    condition     = terraform_data.a.output == "y"
    error_message = "a is not y"
  }
}
check "k" {
  assert {
    condition     = var.v == 2
    error_message = "known false"
  }
}
check "ok" {
  assert {
    condition     = var.v == 1
    error_message = "never"
  }
}
check "d" {
  data "terraform_remote_state" "s" {
    backend = "local"
    config  = { path = path.module }
  }
  assert {
    condition     = data.terraform_remote_state.s.outputs == null
    error_message = "never shown"
  }
}
"#,
    )]);
    let (plan, diags) = h.plan_with(&[], &PlanOptions::default());
    assert!(!has_errors(&diags), "{diags:#?}");
    let mut got: Vec<(String, String)> = diags
        .iter()
        .filter(|d| d.summary.starts_with("Check block"))
        .map(|d| (d.summary.clone(), d.detail.clone()))
        .collect();
    got.sort();
    assert_eq!(
        got,
        [
            (
                "Check block assertion failed".to_string(),
                "known false".to_string()
            ),
            (
                "Check block assertion known after apply".to_string(),
                "The condition could not be evaluated at this time, a result will be known when this plan is applied.".to_string()
            ),
        ]
    );
    // The failed read of the check's data source is a warning, and the
    // source is read again during apply.
    assert!(diags
        .iter()
        .any(|d| d.severity == terrace_syntax::Severity::Warning
            && !d.summary.starts_with("Check block")));
    let read = plan
        .changes
        .iter()
        .find(|c| c.addr.to_string() == "data.terraform_remote_state.s")
        .expect("check data source change");
    assert_eq!(read.action, Action::Read);
    assert_eq!(
        read.action_reason,
        terrace_plans::model::ActionReason::ReadBecauseCheckNested
    );
    assert!(plan.applyable);

    let ctx = h.context(&[]);
    let (state, diags) = terrace_engine::apply(&ctx, &plan, &terrace_engine::NoHooks);
    assert!(!has_errors(&diags), "{diags:#?}");
    h.state = state;
    let mut got: Vec<String> = diags
        .iter()
        .filter(|d| d.summary == "Check block assertion failed")
        .map(|d| d.detail.clone())
        .collect();
    got.sort();
    assert_eq!(got, ["a is not y", "known false"]);
    let c = diags.iter().find(|d| d.detail == "a is not y").expect("c");
    assert_eq!(
        c.expression_values,
        [(
            "terraform_data.a.output".to_string(),
            "is \"x\"".to_string()
        )]
    );
    assert_eq!(state_addrs(&h.state), ["terraform_data.a"]);
}

/// Targets, excludes, planned creates, planned outputs.
type TargetCase = (
    &'static [&'static str],
    &'static [&'static str],
    &'static [&'static str],
    &'static [&'static str],
);

fn target(s: &str) -> terrace_addrs::Target {
    terrace_addrs::Target::parse_str(s).expect("target")
}

#[test]
fn targets_and_excludes_select_resources_and_outputs() {
    let files: &[(&str, &str)] = &[
        (
            "main.tf",
            r#"
resource "terraform_data" "a" {
  count = 2
  input = "a${count.index}"
}
resource "terraform_data" "b" { input = terraform_data.a[0].output }
resource "terraform_data" "c" { input = "c" }
locals { bl = terraform_data.b.output }
module "m" {
  source = "./mod"
  v      = local.bl
}
output "oa" { value = terraform_data.a[0].output }
output "ob" { value = local.bl }
output "oc" { value = "const" }
output "oac" { value = [terraform_data.a[1].output, terraform_data.c.output] }
"#,
        ),
        (
            "mod/main.tf",
            "variable \"v\" {}\nresource \"terraform_data\" \"d\" { input = var.v }\n",
        ),
    ];
    let cases: &[TargetCase] = &[
        (
            &["terraform_data.b"],
            &[],
            &[
                "terraform_data.a[0]",
                "terraform_data.a[1]",
                "terraform_data.b",
            ],
            &["oa", "ob"],
        ),
        (
            &["terraform_data.a[1]"],
            &[],
            &["terraform_data.a[1]"],
            // Kept at the resource level, as Terraform keeps it.
            &["oa"],
        ),
        (
            &["module.m"],
            &[],
            &[
                "module.m.terraform_data.d",
                "terraform_data.a[0]",
                "terraform_data.a[1]",
                "terraform_data.b",
            ],
            &["oa", "ob"],
        ),
        (&[], &["terraform_data.a"], &["terraform_data.c"], &[]),
        (
            &[],
            &["terraform_data.a[0]"],
            &["terraform_data.a[1]", "terraform_data.c"],
            &["oa", "oac"],
        ),
        (
            &[],
            &["module.m"],
            &[
                "terraform_data.a[0]",
                "terraform_data.a[1]",
                "terraform_data.b",
                "terraform_data.c",
            ],
            &["oa", "oac", "ob"],
        ),
    ];
    for (targets, excludes, creates, outputs) in cases {
        let h = Harness::new(files);
        let opts = PlanOptions {
            targets: targets.iter().map(|t| target(t)).collect(),
            excludes: excludes.iter().map(|t| target(t)).collect(),
            ..PlanOptions::default()
        };
        let (plan, diags) = h.plan_with(&[], &opts);
        assert!(!has_errors(&diags), "{diags:#?}");
        let want: Vec<String> = creates.iter().map(|c| format!("{c} Create")).collect();
        assert_eq!(actions(&plan), want, "{targets:?} {excludes:?}");
        let mut outs: Vec<&str> = plan
            .output_changes
            .iter()
            .map(|o| o.name.as_str())
            .collect();
        outs.sort();
        assert_eq!(outs, *outputs, "{targets:?} {excludes:?}");
    }

    // Applying a targeted plan saves only the covered outputs; the others
    // keep their values.
    let mut h = Harness::new(files);
    let plan = h.plan(&[]);
    h.apply(&[], &plan);
    let mut changed: Vec<(&str, &str)> = files.to_vec();
    let main = files[0]
        .1
        .replace("input = \"c\"", "input = \"c2\"")
        .replace("\"a${count.index}\"", "\"A${count.index}\"")
        .replace("\"const\"", "\"const2\"");
    changed[0] = ("main.tf", &main);
    h.rewrite(&changed);
    let opts = PlanOptions {
        targets: vec![target("terraform_data.a[0]")],
        ..PlanOptions::default()
    };
    let (plan, diags) = h.plan_with(&[], &opts);
    assert!(!has_errors(&diags), "{diags:#?}");
    assert_eq!(actions(&plan), ["terraform_data.a[0] Update"]);
    h.apply(&[], &plan);
    let out = |n: &str| {
        h.state
            .outputs
            .get(n)
            .map(|o| o.value.clone())
            .and_then(|v| v.as_str().map(str::to_string))
    };
    assert_eq!(out("oa").as_deref(), Some("A0"));
    assert_eq!(out("oc").as_deref(), Some("const"));
    assert_eq!(out("ob").as_deref(), Some("a0"));
    assert_eq!(
        state_attr(&h.state, "terraform_data.c", "input").as_deref(),
        Some("{\"value\":\"c\",\"type\":\"string\"}")
    );
}

#[test]
fn provider_diagnostics_point_at_the_attribute() {
    let h = Harness::new(&[
        ("versions.tf", FAKE_REQ),
        (
            "main.tf",
            "resource \"fake_thing\" \"a\" {\n  secret = \"s\"\n  input  = \"bad-attr\"\n}\n",
        ),
    ]);
    for diags in [
        terrace_engine::validate(&h.context(&[])),
        h.plan_with(&[], &PlanOptions::default()).1,
    ] {
        let d = diags
            .iter()
            .find(|d| d.summary == "Invalid input")
            .expect("provider diagnostic");
        let r = d.subject.as_ref().expect("subject");
        assert_eq!((r.start.line, r.start.column), (3, 12), "{d:#?}");
    }
}

fn fail_once(h: &Harness, input: &str) {
    h.cloud
        .fail_once
        .lock()
        .expect("lock")
        .insert(input.to_string());
}

#[test]
fn failing_provider_taints_records_partial_updates_and_stops_dependents_only() {
    let files = |v: &str| {
        format!(
            "resource \"fake_thing\" \"a\" {{ input = \"{v}\" }}\nresource \"fake_thing\" \"dep\" {{ input = fake_thing.a.output }}\nresource \"fake_thing\" \"free\" {{ input = \"free\" }}\n"
        )
    };
    let main = files("one");
    let mut h = Harness::new(&[("versions.tf", FAKE_REQ), ("main.tf", &main)]);
    fail_once(&h, "one");
    let plan = h.plan(&[]);
    let (state, diags) = terrace_engine::apply(&h.context(&[]), &plan, &terrace_engine::NoHooks);
    assert_eq!(summaries(&diags), ["Apply failed"]);
    h.state = state;
    // The partial object is kept, tainted; the dependent did not run, the
    // independent resource did.
    assert_eq!(state_addrs(&h.state), ["fake_thing.a", "fake_thing.free"]);
    let a = terrace_addrs::AbsResourceInstance::parse_str("fake_thing.a").expect("addr");
    assert_eq!(
        h.state.object(&a).map(|o| o.status),
        Some(terrace_states::model::ObjectStatus::Tainted)
    );
    let plan = h.plan(&[]);
    assert_eq!(
        actions(&plan),
        ["fake_thing.a DeleteThenCreate", "fake_thing.dep Create"]
    );
    h.apply(&[], &plan);
    assert_eq!(
        state_attr(&h.state, "fake_thing.dep", "input").as_deref(),
        Some("one")
    );

    // An update failing halfway records what the provider returned; the
    // next plan finishes it.
    let main = files("two");
    h.rewrite(&[("versions.tf", FAKE_REQ), ("main.tf", &main)]);
    fail_once(&h, "two");
    let plan = h.plan(&[]);
    assert_eq!(
        actions(&plan),
        ["fake_thing.a Update", "fake_thing.dep Update"]
    );
    let (state, diags) = terrace_engine::apply(&h.context(&[]), &plan, &terrace_engine::NoHooks);
    assert_eq!(summaries(&diags), ["Apply failed"]);
    h.state = state;
    assert_eq!(
        state_attr(&h.state, "fake_thing.a", "input").as_deref(),
        Some("two")
    );
    assert_eq!(
        state_attr(&h.state, "fake_thing.a", "output").as_deref(),
        Some("one")
    );
    assert_eq!(
        h.state.object(&a).map(|o| o.status),
        Some(terrace_states::model::ObjectStatus::Ready)
    );
    let plan = h.plan(&[]);
    assert_eq!(
        actions(&plan),
        ["fake_thing.a Update", "fake_thing.dep Update"]
    );
    h.apply(&[], &plan);
    assert_eq!(
        state_attr(&h.state, "fake_thing.a", "output").as_deref(),
        Some("two")
    );
    assert_eq!(
        state_attr(&h.state, "fake_thing.dep", "input").as_deref(),
        Some("two")
    );
    assert!(actions(&h.plan(&[])).is_empty());
}

#[test]
fn create_before_destroy_is_forced_onto_dependencies() {
    let main = |v: &str| {
        format!(
            "resource \"fake_thing\" \"a\" {{ replace_me = \"{v}\" }}\nresource \"fake_thing\" \"b\" {{\n  input = fake_thing.a.id\n  lifecycle {{ create_before_destroy = true }}\n}}\n"
        )
    };
    let m1 = main("1");
    let mut h = Harness::new(&[("versions.tf", FAKE_REQ), ("main.tf", &m1)]);
    let plan = h.plan(&[]);
    h.apply(&[], &plan);
    let a = terrace_addrs::AbsResourceInstance::parse_str("fake_thing.a").expect("addr");
    assert_eq!(
        h.state.object(&a).map(|o| o.create_before_destroy),
        Some(true)
    );
    let m2 = main("2");
    h.rewrite(&[("versions.tf", FAKE_REQ), ("main.tf", &m2)]);
    let plan = h.plan(&[]);
    assert_eq!(
        actions(&plan),
        ["fake_thing.a CreateThenDelete", "fake_thing.b Update"]
    );
    h.apply(&[], &plan);
    assert_eq!(h.cloud.objects.lock().expect("lock").len(), 2);
    assert!(actions(&h.plan(&[])).is_empty());
}

#[test]
fn refresh_only_updates_only_the_state() {
    let mut h = Harness::new(&[
        ("versions.tf", FAKE_REQ),
        (
            "main.tf",
            "resource \"fake_thing\" \"a\" { input = \"x\" }\n",
        ),
    ]);
    let plan = h.plan(&[]);
    h.apply(&[], &plan);
    // Drift outside, and a configuration change that must be ignored.
    for v in h.cloud.objects.lock().expect("lock").values_mut() {
        let mut attrs = v
            .as_attributes()
            .map(terrace_value::Attrs::to_map)
            .unwrap_or_default();
        attrs.insert("output".into(), terrace_value::Value::string("drifted"));
        *v = terrace_value::Value::object(attrs);
    }
    h.rewrite(&[
        ("versions.tf", FAKE_REQ),
        (
            "main.tf",
            "resource \"fake_thing\" \"a\" { input = \"y\" }\n",
        ),
    ]);
    let opts = PlanOptions {
        mode: terrace_plans::model::PlanMode::RefreshOnly,
        ..PlanOptions::default()
    };
    let (plan, diags) = h.plan_with(&[], &opts);
    assert!(!has_errors(&diags), "{diags:#?}");
    assert!(actions(&plan).is_empty(), "{:?}", actions(&plan));
    assert_eq!(plan.drift.len(), 1);
    assert_eq!(plan.drift[0].action, Action::Update);
    let applied_before = h.cloud.applied.lock().expect("lock").len();
    h.apply(&[], &plan);
    assert_eq!(h.cloud.applied.lock().expect("lock").len(), applied_before);
    assert_eq!(
        state_attr(&h.state, "fake_thing.a", "output").as_deref(),
        Some("drifted")
    );
    assert_eq!(
        state_attr(&h.state, "fake_thing.a", "input").as_deref(),
        Some("x")
    );
}

/// Asks to stop as soon as the first object is done.
struct StopAfterFirst(std::sync::atomic::AtomicBool);

impl terrace_engine::Hooks for StopAfterFirst {
    fn apply_finished(
        &self,
        _: &terrace_addrs::AbsResourceInstance,
        _: Option<&terrace_states::DeposedKey>,
        _: Action,
        _: Option<&str>,
        _: std::time::Duration,
        _: bool,
    ) {
        self.0.store(true, std::sync::atomic::Ordering::SeqCst);
    }
    fn stopping(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::SeqCst)
    }
}

#[test]
fn stopping_finishes_running_work_and_starts_nothing_new() {
    let h = Harness::new(&[
        ("versions.tf", FAKE_REQ),
        (
            "main.tf",
            "resource \"fake_thing\" \"s\" {\n  count = 8\n  input = \"s${count.index}\"\n}\nresource \"fake_thing\" \"after\" { input = fake_thing.s[0].id }\n",
        ),
    ]);
    let plan = h.plan(&[]);
    *h.cloud.apply_delay.lock().expect("lock") = Some(std::time::Duration::from_millis(20));
    let hooks = StopAfterFirst(std::sync::atomic::AtomicBool::new(false));
    let (state, _) = terrace_engine::apply(&h.context(&[]), &plan, &hooks);
    let created = h.cloud.objects.lock().expect("lock").len();
    assert!((1..8).contains(&created), "{created} created");
    // Everything the provider created is in the state, nothing else.
    assert_eq!(state_addrs(&state).len(), created);
    assert!(!state_addrs(&state).contains(&"fake_thing.after".to_string()));
    assert!(h.cloud.stopped.load(std::sync::atomic::Ordering::SeqCst) >= 1);
}

#[test]
fn provider_defined_functions_are_called_through_the_provider() {
    let h = Harness::new(&[
        ("versions.tf", FAKE_REQ),
        (
            "main.tf",
            r#"
resource "terraform_data" "u" {}
resource "fake_thing" "a" {
  input = provider::fake::shout("hi")
}
resource "fake_thing" "b" {
  input = provider::fake::shout(terraform_data.u.id)
}
output "o" {
  value     = provider::fake::shout(sensitive("psst"))
  sensitive = true
}
"#,
        ),
    ]);
    let (plan, diags) = h.plan_with(&[], &PlanOptions::default());
    assert!(!has_errors(&diags), "{diags:#?}");
    let after = |addr: &str| {
        plan.changes
            .iter()
            .find(|c| c.addr.to_string() == addr)
            .and_then(|c| {
                c.after
                    .as_attributes()
                    .and_then(|a| a.get("input").cloned())
            })
            .expect("change")
    };
    assert_eq!(after("fake_thing.a").as_str(), Some("HI!"));
    // Unknown arguments make an unknown result without a call.
    assert!(!after("fake_thing.b").is_known());
    let o = plan
        .output_changes
        .iter()
        .find(|o| o.name == "o")
        .expect("o");
    assert!(o.after.deep_marks().is_sensitive());
    assert_eq!(o.after.unmark_deep().0.as_str(), Some("PSST!"));
    assert!(
        h.cloud
            .function_calls
            .load(std::sync::atomic::Ordering::SeqCst)
            >= 2
    );
    assert!(!has_errors(&terrace_engine::validate(&h.context(&[]))));

    let cases: &[(&str, &str, &str)] = &[
        (
            "provider::nope::shout(\"x\")",
            "Unknown provider function",
            "There is no function named \"provider::nope::shout\".",
        ),
        (
            "provider::fake::whisper(\"x\")",
            "Function not found in provider",
            "Function \"provider::fake::whisper\" was not registered by provider",
        ),
        (
            "provider::fake::shout(\"boom\")",
            "Invalid function argument",
            "cannot shout boom",
        ),
    ];
    for (expr, summary, detail) in cases {
        let main = format!("resource \"fake_thing\" \"a\" {{ input = {expr} }}\n");
        let h = Harness::new(&[("versions.tf", FAKE_REQ), ("main.tf", &main)]);
        let (_, diags) = h.plan_with(&[], &PlanOptions::default());
        let d = diags
            .iter()
            .find(|d| d.summary == *summary)
            .unwrap_or_else(|| panic!("{expr}: {diags:#?}"));
        assert!(d.detail.contains(detail), "{expr}: {}", d.detail);
    }
}
