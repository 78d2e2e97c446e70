//! The `http` backend against a state server in this test: terraform and
//! terrace take turns on one remote state (each plans "No changes" after
//! the other's apply), each is refused while the other holds the lock
//! with terraform's message, `force-unlock` removes the lock a SIGKILLed
//! apply left, `init -migrate-state` moves a local state in and out, and a
//! server that fails while an apply records its results leaves the state
//! in `errored.tfstate`.

mod backend_support;
mod engine_support;

use backend_support::HttpStateServer;
use engine_support::{have_terraform, wait_until, Run, Work};
use std::time::Duration;

fn main_tf(backend: &str) -> String {
    format!(
        r#"
terraform {{
  required_providers {{
    kv = {{ source = "terrace/kv" }}
  }}
{backend}}}

provider "kv" {{
  directory = "${{path.module}}/store"
}}

variable "n" {{
  type    = number
  default = 3
}}

resource "kv_entry" "e" {{
  count = var.n
  key   = "k${{count.index}}"
  value = "v${{count.index}}"
}}

output "count" {{
  value = length(kv_entry.e)
}}
"#
    )
}

const HOLD: &str = "store/default/.lock";

/// A working directory whose `init` installs the bundled providers from a
/// filesystem mirror, as both tools need `init` for a backend.
fn work(name: &str) -> Work {
    Work::with_mirror(name)
}

fn resources_in(state: &serde_json::Value) -> usize {
    state["resources"]
        .as_array()
        .map(|r| {
            r.iter()
                .map(|r| r["instances"].as_array().map_or(0, Vec::len))
                .sum()
        })
        .unwrap_or(0)
}

fn assert_lock_refusal(run: &Run, holder_id: &str, tool: &str) {
    assert_eq!(run.code, Some(1), "{tool}:\n{}", run.output());
    // The message is wrapped at terraform's width; the holder's ID is in
    // it, the metadata block is the refused attempt's own.
    let unwrapped = run.stderr.replace('\n', " ");
    for expected in [
        "Error: Error acquiring the state lock",
        &format!("HTTP remote state already locked: ID={holder_id}"),
        "Lock Info:",
        "Operation: OperationTypeApply",
    ] {
        assert!(
            unwrapped.contains(expected),
            "{tool}: no {expected:?} in:\n{}",
            run.output()
        );
    }
    // Each tool names itself in the advice.
    let advice = "terrace acquires a state lock to protect the state from being written";
    assert_eq!(
        terrace_testsupport::product::as_terrace(&run.stderr)
            .matches(advice)
            .count(),
        1,
        "{tool}: the advice once:\n{}",
        run.output()
    );
}

#[test]
fn terraform_and_terrace_take_turns_on_one_http_state() {
    if !have_terraform() {
        return;
    }
    let server = HttpStateServer::start();
    let work = work("http-interop");
    work.write("main.tf", &main_tf(&server.backend_block()));

    work.terraform_ok(&["init", "-input=false"], 0);
    work.terraform_ok(&["apply", "-auto-approve", "-input=false"], 0);
    let by_terraform = server.state().expect("terraform stored a state");
    assert_eq!(resources_in(&by_terraform), 3);

    // terraform's `init` is current for terrace as it stands: the same
    // configuration hash.
    work.terrace_ok(&["plan", "-detailed-exitcode"], 0);
    let run = work.terrace_ok(&["apply", "-auto-approve", "-var", "n=5"], 0);
    assert!(
        run.stdout
            .contains("Apply complete! Resources: 2 added, 0 changed, 0 destroyed."),
        "{}",
        run.output()
    );
    let by_terrace = server.state().expect("terrace stored a state");
    assert_eq!(resources_in(&by_terrace), 5);
    assert_eq!(by_terrace["lineage"], by_terraform["lineage"]);
    assert!(by_terrace["serial"].as_u64() > by_terraform["serial"].as_u64());
    assert!(server.lock_info().is_none(), "terrace released its lock");
    work.terraform_ok(
        &["plan", "-detailed-exitcode", "-input=false", "-var", "n=5"],
        0,
    );
    let out = work.terrace_ok(&["output", "-raw", "count"], 0);
    assert_eq!(out.stdout, "5");
    let list = work.terrace_ok(&["state", "list"], 0);
    assert_eq!(list.stdout.lines().count(), 5, "{}", list.output());

    // terrace holds the lock: terraform is refused with terraform's
    // message naming terrace's lock.
    work.write(HOLD, "held by the test\n");
    let holder = work.spawn_terrace(&["apply", "-auto-approve", "-var", "n=6"]);
    wait_until(
        "terrace's apply to start creating",
        Duration::from_secs(120),
        || holder.stdout(),
        |out| out.contains(": Creating..."),
    );
    let lock = server.lock_info().expect("terrace holds the lock");
    let id = lock["ID"].as_str().expect("lock ID").to_string();
    let refused = work.terraform(&["apply", "-auto-approve", "-input=false", "-var", "n=6"]);
    assert_lock_refusal(&refused, &id, "terraform apply");
    std::fs::remove_file(work.path(HOLD)).expect("releasing the kv lock");
    let done = holder.finish(Duration::from_secs(300));
    assert_eq!(done.code, Some(0), "{}", done.output());

    // terraform holds the lock: terrace is refused the same way.
    work.write(HOLD, "held by the test\n");
    let holder = work.spawn_terraform(&["apply", "-auto-approve", "-input=false", "-var", "n=7"]);
    wait_until(
        "terraform's apply to start creating",
        Duration::from_secs(120),
        || holder.stdout(),
        |out| out.contains(": Creating..."),
    );
    let lock = server.lock_info().expect("terraform holds the lock");
    let id = lock["ID"].as_str().expect("lock ID").to_string();
    let refused = work.terrace(&["apply", "-auto-approve", "-var", "n=7"]);
    assert_lock_refusal(&refused, &id, "terrace apply");
    std::fs::remove_file(work.path(HOLD)).expect("releasing the kv lock");
    let done = holder.finish(Duration::from_secs(300));
    assert_eq!(done.code, Some(0), "{}", done.output());
    work.terrace_ok(&["plan", "-detailed-exitcode", "-var", "n=7"], 0);
}

