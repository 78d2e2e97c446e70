//! `local-exec` provisioners through the apply walk: create-time ones
//! with `self`, failures (tainted object, `on_failure = continue`),
//! destroy-time ones, no runs on update, and the validate walk's refusal
//! of provisioners terrace cannot run.

mod support;

use std::sync::Mutex;
use support::{actions, Harness};
use terrace_addrs::AbsResourceInstance;
use terrace_engine::{Hooks, PlanOptions};
use terrace_plans::model::{Action, PlanMode};
use terrace_states::model::ObjectStatus;
use terrace_syntax::diagnostic::has_errors;
use terrace_syntax::Diagnostics;

/// Records what the UI would print.
#[derive(Default)]
struct Recorder {
    events: Mutex<Vec<String>>,
}

impl Recorder {
    fn push(&self, s: String) {
        if let Ok(mut g) = self.events.lock() {
            g.push(s);
        }
    }
    fn events(&self) -> Vec<String> {
        self.events.lock().map(|g| g.clone()).unwrap_or_default()
    }
}

impl Hooks for Recorder {
    fn apply_started(
        &self,
        addr: &AbsResourceInstance,
        _: Option<&terrace_states::DeposedKey>,
        action: Action,
        _: Option<&str>,
    ) {
        self.push(format!("{addr}: start {action:?}"));
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
        self.push(format!("{addr}: finish {action:?} ok={ok}"));
    }
    fn provisioning(&self, addr: &AbsResourceInstance, type_name: &str) {
        self.push(format!("{addr}: provisioning {type_name}"));
    }
    fn provision_output(&self, addr: &AbsResourceInstance, type_name: &str, line: &str) {
        self.push(format!("{addr} ({type_name}): {line}"));
    }
}

/// Plans (normal or destroy) and applies with a recorder, keeping the
/// resulting state; returns the apply's diagnostics and the events.
fn run(h: &mut Harness, mode: PlanMode) -> (Diagnostics, Vec<String>) {
    let opts = PlanOptions {
        mode,
        ..PlanOptions::default()
    };
    let (plan, diags) = h.plan_with(&[], &opts);
    assert!(!has_errors(&diags), "plan errors: {diags:#?}");
    let rec = Recorder::default();
    let ctx = h.context(&[]);
    let (state, diags) = terrace_engine::apply(&ctx, &plan, &rec);
    h.state = state;
    (diags, rec.events())
}

fn status(h: &Harness, addr: &str) -> Option<ObjectStatus> {
    let addr = AbsResourceInstance::parse_str(addr).ok()?;
    h.state.object(&addr).map(|o| o.status)
}

fn read(h: &Harness, name: &str) -> String {
    std::fs::read_to_string(h.dir.join(name)).unwrap_or_default()
}

fn errors(d: &Diagnostics) -> Vec<(String, String)> {
    d.iter()
        .filter(|d| d.is_error())
        .map(|d| (d.summary.clone(), d.detail.clone()))
        .collect()
}

