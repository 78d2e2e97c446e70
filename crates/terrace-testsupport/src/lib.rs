//! The one rule for tests that need something from outside the project:
//! `terraform`, `moto_server`, the hashicorp/aws provider package, `python3`,
//! `git`, headless `chromium`, or the shared fixtures in `../shared`.
//!
//! Under CI (`CI` set to `true` or `1`) a missing tool fails the test, so a
//! CI run can never be green having tested nothing. Elsewhere the test
//! returns early and says so with a `skipped: <reason>` line written past
//! the test harness's output capture, so a plain `cargo test` shows it.
//!
//! Every check goes through [`missing`]; the `tidy` test of this crate fails
//! for a test file that looks for one of these tools any other way.
//! [`fuzz`] drives the never-panic property tests of the readers of
//! outside data. A dev-dependency only: nothing shipped depends on it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

pub mod chromium;
pub mod firefox;
pub mod fuzz;
pub mod http;
pub mod https;
pub mod product;
pub mod recording;
mod tempdir;

pub use tempdir::TempDir;

/// The hashicorp/aws 5.100.0 package directory of the machine image, in a
/// filesystem mirror's unpacked layout.
pub const AWS_PROVIDER_PACKAGE: &str =
    "/opt/tf-plugins/registry.terraform.io/hashicorp/aws/5.100.0/linux_amd64";

/// The executable in [`AWS_PROVIDER_PACKAGE`].
pub const AWS_PROVIDER_EXECUTABLE: &str = "/opt/tf-plugins/registry.terraform.io/hashicorp/aws/5.100.0/linux_amd64/terraform-provider-aws_v5.100.0_x5";

/// The filesystem mirror holding [`AWS_PROVIDER_PACKAGE`].
pub const PLUGIN_MIRROR: &str = "/opt/tf-plugins";

/// Whether this run is CI's, where nothing may be skipped.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// Reports that a test cannot run here because of `reason`: a failure
/// under CI, a visible skip elsewhere. The caller returns when this
/// returns.
pub fn missing(reason: &str) {
    report_missing(in_ci(), reason);
}

fn report_missing(ci: bool, reason: &str) {
    if ci {
        panic!("CI is set and something this test needs is missing: {reason}");
    }
    // Straight to the process's stderr, past the harness's capture of
    // `print!` and `eprint!`, so the skip shows in a normal run.
    let _ = writeln!(std::io::stderr(), "skipped: {reason}");
}