#[test]
fn force_unlock_removes_the_lock_of_a_killed_apply() {
    let server = HttpStateServer::start();
    let work = work("http-force-unlock");
    work.write("main.tf", &main_tf(&server.backend_block()));
    work.terrace_ok(&["init", "-input=false"], 0);

    work.write(HOLD, "held by the test\n");
    let mut apply = work.spawn_terrace(&["apply", "-auto-approve"]);
    wait_until(
        "the apply to start creating",
        Duration::from_secs(120),
        || apply.stdout(),
        |out| out.contains(": Creating..."),
    );
    let children = apply.children();
    apply.child.kill().expect("SIGKILL to terrace");
    let _ = apply.child.wait();
    for pid in children {
        // SAFETY: kill(2) on a provider process this test's child started.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
        }
    }
    std::fs::remove_file(work.path(HOLD)).expect("releasing the kv lock");
    let lock = server.lock_info().expect("the killed apply left its lock");
    let id = lock["ID"].as_str().expect("lock ID").to_string();

    let refused = work.terrace(&["plan"]);
    assert_eq!(refused.code, Some(1), "{}", refused.output());
    assert!(
        refused.stderr.contains("Error acquiring the state lock"),
        "{}",
        refused.output()
    );
    let wrong = work.terrace(&["force-unlock", "-force", "not-the-id"]);
    assert_eq!(wrong.code, Some(1), "{}", wrong.output());
    assert!(server.lock_info().is_some(), "a wrong ID unlocks nothing");
    let run = work.terrace_ok(&["force-unlock", "-force", &id], 0);
    assert!(
        run.stdout.contains("state has been successfully unlocked!"),
        "{}",
        run.output()
    );
    assert!(server.lock_info().is_none());
    // The journal of the killed apply is folded in by the next locked
    // command: nothing it created is lost.
    let run = work.terrace_ok(&["apply", "-auto-approve"], 0);
    assert!(run.stdout.contains("Apply complete!"), "{}", run.output());
    let state = server.state().expect("a state");
    assert_eq!(resources_in(&state), 3);
    work.terrace_ok(&["plan", "-detailed-exitcode"], 0);
}

