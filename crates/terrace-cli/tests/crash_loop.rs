//! A 300-object apply killed with SIGKILL twenty times at pseudo-random
//! moments (after a pseudo-random number of objects were reported
//! created), each time resumed by the next apply: no object the apply
//! reported created is ever missing from the state afterwards, no object
//! is created twice, and the last apply completes with the state matching
//! the store exactly. Run once alone and once with `plan -lock=false`
//! running beside the applies the whole time, which must never lose or
//! fold anything.
//!
//! A create whose provider finished but whose answer never reached
//! terrace (the kill landed in between) is unobservable to any client:
//! such objects are told apart by their "Creating..." without a
//! "Creation complete", are counted, and are imported as a person would
//! before the loop goes on.

mod engine_support;

use engine_support::{wait_until, Overrides, Run, Running, Work};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

const COUNT: usize = 300;
const KILLS: usize = 20;

const CONFIG: &str = r#"
terraform {
  required_providers {
    kv = { source = "terrace/kv" }
  }
}

provider "kv" {
  directory = "${path.module}/store"
}

resource "kv_entry" "e" {
  count = 300
  key   = "k${count.index}"
  value = "v${count.index}"
}
"#;

/// A small deterministic generator (xorshift64*), so that a failure
/// reproduces with the same kill points.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n.max(1)
    }
}

fn stored_keys(work: &Work) -> BTreeSet<usize> {
    std::fs::read_dir(work.path("store/default"))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.strip_prefix('k')
                .filter(|rest| !rest.contains('.'))
                .and_then(|rest| rest.parse().ok())
        })
        .collect()
}

fn state_indexes(work: &Work) -> BTreeSet<usize> {
    if work.state_bytes().is_empty() {
        return BTreeSet::new();
    }
    work.state_addresses()
        .iter()
        .filter_map(|a| {
            a.strip_prefix("kv_entry.e[")
                .and_then(|r| r.strip_suffix(']'))
                .and_then(|i| i.parse().ok())
        })
        .collect()
}

/// Indexes whose line `kv_entry.e[i]: <what>` the output holds.
fn reported(stdout: &str, what: &str) -> BTreeSet<usize> {
    stdout
        .lines()
        .filter(|l| l.contains(what))
        .filter_map(|l| {
            l.strip_prefix("kv_entry.e[")
                .and_then(|r| r.split(']').next())
                .and_then(|i| i.parse().ok())
        })
        .collect()
}

fn kill_tree(mut apply: Running) -> String {
    // The plugins first, so that no create finishes after terrace is gone.
    for pid in apply.children() {
        // SAFETY: kill(2) on a process this test's child started.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
        }
    }
    let _ = apply.child.kill();
    let _ = apply.child.wait();
    let stdout = apply.stdout();
    drop(apply);
    stdout
}

fn crash_loop(name: &str, with_unlocked_plans: bool) {
    let work = Work::new(
        name,
        Overrides {
            bundled: true,
            aws: false,
        },
    );
    work.write("main.tf", CONFIG);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ with_unlocked_plans as u64);
    let stop_plans = AtomicBool::new(false);
    let mut unobservable = 0usize;
    let mut unlocked_plans = 0usize;

    std::thread::scope(|scope| {
        let plans = with_unlocked_plans.then(|| {
            scope.spawn(|| {
                let mut runs = 0usize;
                while !stop_plans.load(Ordering::SeqCst) {
                    let plan = work.terrace(&["plan", "-lock=false", "-refresh=false"]);
                    assert_eq!(plan.code, Some(0), "plan -lock=false: {}", plan.output());
                    runs += 1;
                }
                runs
            })
        });

        for kill in 0..KILLS {
            let done_before = state_indexes(&work).len();
            let remaining = COUNT - done_before;
            if remaining == 0 {
                break;
            }
            let target = rng.below(remaining as u64) as usize;
            let apply = work.spawn_terrace(&["apply", "-auto-approve"]);
            wait_until(
                "the apply to report the objects chosen for this kill",
                Duration::from_secs(300),
                || {
                    let out = apply.stdout();
                    (
                        reported(&out, ": Creation complete").len(),
                        apply.stdout().contains("Apply complete!"),
                    )
                },
                |(created, finished)| *created >= target || *finished,
            );
            std::thread::sleep(Duration::from_micros(rng.below(3000)));
            let stdout = kill_tree(apply);
            let completed = reported(&stdout, ": Creation complete");
            let started = reported(&stdout, ": Creating...");

            // The next command holding the lock recovers the journal.
            let recover = work.terrace(&["plan", "-refresh=false"]);
            assert_eq!(recover.code, Some(0), "kill {kill}: {}", recover.output());
            let in_state = state_indexes(&work);
            let lost: Vec<_> = completed.difference(&in_state).collect();
            assert!(
                lost.is_empty(),
                "kill {kill}: reported created but not in the state: {lost:?}"
            );
            // Created by the provider, never answered: only creates that
            // were under way at the kill.
            let orphans: Vec<usize> = stored_keys(&work).difference(&in_state).copied().collect();
            for index in &orphans {
                assert!(
                    started.contains(index) && !completed.contains(index),
                    "kill {kill}: kv_entry.e[{index}] exists, is not in the state, and was not in flight"
                );
                let addr = format!("kv_entry.e[{index}]");
                let id = format!("default/k{index}");
                let import = work.terrace(&["import", &addr, &id]);
                assert_eq!(import.code, Some(0), "{}", import.output());
            }
            unobservable += orphans.len();
        }

        let last: Run = work.terrace(&["apply", "-auto-approve"]);
        assert_eq!(last.code, Some(0), "the last apply: {}", last.output());
        stop_plans.store(true, Ordering::SeqCst);
        if let Some(plans) = plans {
            unlocked_plans = plans.join().expect("the plan -lock=false loop");
        }
    });

    let all: BTreeSet<usize> = (0..COUNT).collect();
    assert_eq!(stored_keys(&work), all, "every entry exists once");
    assert_eq!(state_indexes(&work), all, "every entry is in the state");
    let plan = work.terrace(&["plan", "-detailed-exitcode"]);
    assert_eq!(plan.code, Some(0), "no changes left: {}", plan.output());
    assert!(!work.path("terraform.tfstate.journal").exists());
    eprintln!(
        "{name}: {KILLS} kills, {unobservable} creates unobservable at the kill (imported), \
         {unlocked_plans} plans run with -lock=false beside them"
    );
}

#[test]
fn twenty_kills_lose_and_duplicate_nothing() {
    crash_loop("crash-loop", false);
}

#[test]
fn twenty_kills_beside_unlocked_plans_lose_and_duplicate_nothing() {
    crash_loop("crash-loop-unlocked", true);
}
