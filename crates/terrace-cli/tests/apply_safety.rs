//! What an apply promises when things go wrong around it: an interrupt
//! ends it with an error (never "Apply complete!"), a second interrupt
//! still saves the state, the journal of a running apply is left alone by
//! commands without the lock and never merged into a state it does not
//! belong to, a state that cannot be written is never reported as saved,
//! and a replacement is reported as the create and destroy it is. Each is
//! run beside terraform 1.11.4 where terraform can run the same steps.

mod engine_support;

use engine_support::{have_terraform, missing_tool, wait_until, Overrides, Work};
use std::time::Duration;

fn bundled(name: &str) -> Work {
    Work::new(
        name,
        Overrides {
            bundled: true,
            aws: false,
        },
    )
}

const KV_TWO_NAMESPACES: &str = r#"
terraform {
  required_providers {
    kv = { source = "terrace/kv" }
  }
}

provider "kv" {
  directory = "${path.module}/store"
  namespace = "fast"
}

provider "kv" {
  alias     = "slow"
  directory = "${path.module}/store"
  namespace = "slow"
}

resource "kv_entry" "fast" {
  count = 50
  key   = "k${count.index}"
  value = "v${count.index}"
}

resource "kv_entry" "slow" {
  provider   = kv.slow
  key        = "s"
  value      = "v"
  depends_on = [kv_entry.fast]
}
"#;

fn journaled_fast(work: &Work) -> usize {
    std::fs::read_to_string(work.path("terraform.tfstate.journal"))
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains("\"addr\":\"kv_entry.fast["))
        .count()
}

fn signal(pid: u32, sig: i32) {
    // SAFETY: kill(2) on a process this test started.
    unsafe {
        libc::kill(pid as i32, sig);
    }
}

/// Starts an apply of `KV_TWO_NAMESPACES` and waits until the 50 free
/// entries are journaled and the held one waits in its provider.
fn apply_held_mid_way(work: &Work) -> engine_support::Running {
    work.write("main.tf", KV_TWO_NAMESPACES);
    work.write("store/slow/.lock", "held by the test\n");
    let apply = work.spawn_terrace(&["apply", "-auto-approve"]);
    wait_until(
        "the free entries journaled and the held create started",
        Duration::from_secs(300),
        || (journaled_fast(work), apply.stdout()),
        |(journaled, stdout)| *journaled == 50 && stdout.contains("kv_entry.slow: Creating..."),
    );
    apply
}

#[test]
fn an_interrupted_apply_fails_and_keeps_what_it_created() {
    let work = bundled("interrupt");
    let apply = apply_held_mid_way(&work);
    signal(apply.child.id(), libc::SIGINT);
    let run = apply.finish(Duration::from_secs(120));
    assert_eq!(run.code, Some(1), "{}", run.output());
    assert!(!run.stdout.contains("Apply complete!"), "{}", run.output());
    assert!(
        run.stdout.contains("Interrupt received.") && run.stdout.contains("Stopping operation..."),
        "{}",
        run.output()
    );
    assert!(
        run.stderr.contains("Error: execution halted"),
        "{}",
        run.output()
    );
    let fast = work
        .state_addresses()
        .into_iter()
        .filter(|a| a.starts_with("kv_entry.fast["))
        .count();
    assert_eq!(fast, 50, "every created entry is in the state");
    assert!(!work.path("terraform.tfstate.journal").exists());
}

#[test]
fn terraform_also_fails_an_interrupted_apply() {
    if !have_terraform() {
        return;
    }
    // The same provider, run by terraform: the reference for the exit
    // status and the texts above.
    let work = bundled("interrupt-terraform");
    work.write("main.tf", KV_TWO_NAMESPACES);
    work.write("store/slow/.lock", "held by the test\n");
    let apply = work.spawn_terraform(&["apply", "-auto-approve"]);
    wait_until(
        "terraform's held create started",
        Duration::from_secs(300),
        || apply.stdout(),
        |stdout| stdout.contains("kv_entry.slow: Creating..."),
    );
    signal(apply.child.id(), libc::SIGINT);
    let run = apply.finish(Duration::from_secs(120));
    assert_eq!(run.code, Some(1), "{}", run.output());
    assert!(!run.stdout.contains("Apply complete!"));
    assert!(run.stdout.contains("Stopping operation..."));
}