#[test]
fn state_migrates_from_local_to_http_and_back() {
    let server = HttpStateServer::start();
    let work = work("http-migrate");
    work.write("main.tf", &main_tf(""));
    work.terrace_ok(&["init", "-input=false"], 0);
    work.terrace_ok(&["apply", "-auto-approve"], 0);
    let local: serde_json::Value =
        serde_json::from_slice(&work.state_bytes()).expect("a local state");

    work.write("main.tf", &main_tf(&server.backend_block()));
    let refused = work.terrace(&["plan"]);
    assert_eq!(refused.code, Some(1), "{}", refused.output());
    assert!(
        refused.stderr.contains("Backend initialization required"),
        "{}",
        refused.output()
    );
    let run = work.terrace_ok(&["init", "-input=false", "-force-copy"], 0);
    assert!(
        run.stdout
            .contains("Successfully configured the backend \"http\"!"),
        "{}",
        run.output()
    );
    let remote = server.state().expect("the state moved to the server");
    assert_eq!(remote["lineage"], local["lineage"]);
    assert_eq!(remote["serial"], local["serial"]);
    assert_eq!(remote["resources"], local["resources"]);
    work.terrace_ok(&["plan", "-detailed-exitcode"], 0);

    work.write("main.tf", &main_tf(""));
    work.terrace_ok(
        &["init", "-input=false", "-migrate-state", "-force-copy"],
        0,
    );
    let back: serde_json::Value =
        serde_json::from_slice(&work.state_bytes()).expect("the state came back");
    assert_eq!(back["lineage"], local["lineage"]);
    assert_eq!(back["serial"], local["serial"]);
    assert_eq!(back["resources"], local["resources"]);
    work.terrace_ok(&["plan", "-detailed-exitcode"], 0);
}

#[test]
fn a_backend_failing_mid_apply_leaves_errored_state() {
    let server = HttpStateServer::start();
    let work = work("http-errored");
    work.write("main.tf", &main_tf(&server.backend_block()));
    work.terrace_ok(&["init", "-input=false"], 0);
    work.terrace_ok(&["apply", "-auto-approve"], 0);

    server.fail_after_uploads(0);
    let run = work.terrace(&["apply", "-auto-approve", "-var", "n=4"]);
    assert_eq!(run.code, Some(1), "{}", run.output());
    assert!(
        run.stderr.contains("Failed to persist state to backend"),
        "{}",
        run.output()
    );
    let errored: serde_json::Value = serde_json::from_slice(
        &std::fs::read(work.path("errored.tfstate")).expect("errored.tfstate was written"),
    )
    .expect("errored.tfstate is a state");
    assert_eq!(resources_in(&errored), 4);
}

#[test]
fn backend_settings_come_from_backend_config_and_are_checked() {
    let server = HttpStateServer::start();
    let work = work("http-config");
    work.write(
        "main.tf",
        &main_tf("  backend \"http\" {\n    lock_address = \"not a url\"\n  }\n"),
    );
    let run = work.terrace(&["init", "-input=false"]);
    assert_eq!(run.code, Some(1), "{}", run.output());
    assert!(
        run.stderr.contains("Failed to configure the backend"),
        "{}",
        run.output()
    );

    work.write("main.tf", &main_tf("  backend \"http\" {}\n"));
    work.write(
        "backend.hcl",
        &format!(
            "address = \"{}\"\nlock_address = \"{}\"\n",
            server.address(),
            server.address()
        ),
    );
    let unlock = format!("unlock_address={}", server.address());
    work.terrace_ok(
        &[
            "init",
            "-input=false",
            "-backend-config=backend.hcl",
            &format!("-backend-config={unlock}"),
            "-backend-config=retry_max=0",
        ],
        0,
    );
    let saved: serde_json::Value = serde_json::from_slice(
        &std::fs::read(work.path(".terraform/terraform.tfstate")).expect("backend recorded"),
    )
    .expect("JSON");
    assert_eq!(saved["backend"]["type"], "http");
    assert_eq!(
        saved["backend"]["config"]["address"],
        server.address().as_str()
    );
    assert_eq!(saved["backend"]["config"]["retry_max"], 0);
    assert!(saved["backend"]["config"]["password"].is_null());
    work.terrace_ok(&["apply", "-auto-approve"], 0);
    assert_eq!(resources_in(&server.state().expect("a state")), 3);

    let bad = work.terrace(&["init", "-input=false", "-backend-config=bogus=1"]);
    assert_eq!(bad.code, Some(1), "{}", bad.output());
    assert!(
        bad.stderr
            .contains("Invalid backend configuration argument"),
        "{}",
        bad.output()
    );

    let ws = work.terrace(&["workspace", "new", "other"]);
    assert_eq!(ws.code, Some(1), "{}", ws.output());
}

