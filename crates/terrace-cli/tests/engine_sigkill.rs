//! `terrace apply` killed with SIGKILL while it creates 200 resources
//! loses none of the objects the provider created: the next command
//! (here `plan -refresh=false`) folds what the apply recorded into the
//! state, which then holds every entry that exists in the kv store, and
//! the plan proposes creating only the missing ones.
//!
//! To kill at a point where "created" is well defined, the 200 entries are
//! split over two kv namespaces: 196 in one that is free and 4 in one whose
//! `.lock` file makes the provider hold their creates. The kill comes once
//! the 196 exist in the store and the 4 have started ("Creating...") and
//! wait in the provider, so the apply is mid-way with creates in flight.
//! (A kill landing between a provider writing an object and answering is
//! unobservable to any client; this layout keeps the test away from that
//! window so it is deterministic.)

mod engine_support;

use engine_support::{wait_until, Overrides, Work};
use std::collections::BTreeSet;
use std::time::Duration;

const FAST: usize = 196;
const SLOW: usize = 4;

fn main_tf() -> String {
    format!(
        r#"
terraform {{
  required_providers {{
    kv = {{ source = "terrace/kv" }}
  }}
}}

provider "kv" {{
  directory = "${{path.module}}/store"
  namespace = "fast"
}}

provider "kv" {{
  alias     = "slow"
  directory = "${{path.module}}/store"
  namespace = "slow"
}}

resource "kv_entry" "fast" {{
  count = {FAST}
  key   = "k${{count.index}}"
  value = "v${{count.index}}"
}}

resource "kv_entry" "slow" {{
  count    = {SLOW}
  provider = kv.slow
  key      = "s${{count.index}}"
  value    = "v${{count.index}}"
}}
"#
    )
}

/// The keys with a value in a namespace of the store (not the lock, tags
/// or temporary files).
fn stored_keys(work: &Work, namespace: &str) -> BTreeSet<String> {
    std::fs::read_dir(work.path(&format!("store/{namespace}")))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| {
            !name.starts_with('.') && !name.ends_with(".tmp") && !name.ends_with(".tags")
        })
        .collect()
}

/// How many `kv_entry.fast` objects the apply has recorded durably.
fn journaled(work: &Work) -> usize {
    std::fs::read_to_string(work.path("terraform.tfstate.journal"))
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains("\"addr\":\"kv_entry.fast["))
        .count()
}

fn process_alive(pid: i32) -> bool {
    // A zombie is dead; whatever adopted it reaps it.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rfind(')')
            .and_then(|i| stat[i + 1..].split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X"),
        Err(_) => false,
    }
}

#[test]
fn state_holds_every_created_object_after_sigkill() {
    let work = Work::new(
        "sigkill",
        Overrides {
            bundled: true,
            aws: false,
        },
    );
    work.write("main.tf", &main_tf());
    work.write("store/slow/.lock", "held by the test\n");

    let apply = work.spawn_terrace(&["apply", "-auto-approve", "-parallelism=8"]);
    let (seen, _, _) = wait_until(
        "the free namespace filled and the held creates started",
        Duration::from_secs(300),
        || {
            let stdout = apply.stdout();
            let slow_started = (0..SLOW)
                .filter(|i| stdout.contains(&format!("kv_entry.slow[{i}]: Creating...")))
                .count();
            (
                stored_keys(&work, "fast").len(),
                journaled(&work),
                slow_started,
            )
        },
        |&(stored, journaled, slow_started)| {
            stored == FAST && journaled == FAST && slow_started == SLOW
        },
    );
    assert_eq!(seen, FAST);
    let providers = apply.children();
    assert!(!providers.is_empty(), "the apply runs provider plugins");
    let mut apply = apply;
    apply.child.kill().expect("SIGKILL to terrace");
    let killed = apply.child.wait().expect("reaping terrace");
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&killed),
        Some(libc::SIGKILL)
    );
    // The plugins outlive a SIGKILLed parent (as terraform's do); the held
    // ones would create their entries once the lock goes, so end them.
    for pid in &providers {
        // SAFETY: kill(2) with a pid this test's child started.
        unsafe {
            libc::kill(*pid, libc::SIGKILL);
        }
    }
    wait_until(
        "the orphaned provider plugins to end",
        Duration::from_secs(30),
        || {
            providers
                .iter()
                .copied()
                .filter(|p| process_alive(*p))
                .collect::<Vec<_>>()
        },
        |alive| alive.is_empty(),
    );
    drop(apply);

    let created = stored_keys(&work, "fast");
    assert_eq!(created.len(), FAST);
    assert!(stored_keys(&work, "slow").is_empty());

    // The next command recovers what the killed apply recorded.
    let plan = work.terrace(&["plan", "-refresh=false", "-detailed-exitcode"]);
    assert_eq!(plan.code, Some(2), "{}", plan.output());
    assert!(
        plan.stdout
            .contains(&format!("Plan: {SLOW} to add, 0 to change, 0 to destroy.")),
        "only the missing entries are to be created:\n{}",
        plan.output()
    );
    for i in 0..SLOW {
        assert!(
            plan.stdout
                .contains(&format!("# kv_entry.slow[{i}] will be created")),
            "{}",
            plan.output()
        );
    }
    let in_state: BTreeSet<String> = work
        .state_addresses()
        .into_iter()
        .filter(|a| a.starts_with("kv_entry.fast["))
        .collect();
    let expected: BTreeSet<String> = created
        .iter()
        .map(|key| {
            let index: usize = key[1..].parse().expect("keys are k<index>");
            format!("kv_entry.fast[{index}]")
        })
        .collect();
    assert_eq!(
        in_state, expected,
        "the state holds exactly the created entries"
    );
    let state = work.state();
    for resource in state["resources"].as_array().into_iter().flatten() {
        for instance in resource["instances"].as_array().into_iter().flatten() {
            let index = instance["index_key"].as_u64().unwrap_or(u64::MAX);
            assert_eq!(
                instance["attributes"]["id"],
                format!("fast/k{index}"),
                "{instance}"
            );
            assert_eq!(instance["attributes"]["value"], format!("v{index}"));
        }
    }

    // With the lock gone the rest is created and nothing is left to do.
    std::fs::remove_file(work.path("store/slow/.lock")).expect("removing the lock");
    let run = work.terrace_ok(&["apply", "-auto-approve"], 0);
    assert!(
        run.stdout.contains(&format!(
            "Apply complete! Resources: {SLOW} added, 0 changed, 0 destroyed."
        )),
        "{}",
        run.output()
    );
    assert_eq!(stored_keys(&work, "slow").len(), SLOW);
    assert_eq!(work.state_addresses().len(), FAST + SLOW);
    let plan = work.terrace_ok(&["plan", "-detailed-exitcode"], 0);
    assert!(plan.stdout.contains("No changes."), "{}", plan.output());
}