#[test]
fn a_second_interrupt_still_saves_the_state() {
    let work = bundled("two-interrupts");
    let apply = apply_held_mid_way(&work);
    // Back to back, so the second lands while the first is being handled.
    signal(apply.child.id(), libc::SIGINT);
    signal(apply.child.id(), libc::SIGINT);
    let run = apply.finish(Duration::from_secs(120));
    assert_eq!(run.code, Some(1), "{}", run.output());
    assert!(!run.stdout.contains("Apply complete!"), "{}", run.output());
    // Read straight from the file, before any command could recover a
    // journal: the process itself saved what it had.
    let fast = work
        .state_addresses()
        .into_iter()
        .filter(|a| a.starts_with("kv_entry.fast["))
        .count();
    assert_eq!(fast, 50, "{}", run.output());
    if run.stderr.contains("Two interrupts received") {
        assert!(
            run.stderr.contains("Error: operation canceled"),
            "{}",
            run.output()
        );
    }
}

#[test]
fn commands_without_the_lock_leave_a_running_apply_journal_alone() {
    let work = bundled("lock-false");
    let mut apply = apply_held_mid_way(&work);
    let state_before = work.state_bytes();
    let plan = work.terrace(&["plan", "-lock=false"]);
    assert_eq!(plan.code, Some(0), "{}", plan.output());
    assert!(
        plan.all().contains("Warning: Apply journal not read"),
        "{}",
        plan.output()
    );
    assert!(work.path("terraform.tfstate.journal").exists());
    assert_eq!(work.state_bytes(), state_before, "the state is untouched");
    let apply2 = work.terrace(&["apply", "-lock=false", "-auto-approve"]);
    assert_eq!(apply2.code, Some(1), "{}", apply2.output());
    assert!(
        apply2.stderr.contains("Apply journal in use"),
        "{}",
        apply2.output()
    );
    assert_eq!(journaled_fast(&work), 50);

    // The apply dies; its journal is all there is of the 50 entries.
    let providers = apply.children();
    apply.child.kill().expect("SIGKILL to terrace");
    let _ = apply.child.wait();
    for pid in providers {
        signal(pid as u32, libc::SIGKILL);
    }
    drop(apply);
    std::fs::remove_file(work.path("store/slow/.lock")).expect("releasing the lock");
    let plan = work.terrace(&["plan", "-refresh=false"]);
    assert_eq!(plan.code, Some(0), "{}", plan.output());
    assert!(
        plan.stdout
            .contains("Recovered 50 object(s) recorded by an interrupted apply"),
        "{}",
        plan.output()
    );
    let fast = work
        .state_addresses()
        .into_iter()
        .filter(|a| a.starts_with("kv_entry.fast["))
        .count();
    assert_eq!(fast, 50);
    assert!(!work.path("terraform.tfstate.journal").exists());
}

#[test]
fn a_journal_is_never_merged_into_a_state_another_run_changed() {
    if !have_terraform() {
        return;
    }
    let work = bundled("journal-foreign");
    let mut apply = apply_held_mid_way(&work);
    let providers = apply.children();
    apply.child.kill().expect("SIGKILL to terrace");
    let _ = apply.child.wait();
    for pid in providers {
        signal(pid as u32, libc::SIGKILL);
    }
    drop(apply);
    // terraform knows nothing of the journal: it writes a new state
    // without the 50 entries.
    work.write("main.tf", "resource \"terraform_data\" \"t\" {}\n");
    work.terraform_ok(&["apply", "-auto-approve"], 0);
    let state_before = work.state_bytes();
    let plan = work.terrace(&["plan"]);
    assert_eq!(plan.code, Some(1), "{}", plan.output());
    assert!(
        plan.stderr
            .contains("Error: Apply journal does not match the state"),
        "{}",
        plan.output()
    );
    assert!(
        plan.stderr.contains("kv_entry.fast[0]"),
        "{}",
        plan.output()
    );
    assert_eq!(work.state_bytes(), state_before, "nothing was merged");
    assert!(work.path("terraform.tfstate.journal").exists());
}