/// Two applies started together on one remote state: the second waits for
/// the first's lock (`-lock-timeout`), then reads the state the first
/// wrote and has nothing left to do. With terraform present, the second
/// is terraform's.
#[test]
fn racing_applies_take_turns_on_the_lock() {
    let with_terraform = terrace_testsupport::terraform_version().is_some();
    let server = HttpStateServer::start();
    let work = work("http-race");
    work.write("main.tf", &main_tf(&server.backend_block()));
    work.terrace_ok(&["init", "-input=false"], 0);
    if with_terraform {
        work.terraform_ok(&["init", "-input=false"], 0);
    }

    work.write(HOLD, "held by the test\n");
    let first = work.spawn_terrace(&["apply", "-auto-approve", "-lock-timeout=300s"]);
    wait_until(
        "the first apply to start creating",
        Duration::from_secs(120),
        || first.stdout(),
        |out| out.contains(": Creating..."),
    );
    let second = if with_terraform {
        work.spawn_terraform(&[
            "apply",
            "-auto-approve",
            "-input=false",
            "-lock-timeout=300s",
        ])
    } else {
        work.spawn_terrace(&["apply", "-auto-approve", "-lock-timeout=300s"])
    };
    wait_until(
        "the second apply to find the lock held",
        Duration::from_secs(120),
        || {
            server
                .lock_refusals
                .load(std::sync::atomic::Ordering::SeqCst)
        },
        |n| *n >= 1,
    );
    std::fs::remove_file(work.path(HOLD)).expect("releasing the kv lock");
    let first = first.finish(Duration::from_secs(300));
    let second = second.finish(Duration::from_secs(300));
    assert_eq!(first.code, Some(0), "{}", first.output());
    assert_eq!(second.code, Some(0), "{}", second.output());
    assert!(
        first
            .stdout
            .contains("Apply complete! Resources: 3 added, 0 changed, 0 destroyed."),
        "{}",
        first.output()
    );
    assert!(
        second.stdout.contains("No changes.")
            || second
                .stdout
                .contains("Apply complete! Resources: 0 added, 0 changed, 0 destroyed."),
        "{}",
        second.output()
    );
    let state = server.state().expect("a state");
    assert_eq!(resources_in(&state), 3);
    assert!(server.lock_info().is_none());
}

/// The state subcommands on a remote state: `pull` prints the stored
/// state, `rm` edits it under the lock (no local backup), `push` puts the
/// pulled state back (a lower serial refused unless `-force`), `list`
/// and `show` read it.
#[test]
fn state_subcommands_work_on_a_remote_state() {
    let server = HttpStateServer::start();
    let work = work("http-state-commands");
    work.write("main.tf", &main_tf(&server.backend_block()));
    work.terrace_ok(&["init", "-input=false"], 0);
    work.terrace_ok(&["apply", "-auto-approve"], 0);

    let pulled = work.terrace_ok(&["state", "pull"], 0).stdout;
    let pulled_json: serde_json::Value = serde_json::from_str(&pulled).expect("pull prints JSON");
    assert_eq!(pulled_json, server.state().expect("a state"));
    work.write("pulled.tfstate", &pulled);

    work.terrace_ok(&["state", "rm", "kv_entry.e[0]"], 0);
    let after_rm = server.state().expect("a state");
    assert_eq!(resources_in(&after_rm), 2);
    assert_eq!(
        after_rm["serial"].as_u64(),
        pulled_json["serial"].as_u64().map(|s| s + 1)
    );
    assert!(server.lock_info().is_none());
    let list = work.terrace_ok(&["state", "list"], 0);
    assert!(!list.stdout.contains("kv_entry.e[0]"), "{}", list.output());
    let leftovers: Vec<_> = std::fs::read_dir(&work.dir)
        .expect("reading the directory")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".backup") || n == "terraform.tfstate")
        .collect();
    assert!(leftovers.is_empty(), "no local state files: {leftovers:?}");

    // The pulled state is older than the stored one now.
    let refused = work.terrace(&["state", "push", "pulled.tfstate"]);
    assert_eq!(refused.code, Some(1), "{}", refused.output());
    assert_eq!(resources_in(&server.state().expect("a state")), 2);
    work.terrace_ok(&["state", "push", "-force", "pulled.tfstate"], 0);
    let pushed = server.state().expect("a state");
    assert_eq!(resources_in(&pushed), 3);
    assert_eq!(pushed["lineage"], pulled_json["lineage"]);
    work.terrace_ok(&["plan", "-detailed-exitcode"], 0);
    let show = work.terrace_ok(&["show"], 0);
    assert!(show.stdout.contains("kv_entry.e[0]"), "{}", show.output());
}
