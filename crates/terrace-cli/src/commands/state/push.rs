//! `terrace state push [-force] PATH|-`: replaces the current workspace's
//! state with a state file (or stdin), refusing, as Terraform does, a
//! state of another lineage or an older serial over a non-empty state
//! unless `-force`. The pushed state keeps its own lineage and serial; the
//! serial goes up by one when the content differs from what it replaces.

use crate::commands::operation::TERRAFORM_VERSION;
use crate::state_meta::{self, StateFlags, Ui};
use std::io::Read;
use std::path::{Path, PathBuf};
use terrace_states::backend::local::{LocalBackend, LocalBackendOptions};
use terrace_states::backend::Backend;
use terrace_states::backend::StateError;
use terrace_states::model::State;
use terrace_states::statefile;

const HELP: &str = "Usage: terrace [global options] state push [options] PATH

  Update remote state from a local state file at PATH.

  This command \"pushes\" a local state and overwrites remote state
  with a local state file. The command will protect you against writing
  an older serial or a different state file lineage unless you specify the
  \"-force\" flag.

  This command works with local state (it will overwrite the local
  state), but is less useful for this use case.

  If PATH is \"-\", then this command will read the state to push from stdin.
  Data from stdin is not streamed to the backend: it is loaded completely
  (until pipe close), verified, and then pushed.

Options:

  -force              Write the state even if lineages don't match or the
                      remote serial is higher.

  -lock=false         Don't hold a state lock during the operation. This is
                      dangerous if others might concurrently run commands
                      against the same workspace.

  -lock-timeout=0s    Duration to retry a state lock.
";

pub fn run(argv: &[String]) -> i32 {
    let mut ui = Ui::new();
    let (flags, positionals) = state_meta::parse_args(argv, &[]);
    let mut state_flags = StateFlags::default();
    let mut force = false;
    for (name, value) in flags {
        let result = match state_flags.take(&["lock", "lock-timeout"], &name, value.as_deref()) {
            Some(r) => r,
            None => match name.as_str() {
                "help" | "h" => {
                    out!("{HELP}");
                    return 0;
                }
                "no-color" => {
                    ui.color = false;
                    Ok(())
                }
                "ignore-remote-version" => Ok(()),
                "force" => state_meta::parse_bool("force", value.as_deref()).map(|b| force = b),
                other => Err(format!("flag provided but not defined: -{other}")),
            },
        };
        if let Err(e) = result {
            out!("{HELP}");
            ui.error(&format!("Error parsing command-line flags: {e}\n"));
            return 1;
        }
    }
    let [source] = positionals.as_slice() else {
        out!("{HELP}");
        ui.error("Exactly one argument expected.\n");
        return 1;
    };

    let bytes = if source == "-" {
        let mut buf = Vec::new();
        if let Err(e) = std::io::stdin().read_to_end(&mut buf) {
            ui.error(&format!(
                "read /dev/stdin: {}",
                terrace_gocompat::oserror::errno_text(&e)
            ));
            return 1;
        }
        buf
    } else {
        match std::fs::read(source) {
            Ok(b) => b,
            Err(e) => {
                ui.error(&format!(
                    "open {source}: {}",
                    terrace_gocompat::oserror::errno_text(&e)
                ));
                return 1;
            }
        }
    };
    // A plain state file is pushed as it is; an encrypted one (the
    // `errored.tfstate` an apply left behind) is decrypted with the
    // configuration's state encryption first.
    let bytes = if terrace_states::encryption::is_envelope(&bytes) {
        let codec = match crate::encryption_config::load_of_dir(std::path::Path::new(".")) {
            Ok((encryption, _)) => encryption.state(),
            Err(diags) => {
                ui.legacy_diagnostics(&diags);
                return 1;
            }
        };
        if !codec.is_enabled() {
            ui.error(&format!("Error reading source state {source:?}: the state is encrypted and requires a valid encryption configuration to decrypt"));
            return 1;
        }
        match codec.decrypt(&bytes) {
            Ok((plain, _)) => plain.into_owned(),
            Err(e) => {
                ui.error(&format!("Error reading source state {source:?}: {e}"));
                return 1;
            }
        }
    } else {
        bytes
    };
    let pushed = if bytes.iter().all(u8::is_ascii_whitespace) {
        State::new_empty()
    } else {
        match statefile::read(&bytes) {
            Ok((state, _)) => state,
            Err(diags) => {
                ui.error(&format!(
                    "Error reading source state {source:?}: {}",
                    StateError::Invalid(diags)
                ));
                return 1;
            }
        }
    };

    match push(&pushed, force, &state_flags, &ui) {
        Ok(()) => 0,
        Err(()) => 1,
    }
}