#[test]
fn the_journal_is_as_private_as_the_state() {
    use std::os::unix::fs::PermissionsExt;
    let work = bundled("journal-mode");
    work.write("main.tf", "resource \"terraform_data\" \"t\" {}\n");
    work.terrace_ok(&["apply", "-auto-approve"], 0);
    std::fs::set_permissions(
        work.path("terraform.tfstate"),
        std::fs::Permissions::from_mode(0o600),
    )
    .expect("chmod");
    let apply = apply_held_mid_way(&work);
    let mode = std::fs::metadata(work.path("terraform.tfstate.journal"))
        .expect("the journal exists")
        .permissions()
        .mode()
        & 0o777;
    drop(apply);
    assert_eq!(mode, 0o600);
}

#[test]
fn a_replacement_is_reported_as_a_create_and_a_destroy() {
    let config = |v: &str| {
        format!("resource \"terraform_data\" \"r\" {{\n  triggers_replace = \"{v}\"\n}}\n")
    };
    let mut runs = vec![("terrace", bundled("replace"))];
    if have_terraform() {
        runs.push(("terraform", bundled("replace-terraform")));
    }
    for (tool, work) in &runs {
        work.write("main.tf", &config("a"));
        let apply = |work: &Work| match *tool {
            "terrace" => work.terrace_ok(&["apply", "-auto-approve"], 0),
            _ => work.terraform_ok(&["apply", "-auto-approve"], 0),
        };
        apply(work);
        work.write("main.tf", &config("b"));
        let run = apply(work);
        assert!(
            run.stdout
                .contains("Apply complete! Resources: 1 added, 0 changed, 1 destroyed."),
            "{tool}: {}",
            run.output()
        );
        for line in [
            "terraform_data.r: Destroying... [id=",
            "terraform_data.r: Destruction complete after",
            "terraform_data.r: Creating...",
            "terraform_data.r: Creation complete after",
        ] {
            assert!(
                run.stdout.contains(line),
                "{tool}: {line}\n{}",
                run.output()
            );
        }
    }
}

/// A small tmpfs at a fresh mount point, unmounted on drop.
struct SmallFilesystem(std::path::PathBuf);

