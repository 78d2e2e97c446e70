//! `local-exec` provisioners on the terminal: `terrace apply` prints the
//! same `Provisioning with...` and `ADDR (local-exec): ...` lines as
//! terraform 1.11.4 for the same configuration, with and without colour,
//! and the same error when a command fails. Object ids (random) and
//! elapsed times are masked. Skips with the reason printed when terraform
//! is missing (fails instead under `CI=true`).

mod engine_support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

const PASSING: &str = r#"
variable "secret" {
  default   = "hidden"
  sensitive = true
}
resource "terraform_data" "a" {
  input = "x"
  provisioner "local-exec" {
    command = "echo; echo '  spaced  '; echo to-stderr >&2; printf 'p\\r\\nq\\rr\\n\\n'; printf 'no newline'"
  }
  provisioner "local-exec" {
    command     = "echo $GREETING ${self.output}"
    environment = { GREETING = "hello" }
  }
  provisioner "local-exec" {
    command     = "print('from python')"
    interpreter = ["python3", "-c"]
  }
  provisioner "local-exec" {
    command = "echo quiet"
    quiet   = true
  }
  provisioner "local-exec" {
    command = "echo ${var.secret}"
  }
  provisioner "local-exec" {
    command    = "exit 1"
    on_failure = continue
  }
}
"#;

const FAILING: &str = r#"
resource "terraform_data" "a" {
  provisioner "local-exec" {
    command = "echo before; exit 3"
  }
  provisioner "local-exec" {
    command = "echo never"
  }
}
"#;

static DIRS: AtomicU64 = AtomicU64::new(0);

fn scratch(tf: &str) -> PathBuf {
    let n = DIRS.fetch_add(1, Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("terrace-provisioners-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let written =
        std::fs::create_dir_all(&dir).and_then(|_| std::fs::write(dir.join("main.tf"), tf));
    assert!(
        written.is_ok(),
        "cannot write {}: {written:?}",
        dir.display()
    );
    dir
}

/// Exit status, stdout and stderr of `apply -auto-approve`.
fn apply(program: &str, dir: &Path, color: bool) -> (i32, String, String) {
    let mut cmd = Command::new(program);
    cmd.arg("apply").arg("-auto-approve").arg("-input=false");
    if !color {
        cmd.arg("-no-color");
    }
    let out = cmd
        .current_dir(dir)
        .env("TF_CLI_CONFIG_FILE", "/dev/null")
        .env("CHECKPOINT_DISABLE", "1")
        .env_remove("NO_COLOR")
        .env_remove("TF_DATA_DIR")
        .env_remove("TF_LOG")
        .output();
    match out {
        Ok(o) => (
            o.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        ),
        Err(e) => panic!("cannot run {program}: {e}"),
    }
}

/// The lines after `Creating...` (whose colour codes belong to the plan
/// printed before it), ids and durations masked.
fn progress(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .skip_while(|l| !l.contains("Creating..."))
        .skip(1)
        .take_while(|l| !l.contains("Apply complete!"))
        .map(|l| {
            let l = match l.find("[id=") {
                Some(i) => format!("{}[id=…]", &l[..i]),
                None => l.to_string(),
            };
            match l.find("complete after ") {
                Some(i) => format!("{}complete after …", &l[..i]),
                None => l,
            }
        })
        .collect()
}

#[test]
fn apply_prints_provisioners_as_terraform_does() {
    if !engine_support::have_terraform() {
        return;
    }
    for (name, tf, want_status) in [("passing", PASSING, 0), ("failing", FAILING, 1)] {
        for color in [false, true] {
            let tf_dir = scratch(tf);
            let tc_dir = scratch(tf);
            let (tf_status, tf_out, tf_err) = apply("terraform", &tf_dir, color);
            let (tc_status, tc_out, tc_err) = apply(env!("CARGO_BIN_EXE_terrace"), &tc_dir, color);
            let case = format!("{name}, color={color}");
            assert_eq!(
                tf_status, want_status,
                "{case}: terraform: {tf_out}{tf_err}"
            );
            assert_eq!(tc_status, tf_status, "{case}: terrace: {tc_out}{tc_err}");
            let want = progress(&tf_out);
            assert!(
                want.iter().any(|l| l.contains("(local-exec)")),
                "{case}: {tf_out}"
            );
            assert_eq!(progress(&tc_out), want, "{case}");
            // The error as terraform renders it (trailing blank lines aside).
            assert_eq!(tc_err.trim_end(), tf_err.trim_end(), "{case}");
            let _ = std::fs::remove_dir_all(&tf_dir);
            let _ = std::fs::remove_dir_all(&tc_dir);
        }
    }
}