/// Writes `pushed` over the current workspace's state; errors are
/// printed.
fn push(pushed: &State, force: bool, flags: &StateFlags, ui: &Ui) -> Result<(), ()> {
    let mut probe =
        state_meta::open_backend(LocalBackendOptions::default()).map_err(|e| ui.error(&e))?;
    let workspace = probe.workspace().to_string();
    let journal = state_meta::journal_path(probe.as_ref());
    let Some(local) = probe.local() else {
        return push_remote(probe.as_mut(), pushed, force, &journal, flags, ui);
    };
    let paths = local.state_paths(&workspace);
    drop(probe);
    let codec = match crate::encryption_config::load_of_dir(Path::new(".")) {
        Ok((encryption, _)) => encryption.state(),
        Err(diags) => {
            ui.legacy_diagnostics(&diags);
            return Err(());
        }
    };

    // The backend keeps the lineage and serial of the state it read
    // last; reading the pushed state itself (staged next to the real one)
    // makes it write the pushed lineage and serial, while the lock, the
    // backup and the atomic replacement stay the backend's.
    let staged = staging_path(&paths.write);
    let mut backend = LocalBackend::new(
        "",
        LocalBackendOptions {
            state: Some(staged.clone()),
            state_out: Some(paths.write.clone()),
            ..LocalBackendOptions::default()
        },
    )
    .with_data_dir(crate::commands::providers::data_dir(Path::new(".")))
    .with_version(TERRAFORM_VERSION)
    .with_encryption(codec);
    backend.use_workspace(workspace);
    if !state_meta::lock(&mut backend, flags, "state-push", ui) {
        return Err(());
    }
    let result = push_locked(
        &mut backend,
        pushed,
        force,
        &paths.read,
        &journal,
        &staged,
        ui,
    );
    let _ = std::fs::remove_file(&staged);
    let unlocked = state_meta::unlock(&mut backend, ui);
    if result.is_ok() && unlocked {
        Ok(())
    } else {
        Err(())
    }
}

/// `state push` to a remote backend: under the lock, the stored state is
/// checked as for a local one, then the pushed state is stored with its
/// own lineage and the serial the rules give.
fn push_remote(
    backend: &mut dyn Backend,
    pushed: &State,
    force: bool,
    journal: &Path,
    flags: &StateFlags,
    ui: &Ui,
) -> Result<(), ()> {
    if !state_meta::lock(backend, flags, "state-push", ui) {
        return Err(());
    }
    let result = (|| {
        // A journal that does not fit the stored state any more (the
        // backend lost its data) is settled by pushing a state that holds
        // everything it records.
        let existing = match state_meta::read_state(backend) {
            Ok(loaded) => loaded.state,
            Err(_) if crate::journal::folded_into(journal, pushed) => {
                backend
                    .read_state()
                    .map_err(|e| ui.legacy_diagnostics(&e.to_diagnostics()))?
                    .0
            }
            Err(d) => {
                ui.legacy_diagnostics(&d);
                return Err(());
            }
        };
        if !force {
            if let Err(msg) = check_valid_import(pushed, existing.as_ref()) {
                ui.error(&format!("Failed to write state: {msg}"));
                return Err(());
            }
        }
        let mut state = pushed.clone();
        state.serial = pushed_serial(pushed, existing.as_ref());
        match backend.write_state_for_migration(&state) {
            Ok(()) => {
                crate::journal::remove(journal);
                Ok(())
            }
            Err(e) => {
                ui.error(&format!("Failed to persist state: {e}"));
                Err(())
            }
        }
    })();
    let unlocked = state_meta::unlock(backend, ui);
    if result.is_ok() && unlocked {
        Ok(())
    } else {
        Err(())
    }
}

fn push_locked(
    backend: &mut LocalBackend,
    pushed: &State,
    force: bool,
    existing_path: &Path,
    journal: &Path,
    staged: &Path,
    ui: &Ui,
) -> Result<(), ()> {
    let existing = match std::fs::read(existing_path) {
        Ok(b) if !b.iter().all(u8::is_ascii_whitespace) => match backend.decode_stored(&b) {
            Ok((state, _)) => Some(state),
            Err(e) => {
                ui.legacy_diagnostics(&[terrace_syntax::Diagnostic::error(
                    "Failed to refresh destination state",
                    e.to_string(),
                )]);
                return Err(());
            }
        },
        Ok(_) => None,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            ui.error(&format!(
                "Failed to refresh destination state: open {}: {}",
                existing_path.display(),
                terrace_gocompat::oserror::errno_text(&e)
            ));
            return Err(());
        }
    };
    // Objects an interrupted apply recorded count as part of what is
    // being replaced.
    let existing = match (existing, journal.exists()) {
        (Some(state), true) => {
            match crate::journal::recover(
                journal,
                Some(&state),
                crate::journal::Recoverer::Unchecked,
            ) {
                Ok(crate::journal::Recovery::Replayed { state, .. }) => Some(state),
                Ok(_) => Some(state),
                Err(_) if crate::journal::folded_into(journal, pushed) => Some(state),
                Err(d) => {
                    ui.legacy_diagnostics(&[*d]);
                    return Err(());
                }
            }
        }
        (existing, _) => existing,
    };
    if !force {
        if let Err(msg) = check_valid_import(pushed, existing.as_ref()) {
            ui.error(&format!("Failed to write state: {msg}"));
            return Err(());
        }
    }
    let mut staged_state = pushed.clone();
    staged_state.serial = pushed_serial(pushed, existing.as_ref());
    staged_state.terraform_version = TERRAFORM_VERSION.to_string();
    let staged_bytes = match backend.encode_stored(&staged_state) {
        Ok(bytes) => bytes,
        Err(e) => {
            ui.error(&format!("Failed to write state: {e}"));
            return Err(());
        }
    };
    if let Err(e) = std::fs::write(staged, staged_bytes) {
        ui.error(&format!(
            "Failed to write state: open {}: {}",
            staged.display(),
            terrace_gocompat::oserror::errno_text(&e)
        ));
        return Err(());
    }
    let written = backend
        .read_state()
        .and_then(|_| backend.write_state(pushed));
    match written {
        Ok(_) => {
            crate::journal::remove(journal);
            Ok(())
        }
        Err(e) => {
            ui.error(&format!("Failed to persist state: {e}"));
            Err(())
        }
    }
}