impl SmallFilesystem {
    fn mount(name: &str, size: &str) -> Option<SmallFilesystem> {
        let dir = std::env::temp_dir().join(format!("terrace-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).ok()?;
        let out = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(&dir)
            .output();
        match out {
            Ok(o) if o.status.success() => Some(SmallFilesystem(dir)),
            Ok(o) => {
                missing_tool(&format!(
                    "mounting a small tmpfs needs privileges this test does not have: {}",
                    String::from_utf8_lossy(&o.stderr).trim()
                ));
                let _ = std::fs::remove_dir(&dir);
                None
            }
            Err(e) => {
                missing_tool(&format!("no mount command: {e}"));
                None
            }
        }
    }
}

impl Drop for SmallFilesystem {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
        let _ = std::fs::remove_dir(&self.0);
    }
}

fn many_objects() -> String {
    format!(
        "resource \"terraform_data\" \"d\" {{\n  count = 100\n  input = \"{}-${{count.index}}\"\n}}\n",
        "x".repeat(400)
    )
}

#[test]
fn a_state_that_does_not_fit_goes_to_errored_tfstate() {
    let Some(fs) = SmallFilesystem::mount("enospc-state", "64k") else {
        return;
    };
    let work = bundled("enospc-errored");
    work.write("main.tf", &many_objects());
    let state = fs.0.join("terraform.tfstate");
    let state_arg = format!("-state={}", state.display());
    let run = work.terrace(&["apply", "-auto-approve", &state_arg]);
    assert_eq!(run.code, Some(1), "{}", run.output());
    assert!(!run.stdout.contains("Apply complete!"), "{}", run.output());
    assert!(
        run.stderr.contains("Error: Failed to save state")
            && run
                .stderr
                .contains("Error: Failed to persist state to backend")
            && run.stderr.contains("state push errored.tfstate"),
        "{}",
        run.output()
    );
    let errored: serde_json::Value = serde_json::from_slice(
        &std::fs::read(work.path("errored.tfstate")).expect("errored.tfstate was written"),
    )
    .expect("errored.tfstate is a state");
    let instances = errored["resources"][0]["instances"]
        .as_array()
        .map(Vec::len)
        .unwrap_or(0);
    assert_eq!(instances, 100, "every object is in errored.tfstate");
}

#[test]
fn a_state_that_fits_nowhere_is_printed_as_the_last_resort() {
    let Some(fs) = SmallFilesystem::mount("enospc-all", "64k") else {
        return;
    };
    let work = bundled("enospc-all");
    // The whole working directory on the full filesystem: neither the
    // state nor errored.tfstate fit.
    let dir = fs.0.join("work");
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(dir.join("main.tf"), many_objects()).expect("main.tf");
    let cli_config = work.dir.with_extension("tfrc");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_terrace"))
        .args(["apply", "-auto-approve", "-no-color"])
        .current_dir(&dir)
        .env("TF_CLI_CONFIG_FILE", &cli_config)
        .env("TF_DATA_DIR", work.path(".terraform"))
        .output()
        .expect("running terrace");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(!stdout.contains("Apply complete!"), "{stdout}");
    assert!(
        stderr.contains("Error: Failed to create local state file")
            && stderr.contains("the raw state data is printed above as a JSON object"),
        "{stderr}"
    );
    let start = stderr.find("{\n  \"version\": 4").expect("the state JSON");
    let end = stderr[start..].find("\n}\n").expect("its end") + start + 2;
    let state: serde_json::Value =
        serde_json::from_str(&stderr[start..end]).expect("the printed state parses");
    let instances = state["resources"][0]["instances"]
        .as_array()
        .map(Vec::len)
        .unwrap_or(0);
    assert_eq!(instances, 100);
}

/// Until the operation is under way (here: still asking for a variable,
/// before the state is locked) an interrupt ends the run at once: there
/// is nothing to finish, and waiting for an answer that will not come
/// would leave the person at the terminal stuck.
#[test]
fn an_interrupt_while_asking_for_a_variable_ends_the_run_at_once() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let work = bundled("interrupt-prompt");
    work.write(
        "main.tf",
        "variable \"name\" {\n  type = string\n}\n\nresource \"terraform_data\" \"n\" {\n  input = var.name\n}\n",
    );
    // `exec`: `script` runs the command through a shell, and a shell that
    // stays (dash does) would die of the SIGINT itself.
    let command = format!("exec {} apply -no-color", env!("CARGO_BIN_EXE_terrace"));
    let child = Command::new("script")
        .args(["-q", "-e", "-c", &command, "/dev/null"])
        .current_dir(&work.dir)
        .env("TF_CLI_CONFIG_FILE", work.dir.with_extension("tfrc"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            missing_tool(&format!("`script` (util-linux) makes the terminal: {e}"));
            return;
        }
    };
    let mut stdin = child.stdin.take().expect("stdin");
    let (seen, reader) = engine_support::gather_output(child.stdout.take().expect("stdout"));
    let text = || seen.lock().map(|s| s.replace('\r', "")).unwrap_or_default();
    wait_until("the question", Duration::from_secs(60), text, |t| {
        t.contains("Enter a value: ")
    });
    // Ctrl-C at the terminal: the line discipline sends SIGINT.
    stdin.write_all(&[0x03]).expect("typing Ctrl-C");
    stdin.flush().expect("typing Ctrl-C");
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting") {
            break Some(status);
        }
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    drop(stdin);
    let _ = reader.join();
    let text = text();
    let status = status.unwrap_or_else(|| panic!("still waiting for an answer:\n{text}"));
    assert_eq!(status.code(), Some(1), "{text}");
    assert!(
        text.contains("Interrupt received.")
            && text.contains(
                "The operation had not started (nothing was locked or changed): stopped."
            ),
        "{text}"
    );
    assert!(!work.path("terraform.tfstate").exists(), "{text}");
    assert!(
        !work.path(".terraform.tfstate.lock.info").exists(),
        "{text}"
    );
}

