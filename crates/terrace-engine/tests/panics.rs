//! A panic anywhere in a walk (here: inside provider calls, through the
//! fake provider) is a bug, but it must end the run with an "Internal
//! error" naming what was being worked on: not hang the walk's scheduler
//! waiting for a job that will never report, and not lose what the run did
//! before it.

mod support;

use std::sync::mpsc;
use std::time::Duration;
use support::{
    actions, state_addrs, Harness, PANIC_DURING_APPLY, PANIC_DURING_CONFIGURE, PANIC_DURING_PLAN,
};
use terrace_syntax::{Diagnostic, Diagnostics};

const FAKE_REQ: &str = r#"
terraform {
  required_providers {
    fake = { source = "hashicorp/fake" }
  }
}
"#;

/// Far above what any of these runs takes: only there so that a walk that
/// hangs (the failure this file guards against) fails the test instead of
/// stalling CI.
const HANG_BOUND: Duration = Duration::from_secs(300);

/// Runs `work` on its own thread; a run that does not come back within
/// [`HANG_BOUND`] is reported as hung.
fn without_hanging<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(work());
    });
    match rx.recv_timeout(HANG_BOUND) {
        Ok(result) => result,
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("the walk hung after a panic"),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            panic!("the panic escaped the walk instead of becoming an error")
        }
    }
}

fn internal_errors(diags: &Diagnostics) -> Vec<&Diagnostic> {
    diags
        .iter()
        .filter(|d| d.summary == "Internal error")
        .collect()
}

fn assert_one_internal_error(diags: &Diagnostics, object: &str, message: &str) {
    let found = internal_errors(diags);
    assert_eq!(found.len(), 1, "{diags:#?}");
    let detail = &found[0].detail;
    assert!(
        detail.contains(&format!("while working on {object}: {message}")),
        "{detail}"
    );
    assert!(detail.contains("This is a bug in terrace"), "{detail}");
}

#[test]
fn a_panic_while_planning_a_resource_ends_the_plan_with_an_error() {
    let main = format!(
        "resource \"fake_thing\" \"bad\" {{ input = \"{PANIC_DURING_PLAN}\" }}\nresource \"fake_thing\" \"dep\" {{ input = fake_thing.bad.output }}\n"
    );
    let (plan, diags, started, closed) = without_hanging(move || {
        let h = Harness::new(&[("versions.tf", FAKE_REQ), ("main.tf", &main)]);
        let (plan, diags) = h.plan_with(&[], &Default::default());
        let count = |c: &std::sync::atomic::AtomicU64| c.load(std::sync::atomic::Ordering::SeqCst);
        (plan, diags, count(&h.cloud.started), count(&h.cloud.closed))
    });
    assert_one_internal_error(
        &diags,
        "fake_thing.bad",
        "the fake provider panics while planning",
    );
    assert!(plan.errored);
    // Every provider instance started was closed all the same.
    assert!(
        started > 0 && closed == started,
        "{started} started, {closed} closed"
    );
    // What depends on the failed resource was not planned.
    assert!(!actions(&plan)
        .iter()
        .any(|a| a.starts_with("fake_thing.dep")));
}

#[test]
fn a_panic_while_configuring_a_provider_ends_the_plan_with_an_error() {
    let main = format!(
        "provider \"fake\" {{ region = \"{PANIC_DURING_CONFIGURE}\" }}\nresource \"fake_thing\" \"a\" {{ input = \"a\" }}\n"
    );
    let (plan, diags) = without_hanging(move || {
        let h = Harness::new(&[("versions.tf", FAKE_REQ), ("main.tf", &main)]);
        h.plan_with(&[], &Default::default())
    });
    assert_one_internal_error(
        &diags,
        "provider[\"registry.terraform.io/hashicorp/fake\"]",
        "the fake provider panics while being configured",
    );
    assert!(plan.errored);
}

#[test]
fn a_panic_while_applying_keeps_what_was_applied_before_it() {
    let main = format!(
        "resource \"fake_thing\" \"first\" {{ input = \"first\" }}\nresource \"fake_thing\" \"bad\" {{\n  input      = \"{PANIC_DURING_APPLY}\"\n  depends_on = [fake_thing.first]\n}}\nresource \"fake_thing\" \"after\" {{ input = fake_thing.bad.output }}\n"
    );
    let (state, diags) = without_hanging(move || {
        let h = Harness::new(&[("versions.tf", FAKE_REQ), ("main.tf", &main)]);
        let plan = h.plan(&[]);
        assert_eq!(
            actions(&plan),
            [
                "fake_thing.after Create",
                "fake_thing.bad Create",
                "fake_thing.first Create"
            ]
        );
        terrace_engine::apply(&h.context(&[]), &plan, &terrace_engine::NoHooks)
    });
    assert_one_internal_error(
        &diags,
        "fake_thing.bad",
        "the fake provider panics while applying",
    );
    // The object created before the panic is in the state; nothing after.
    assert_eq!(state_addrs(&state), ["fake_thing.first"]);
}