#[test]
fn create_time_runs_in_order_with_self_after_the_create() {
    let mut h = Harness::new(&[(
        "main.tf",
        r#"
resource "terraform_data" "a" {
  input = "v1"
  provisioner "local-exec" {
    command = "printf '%s' '${self.output}' > created.txt; echo first"
  }
  provisioner "local-exec" {
    command     = "echo $GREETING"
    environment = { GREETING = "hello" }
  }
}
"#,
    )]);
    let (diags, events) = run(&mut h, PlanMode::Normal);
    assert!(!has_errors(&diags), "{diags:#?}");
    assert_eq!(read(&h, "created.txt"), "v1");
    assert_eq!(
        events,
        [
            "terraform_data.a: start Create",
            "terraform_data.a: provisioning local-exec",
            r#"terraform_data.a (local-exec): Executing: ["/bin/sh" "-c" "printf '%s' 'v1' > created.txt; echo first"]"#,
            "terraform_data.a (local-exec): first",
            "terraform_data.a: provisioning local-exec",
            r#"terraform_data.a (local-exec): Executing: ["/bin/sh" "-c" "echo $GREETING"]"#,
            "terraform_data.a (local-exec): hello",
            "terraform_data.a: finish Create ok=true",
        ]
    );
    assert_eq!(status(&h, "terraform_data.a"), Some(ObjectStatus::Ready));

    // An update runs no create-time provisioner.
    h.rewrite(&[(
        "main.tf",
        r#"
resource "terraform_data" "a" {
  input = "v2"
  provisioner "local-exec" {
    command = "echo again > again.txt"
  }
}
"#,
    )]);
    let (diags, events) = run(&mut h, PlanMode::Normal);
    assert!(!has_errors(&diags), "{diags:#?}");
    assert!(!h.dir.join("again.txt").exists());
    assert!(
        !events.iter().any(|e| e.contains("provisioning")),
        "{events:?}"
    );
}

#[test]
fn a_failure_taints_the_object_and_stops_the_rest() {
    let mut h = Harness::new(&[(
        "main.tf",
        r#"
resource "terraform_data" "a" {
  input = "x"
  provisioner "local-exec" {
    command = "echo before; exit 3"
  }
  provisioner "local-exec" {
    command = "touch never.txt"
  }
}
"#,
    )]);
    let (diags, events) = run(&mut h, PlanMode::Normal);
    assert_eq!(
        errors(&diags),
        [(
            "local-exec provisioner error".to_string(),
            "Error running command 'echo before; exit 3': exit status 3. Output: before\n"
                .to_string()
        )]
    );
    let d = diags
        .iter()
        .find(|d| d.is_error())
        .map(|d| d.address.clone());
    assert_eq!(d, Some(Some("terraform_data.a".to_string())));
    assert_eq!(status(&h, "terraform_data.a"), Some(ObjectStatus::Tainted));
    assert!(!h.dir.join("never.txt").exists());
    assert_eq!(
        events.last().map(String::as_str),
        Some("terraform_data.a: finish Create ok=false")
    );
    // The tainted object is replaced by the next plan.
    let plan = h.plan(&[]);
    assert_eq!(actions(&plan), ["terraform_data.a DeleteThenCreate"]);
}

#[test]
fn on_failure_continue_goes_on_without_a_diagnostic() {
    let mut h = Harness::new(&[(
        "main.tf",
        r#"
resource "terraform_data" "a" {
  provisioner "local-exec" {
    command    = "exit 1"
    on_failure = continue
  }
  provisioner "local-exec" {
    command = "touch after.txt"
  }
}
"#,
    )]);
    let (diags, _) = run(&mut h, PlanMode::Normal);
    assert!(diags.is_empty(), "{diags:#?}");
    assert!(h.dir.join("after.txt").exists());
    assert_eq!(status(&h, "terraform_data.a"), Some(ObjectStatus::Ready));
}

