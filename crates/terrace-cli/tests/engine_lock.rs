//! Concurrent commands on one state: while a `terrace apply` holds the
//! state lock, a second `terrace apply` (and a `terrace plan`) is refused
//! at once with terraform's "Error acquiring the state lock" message,
//! naming the holder's lock, and exit status 1; the first apply completes
//! and the state then holds everything it created; the refused apply's
//! change is then applied normally. The lock is also the one terraform
//! uses: terraform is refused while terrace holds it, and terrace while
//! terraform holds it.
//!
//! The holder is kept inside its apply by the kv provider: its creates wait
//! while the namespace's `.lock` file exists, and the test removes that
//! file once the contender has been refused.

mod engine_support;

use engine_support::{have_terraform, wait_until, Overrides, Run, Running, Work};
use std::collections::BTreeSet;
use std::time::Duration;

const MAIN_TF: &str = r#"
terraform {
  required_providers {
    kv = { source = "terrace/kv" }
  }
}

provider "kv" {
  directory = "${path.module}/store"
}

variable "n" {
  type    = number
  default = 20
}

resource "kv_entry" "e" {
  count = var.n
  key   = "k${count.index}"
  value = "v${count.index}"
}
"#;

const HOLD: &str = "store/default/.lock";

fn stored_keys(work: &Work) -> BTreeSet<String> {
    std::fs::read_dir(work.path("store/default"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| {
            !name.starts_with('.') && !name.ends_with(".tmp") && !name.ends_with(".tags")
        })
        .collect()
}

fn keys(n: usize) -> BTreeSet<String> {
    (0..n).map(|i| format!("k{i}")).collect()
}

/// The lock holder's ID from the lock info file next to the state.
fn lock_id(work: &Work) -> String {
    let text = std::fs::read_to_string(work.path(".terraform.tfstate.lock.info"))
        .expect("the lock holder wrote .terraform.tfstate.lock.info");
    let info: serde_json::Value = serde_json::from_str(&text).expect("lock info is JSON");
    info["ID"]
        .as_str()
        .expect("lock info has an ID")
        .to_string()
}

/// Starts an apply that holds the lock until `HOLD` goes; returns once it
/// is inside the apply (its first create started).
fn hold(work: &Work, start: impl FnOnce() -> Running) -> Running {
    work.write(HOLD, "held by the test\n");
    let running = start();
    wait_until(
        "the first apply to start creating",
        Duration::from_secs(120),
        || running.stdout(),
        |out| out.contains(": Creating..."),
    );
    running
}

/// The refusal terraform 1.11 prints for a local state whose lock is held
/// (stderr; exit status 1).
fn assert_refused(run: &Run, holder_id: &str, tool: &str) {
    assert_eq!(run.code, Some(1), "{tool}:\n{}", run.output());
    // Each tool names itself in the advice.
    let err = &terrace_testsupport::product::as_terrace(&run.stderr);
    for expected in [
        "Error: Error acquiring the state lock",
        "Error message: resource temporarily unavailable",
        "Lock Info:",
        &format!("  ID:        {holder_id}\n"),
        "  Path:      terraform.tfstate\n",
        "  Operation: OperationTypeApply\n",
        "  Version:   1.11.4\n",
        "terrace acquires a state lock to protect the state from being written\n\
         by multiple users at the same time. Please resolve the issue above and try\n\
         again. For most commands, you can disable locking with the \"-lock=false\"\n\
         flag, but this is not recommended.",
    ] {
        assert!(
            err.contains(expected),
            "{tool}: no {expected:?} in:\n{}",
            run.output()
        );
    }
}

#[test]
fn second_apply_is_refused_by_the_lock_and_nothing_is_lost() {
    let work = Work::new(
        "lock",
        Overrides {
            bundled: true,
            aws: false,
        },
    );
    work.write("main.tf", MAIN_TF);

    let first = hold(&work, || work.spawn_terrace(&["apply", "-auto-approve"]));
    let holder = lock_id(&work);
    let second = work.terrace(&["apply", "-auto-approve", "-var", "n=30"]);
    assert_refused(&second, &holder, "terrace apply");
    assert!(
        !second.stdout.contains("Creating..."),
        "{}",
        second.output()
    );
    let plan = work.terrace(&["plan"]);
    assert_refused(&plan, &holder, "terrace plan");
    assert_eq!(
        lock_id(&work),
        holder,
        "the refused commands left the lock alone"
    );

    std::fs::remove_file(work.path(HOLD)).expect("releasing the kv lock");
    let first = first.finish(Duration::from_secs(300));
    assert_eq!(first.code, Some(0), "{}", first.output());
    assert!(
        first
            .stdout
            .contains("Apply complete! Resources: 20 added, 0 changed, 0 destroyed."),
        "{}",
        first.output()
    );
    assert!(
        !work.path(".terraform.tfstate.lock.info").exists(),
        "the first apply released its lock"
    );
    assert_eq!(stored_keys(&work), keys(20));
    let in_state: BTreeSet<String> = work.state_addresses().into_iter().collect();
    let expected: BTreeSet<String> = (0..20).map(|i| format!("kv_entry.e[{i}]")).collect();
    assert_eq!(in_state, expected);

    // The refused change, run again, goes through on top of the first.
    let run = work.terrace_ok(&["apply", "-auto-approve", "-var", "n=30"], 0);
    assert!(
        run.stdout
            .contains("Apply complete! Resources: 10 added, 0 changed, 0 destroyed."),
        "{}",
        run.output()
    );
    assert_eq!(stored_keys(&work), keys(30));
    assert_eq!(work.state_addresses().len(), 30);
    work.terrace_ok(&["plan", "-detailed-exitcode", "-var", "n=30"], 0);
}

#[test]
fn terraform_and_terrace_respect_each_others_lock() {
    if !have_terraform() {
        return;
    }
    let work = Work::new(
        "lock-interop",
        Overrides {
            bundled: true,
            aws: false,
        },
    );
    work.write("main.tf", MAIN_TF);

    // terrace holds the lock: terraform is refused.
    let first = hold(&work, || {
        work.spawn_terrace(&["apply", "-auto-approve", "-var", "n=5"])
    });
    let holder = lock_id(&work);
    let refused = work.terraform(&["apply", "-auto-approve", "-input=false", "-var", "n=5"]);
    assert_refused(&refused, &holder, "terraform apply");
    std::fs::remove_file(work.path(HOLD)).expect("releasing the kv lock");
    let first = first.finish(Duration::from_secs(300));
    assert_eq!(first.code, Some(0), "{}", first.output());
    assert_eq!(stored_keys(&work), keys(5));

    // terraform holds the lock: terrace is refused.
    work.write(HOLD, "held by the test\n");
    let holder_run =
        work.spawn_terraform(&["apply", "-auto-approve", "-input=false", "-var", "n=8"]);
    wait_until(
        "terraform to start creating",
        Duration::from_secs(120),
        || holder_run.stdout(),
        |out| out.contains(": Creating..."),
    );
    let holder = lock_id(&work);
    let refused = work.terrace(&["apply", "-auto-approve", "-var", "n=8"]);
    assert_refused(&refused, &holder, "terrace apply");
    std::fs::remove_file(work.path(HOLD)).expect("releasing the kv lock");
    let done = holder_run.finish(Duration::from_secs(300));
    assert_eq!(done.code, Some(0), "{}", done.output());
    assert_eq!(stored_keys(&work), keys(8));
    assert_eq!(work.state_addresses().len(), 8);
    work.terrace_ok(&["plan", "-detailed-exitcode", "-var", "n=8"], 0);
}