/// Runs `program args` to see that it works; its stdout when it does, else
/// why not.
pub fn probe(program: &str, args: &[&str]) -> Result<String, String> {
    match Command::new(program)
        .args(args)
        .env("CHECKPOINT_DISABLE", "1")
        .output()
    {
        Ok(out) if out.status.success() => Ok(String::from_utf8_lossy(&out.stdout).into_owned()),
        Ok(out) => Err(format!(
            "`{program} {}` failed ({}): {}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )),
        Err(e) => Err(format!("no {program} on PATH ({e})")),
    }
}

/// Whether `program args` runs; reported as [`missing`] otherwise.
pub fn require_program(program: &str, args: &[&str]) -> bool {
    match probe(program, args) {
        Ok(_) => true,
        Err(reason) => {
            missing(&reason);
            false
        }
    }
}

/// Whether terraform runs here.
pub fn require_terraform() -> bool {
    require_program("terraform", &["version"])
}

/// terraform's version line (`Terraform v1.11.4`), when it runs here.
pub fn terraform_version() -> Option<String> {
    match probe("terraform", &["version"]) {
        Ok(out) => Some(out.lines().next().unwrap_or_default().to_string()),
        Err(reason) => {
            missing(&reason);
            None
        }
    }
}

/// Whether `git` runs here.
pub fn require_git() -> bool {
    require_program("git", &["--version"])
}

/// Whether `python3` runs here.
pub fn require_python3() -> bool {
    require_program("python3", &["--version"])
}

/// Whether `moto_server` (a local AWS API) and the `python3` that queries
/// it with boto3 are here.
pub fn require_moto() -> bool {
    if probe("moto_server", &["--help"]).is_err() {
        missing("moto_server is not on PATH (pip install 'moto[server]')");
        return false;
    }
    match probe("python3", &["-c", "import boto3"]) {
        Ok(_) => true,
        Err(reason) => {
            missing(&format!(
                "python3 with boto3 is needed to query moto: {reason}"
            ));
            false
        }
    }
}

/// Whether `path` exists; `what` names it in the report otherwise.
pub fn require_path(path: &Path, what: &str) -> bool {
    if path.exists() {
        return true;
    }
    missing(&format!("{what} is not at {}", path.display()));
    false
}

/// The hashicorp/aws 5.100.0 provider executable, when the image has it.
pub fn aws_provider_executable() -> Option<PathBuf> {
    let executable = PathBuf::from(AWS_PROVIDER_EXECUTABLE);
    require_path(&executable, "the hashicorp/aws 5.100.0 provider").then_some(executable)
}

/// Whether the hashicorp/aws 5.100.0 package directory is here.
pub fn require_aws_provider_package() -> bool {
    require_path(
        Path::new(AWS_PROVIDER_PACKAGE),
        "the hashicorp/aws 5.100.0 provider package",
    )
}

/// `../shared` beside the workspace: the specification, fixtures and real
/// modules the project reads at test time and never copies.
pub fn shared_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
}

/// `relative` inside `../shared`, when it is there.
pub fn shared(relative: &str) -> Option<PathBuf> {
    let path = shared_root().join(relative);
    require_path(&path, &format!("../shared/{relative}")).then_some(path)
}

/// `file://` URL of `page` (absolute), with `#fragment` unless empty.
pub(crate) fn page_url(page: &Path, fragment: &str) -> String {
    let absolute = std::fs::canonicalize(page).unwrap_or_else(|_| page.to_path_buf());
    if fragment.is_empty() {
        format!("file://{}", absolute.display())
    } else {
        format!("file://{}#{fragment}", absolute.display())
    }
}

/// A fresh, empty browser profile directory `scratch/name`.
pub(crate) fn fresh_profile(scratch: &Path, name: &str) -> Result<PathBuf, String> {
    let profile = scratch.join(name);
    let _ = std::fs::remove_dir_all(&profile);
    std::fs::create_dir_all(&profile).map_err(|e| format!("creating the profile: {e}"))?;
    Ok(profile)
}

/// Runs a browser's screenshot `command`, which writes `png`: the
/// directory made first, an old file removed, the browser's own words on
/// failure.
pub(crate) fn run_screenshot(
    browser: &str,
    mut command: Command,
    png: &Path,
) -> Result<(), String> {
    if let Some(parent) = png.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("creating {}: {e}", parent.display()))?;
    }
    let _ = std::fs::remove_file(png);
    let out = command
        .output()
        .map_err(|e| format!("running {browser}: {e}"))?;
    if !out.status.success() || !png.exists() {
        return Err(format!(
            "{browser} --screenshot failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_tool_fails_under_ci_and_is_skipped_elsewhere() {
        let failed = std::panic::catch_unwind(|| report_missing(true, "no frobnicator"));
        let message = failed
            .err()
            .and_then(|p| p.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        assert!(message.contains("no frobnicator"), "{message:?}");
        assert!(std::panic::catch_unwind(|| report_missing(false, "no frobnicator")).is_ok());
    }

    #[test]
    fn probes_say_why_a_program_does_not_run() {
        let absent = probe("terrace-no-such-program", &["--version"]);
        assert!(
            absent
                .as_ref()
                .is_err_and(|e| e.starts_with("no terrace-no-such-program on PATH")),
            "{absent:?}"
        );
        let failing = probe("sh", &["-c", "echo broken >&2; exit 3"]);
        assert!(
            failing.as_ref().is_err_and(|e| e.contains("broken")),
            "{failing:?}"
        );
        assert_eq!(
            probe("sh", &["-c", "echo ok"]).ok().as_deref(),
            Some("ok\n")
        );
    }
}