#[test]
fn destroy_time_runs_before_the_delete_and_a_failure_keeps_the_object() {
    let config = |exit: &str| {
        format!(
            r#"
resource "terraform_data" "a" {{
  count = 1
  input = "gone"
  provisioner "local-exec" {{
    when    = destroy
    command = "printf '%s-%s' '${{self.output}}' '${{count.index}}' > destroyed.txt; exit {exit}"
  }}
}}
"#
        )
    };
    let failing = config("1");
    let mut h = Harness::new(&[("main.tf", failing.as_str())]);
    let (diags, events) = run(&mut h, PlanMode::Normal);
    assert!(!has_errors(&diags), "{diags:#?}");
    assert!(
        !events.iter().any(|e| e.contains("provisioning")),
        "{events:?}"
    );

    let (diags, _) = run(&mut h, PlanMode::Destroy);
    assert_eq!(
        errors(&diags)
            .iter()
            .map(|(s, _)| s.as_str())
            .collect::<Vec<_>>(),
        ["local-exec provisioner error"]
    );
    assert_eq!(read(&h, "destroyed.txt"), "gone-0");
    assert_eq!(status(&h, "terraform_data.a[0]"), Some(ObjectStatus::Ready));

    let passing = config("0");
    h.rewrite(&[("main.tf", passing.as_str())]);
    let _ = std::fs::remove_file(h.dir.join("destroyed.txt"));
    let (diags, events) = run(&mut h, PlanMode::Destroy);
    assert!(!has_errors(&diags), "{diags:#?}");
    assert_eq!(read(&h, "destroyed.txt"), "gone-0");
    assert_eq!(status(&h, "terraform_data.a[0]"), None);
    let order: Vec<&str> = events
        .iter()
        .map(String::as_str)
        .filter(|e| !e.contains("(local-exec)"))
        .collect();
    assert_eq!(
        order,
        [
            "terraform_data.a[0]: start Delete",
            "terraform_data.a[0]: provisioning local-exec",
            "terraform_data.a[0]: finish Delete ok=true",
        ]
    );
}

#[test]
fn destroy_time_may_not_refer_to_other_objects() {
    let dir = support::write_dir(&[(
        "main.tf",
        r#"
resource "terraform_data" "b" {}
resource "terraform_data" "a" {
  provisioner "local-exec" {
    when    = destroy
    command = "echo ${terraform_data.b.id}"
  }
}
"#,
    )]);
    let v = terrace_config::validation::load_and_validate(&dir, &Default::default(), None);
    assert_eq!(
        errors(&v.diagnostics)
            .iter()
            .map(|(s, _)| s.as_str())
            .collect::<Vec<_>>(),
        ["Invalid reference from destroy provisioner"]
    );
}

#[test]
fn validate_refuses_what_cannot_run() {
    let cases: &[(&str, &[&str])] = &[
        (
            r#"provisioner "file" {
    source      = "a"
    destination = "/tmp/a"
  }"#,
            &["Unsupported provisioner"],
        ),
        (
            r#"provisioner "remote-exec" {
    inline = ["true"]
  }"#,
            &["Unsupported provisioner"],
        ),
        (
            r#"provisioner "foo" {}"#,
            &["Missing required provisioner plugin"],
        ),
        (
            r#"provisioner "local-exec" {
    bogus = 1
  }"#,
            &["Missing required argument", "Unsupported argument"],
        ),
        (
            r#"provisioner "local-exec" {
    command = ""
  }"#,
            &["Invalid local-exec provisioner command"],
        ),
        (
            r#"provisioner "local-exec" {
    command = "echo ${self.nope}"
  }"#,
            &["Unsupported attribute"],
        ),
        (
            r#"provisioner "local-exec" {
    command = "echo ${self.id} ${terraform_data.b.id}"
  }"#,
            &[],
        ),
    ];
    for (block, want) in cases {
        let text = format!(
            "resource \"terraform_data\" \"b\" {{}}\nresource \"terraform_data\" \"a\" {{\n  {block}\n}}\n"
        );
        let h = Harness::new(&[("main.tf", text.as_str())]);
        let diags = terrace_engine::validate(&h.context(&[]));
        let mut got: Vec<String> = errors(&diags).into_iter().map(|(s, _)| s).collect();
        got.sort();
        assert_eq!(got, *want, "{block}");
    }
}

#[test]
fn create_time_references_order_the_graph() {
    let mut h = Harness::new(&[(
        "main.tf",
        r#"
resource "terraform_data" "first" {
  input = "one"
}
resource "terraform_data" "second" {
  provisioner "local-exec" {
    command = "printf '%s' '${terraform_data.first.output}' > ref.txt"
  }
}
"#,
    )]);
    let (diags, _) = run(&mut h, PlanMode::Normal);
    assert!(!has_errors(&diags), "{diags:#?}");
    assert_eq!(read(&h, "ref.txt"), "one");
}