/// With `-json`, the interrupt notices are `log` messages of the stream,
/// as terraform writes them (its own name aside), and the run still ends
/// halted.
#[test]
fn an_interrupt_under_json_is_reported_in_the_stream() {
    let work = bundled("interrupt-json");
    work.write(
        "main.tf",
        "resource \"terraform_data\" \"slow\" {\n  provisioner \"local-exec\" {\n    command = \"sleep 30\"\n  }\n}\n",
    );
    let apply = work.spawn_terrace(&["apply", "-json", "-auto-approve"]);
    wait_until(
        "the provisioner running",
        Duration::from_secs(60),
        || apply.stdout(),
        |out| out.contains("Executing: "),
    );
    signal(apply.child.id(), libc::SIGINT);
    let run = apply.finish(Duration::from_secs(120));
    assert_eq!(run.code, Some(1), "{}", run.output());
    let logs: Vec<String> = run
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| m["type"] == "log")
        .map(|m| m["@message"].as_str().unwrap_or_default().to_string())
        .collect();
    assert!(
        logs.contains(
            &"\nInterrupt received.\nPlease wait for terrace to exit or data loss may occur.\nGracefully shutting down...\n"
                .to_string()
        ),
        "{}",
        run.output()
    );
    assert!(
        logs.contains(&"Stopping operation...".to_string()),
        "{}",
        run.output()
    );
    assert!(run.stdout.contains("execution halted"), "{}", run.output());
    assert!(
        run.stdout.lines().all(|l| l.starts_with('{')),
        "only JSON on stdout:\n{}",
        run.stdout
    );
}

/// `(module, type, name, instances)` of each resource in the state.
fn state_resources(work: &Work) -> Vec<String> {
    let state = work.state();
    state["resources"]
        .as_array()
        .map(|list| {
            list.iter()
                .map(|r| {
                    format!(
                        "{} {}.{} {}",
                        r["module"].as_str().unwrap_or("root"),
                        r["type"].as_str().unwrap_or_default(),
                        r["name"].as_str().unwrap_or_default(),
                        r["instances"].as_array().map_or(0, Vec::len)
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// A failed apply leaves an entry for every managed resource it reached,
/// instances or none, as terraform's state has them; a later apply that
/// succeeds drops the empty ones again.
#[test]
fn a_failed_apply_records_the_resources_it_reached_as_terraform_does() {
    if !have_terraform() {
        return;
    }
    let main = |command: &str| {
        format!(
            "resource \"terraform_data\" \"none\" {{\n  count = 0\n}}\n\nmodule \"m\" {{\n  source = \"./m\"\n}}\n\nresource \"terraform_data\" \"ok\" {{}}\n\nresource \"terraform_data\" \"bad\" {{\n  depends_on = [terraform_data.ok]\n  provisioner \"local-exec\" {{\n    command = \"{command}\"\n  }}\n}}\n"
        )
    };
    let module = "resource \"terraform_data\" \"inner\" {\n  count = 0\n}\n\nresource \"terraform_data\" \"made\" {}\n";
    let mut states = Vec::new();
    for tool in ["terraform", "terrace"] {
        let work = bundled(&format!("failed-apply-husks-{tool}"));
        work.write("main.tf", &main("exit 1"));
        work.write("m/main.tf", module);
        let apply = ["apply", "-auto-approve", "-no-color"];
        if tool == "terraform" {
            work.terraform_ok(&["get"], 0);
            work.terraform_ok(&apply, 1);
        } else {
            work.terrace_ok(&apply, 1);
        }
        let failed = state_resources(&work);
        work.write("main.tf", &main("true"));
        if tool == "terraform" {
            work.terraform_ok(&apply, 0);
        } else {
            work.terrace_ok(&apply, 0);
        }
        states.push((failed, state_resources(&work)));
    }
    assert_eq!(states[1], states[0]);
    assert!(
        states[0]
            .0
            .contains(&"root terraform_data.none 0".to_string()),
        "{:?}",
        states[0]
    );
    assert!(
        !states[0].1.iter().any(|r| r.ends_with(" 0")),
        "{:?}",
        states[0]
    );
}