/// Where the pushed state is staged: a hidden file beside the state.
fn staging_path(state: &Path) -> PathBuf {
    let name = state
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    state.with_file_name(format!(".{name}.push-{}-{nanos}", std::process::id()))
}

/// Same content, whatever the lineage and serial.
fn same_content(a: &State, b: &State) -> bool {
    let mut b = b.clone();
    b.lineage = a.lineage.clone();
    a.deep_eq_ignoring_serial(&b)
}

/// The serial Terraform writes: the pushed one, plus one when it replaces
/// a state with different content.
fn pushed_serial(pushed: &State, existing: Option<&State>) -> u64 {
    match existing {
        Some(existing) if !same_content(pushed, existing) => pushed.serial + 1,
        _ => pushed.serial,
    }
}

/// Terraform's `CheckValidImport`: a state may replace an empty state, a
/// state of the same lineage with a lower serial, or an identical one.
fn check_valid_import(pushed: &State, existing: Option<&State>) -> Result<(), String> {
    let Some(existing) = existing.filter(|s| !s.is_empty()) else {
        return Ok(());
    };
    if pushed.lineage.is_empty() || existing.lineage.is_empty() {
        return Ok(());
    }
    if pushed.lineage != existing.lineage {
        return Err(format!(
            "cannot import state with lineage {:?} over unrelated state with lineage {:?}",
            pushed.lineage, existing.lineage
        ));
    }
    match pushed.serial.cmp(&existing.serial) {
        std::cmp::Ordering::Greater => Ok(()),
        std::cmp::Ordering::Less => Err(format!(
            "cannot import state with serial {} over newer state with serial {}",
            pushed.serial, existing.serial
        )),
        std::cmp::Ordering::Equal if same_content(pushed, existing) => Ok(()),
        std::cmp::Ordering::Equal => Err(format!(
            "cannot overwrite existing state with serial {} with a different state that has \
             the same serial",
            pushed.serial
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use terrace_states::model::OutputState;
    use terrace_value::Value;

    fn state(lineage: &str, serial: u64, output: Option<&str>) -> State {
        let mut s = State::new_with_lineage(lineage);
        s.serial = serial;
        if let Some(v) = output {
            s.set_output(
                "o",
                Some(OutputState {
                    value: Value::string(v),
                    sensitive: false,
                }),
            );
        }
        s
    }

    // The outcomes terraform 1.11.4's `state push` gives for each case.
    /// Name, pushed state, existing state, and the serial written or the error.
    type Case = (
        &'static str,
        State,
        Option<State>,
        Result<u64, &'static str>,
    );

    #[test]
    fn import_rules_and_serials_follow_terraform() {
        let cases: Vec<Case> = vec![
            ("no existing state", state("L", 9, Some("a")), None, Ok(9)),
            ("empty existing state", state("L", 9, Some("a")), Some(state("M", 3, None)), Ok(10)),
            ("newer serial", state("L", 100, Some("b")), Some(state("L", 11, Some("a"))), Ok(101)),
            ("identical", state("L", 11, Some("a")), Some(state("L", 11, Some("a"))), Ok(11)),
            (
                "older serial",
                state("L", 9, Some("b")),
                Some(state("L", 11, Some("a"))),
                Err("cannot import state with serial 9 over newer state with serial 11"),
            ),
            (
                "other lineage",
                state("M", 100, Some("a")),
                Some(state("L", 11, Some("a"))),
                Err("cannot import state with lineage \"M\" over unrelated state with lineage \"L\""),
            ),
            (
                "same serial, other content",
                state("L", 11, Some("b")),
                Some(state("L", 11, Some("a"))),
                Err("cannot overwrite existing state with serial 11 with a different state that has the same serial"),
            ),
        ];
        for (name, pushed, existing, want) in cases {
            let got = check_valid_import(&pushed, existing.as_ref())
                .map(|()| pushed_serial(&pushed, existing.as_ref()));
            assert_eq!(got, want.map_err(str::to_string), "{name}");
        }
        // -force skips the checks; the serial rule still holds.
        let forced = state("M", 100, Some("a"));
        assert_eq!(
            pushed_serial(&forced, Some(&state("L", 101, Some("a")))),
            100
        );
    }
}
