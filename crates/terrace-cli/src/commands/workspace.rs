//! `terrace workspace list|show|new|select|delete`: the local backend's
//! workspaces (`terraform.tfstate.d/NAME`, the selection in
//! `.terraform/environment`, `TF_WORKSPACE`), with Terraform's messages,
//! colours and exit codes.

use crate::state_meta::{self, StateFlags, Ui};
use std::path::PathBuf;
use terrace_states::backend::local::{
    messages, LocalBackendOptions, SelectOutcome, WorkspaceError, WORKSPACE_ENV_VAR,
};
use terrace_states::backend::Backend;
use terrace_states::statefile;

const HELP: &str = "Usage: terrace [global options] workspace

  new, list, show, select and delete workspaces.

Subcommands:
    delete    Delete a workspace
    list      List Workspaces
    new       Create a new workspace
    select    Select a workspace
    show      Show the name of the current workspace
";

const LIST_HELP: &str = "Usage: terrace [global options] workspace list

  List workspaces.
";

const SHOW_HELP: &str = "Usage: terrace [global options] workspace show

  Show the name of the current workspace.
";

const NEW_HELP: &str = "Usage: terrace [global options] workspace new [OPTIONS] NAME

  Create a new workspace.

Options:

    -lock=false         Don't hold a state lock during the operation. This is
                        dangerous if others might concurrently run commands
                        against the same workspace.

    -lock-timeout=0s    Duration to retry a state lock.

    -state=path         Copy an existing state file into the new workspace.
";

const SELECT_HELP: &str = "Usage: terrace [global options] workspace select NAME

  Select a different workspace.

Options:

    -or-create=false    Create the workspace if it doesn't exist.
";

const DELETE_HELP: &str = "Usage: terrace [global options] workspace delete [OPTIONS] NAME

  Delete a workspace.

Options:

    -force             Remove a workspace even if it is managing resources.
                       terrace can no longer track or manage the workspace's
                       infrastructure.

    -lock=false        Don't hold a state lock during the operation. This is
                       dangerous if others might concurrently run commands
                       against the same workspace.

    -lock-timeout=0s   Duration to retry a state lock.
";

pub fn run(argv: &[String]) -> i32 {
    let Some((sub, rest)) = argv.split_first() else {
        out!("{HELP}");
        return 1;
    };
    match sub.as_str() {
        "list" => list(rest),
        "show" => show(rest),
        "new" => new(rest),
        "select" => select(rest),
        "delete" => delete(rest),
        "-help" | "--help" | "-h" | "help" => {
            out!("{HELP}");
            0
        }
        _ => {
            out!("{HELP}");
            1
        }
    }
}

/// The flags one subcommand takes: bool flags, flags with values, and the
/// parsed result. `None` means help was printed or an error reported (the
/// exit status is inside).
struct Parsed {
    ui: Ui,
    flags: StateFlags,
    bools: Vec<(String, bool)>,
    positionals: Vec<String>,
}

fn parse(argv: &[String], help: &str, bools: &[&str], state_flags: &[&str]) -> Result<Parsed, i32> {
    let mut parsed = Parsed {
        ui: Ui::new(),
        flags: StateFlags::default(),
        bools: Vec::new(),
        positionals: Vec::new(),
    };
    let (flags, positionals) = state_meta::parse_args(argv, &[]);
    parsed.positionals = positionals;
    for (name, value) in flags {
        let result = match parsed.flags.take(state_flags, &name, value.as_deref()) {
            Some(r) => r,
            None if name == "help" || name == "h" => {
                out!("{help}");
                return Err(0);
            }
            None if name == "no-color" => {
                parsed.ui.color = false;
                Ok(())
            }
            None if bools.contains(&name.as_str()) => {
                state_meta::parse_bool(&name, value.as_deref())
                    .map(|b| parsed.bools.push((name.clone(), b)))
            }
            None => Err(format!("flag provided but not defined: -{name}")),
        };
        if let Err(e) = result {
            parsed.ui.error(&format!(
                "{}\nError parsing command-line flags: {e}\n",
                help.trim_end()
            ));
            return Err(1);
        }
    }
    Ok(parsed)
}

impl Parsed {
    fn flag(&self, name: &str) -> bool {
        self.bools
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .is_some_and(|(_, b)| *b)
    }
}

fn backend(ui: &Ui) -> Result<Box<dyn Backend>, i32> {
    state_meta::open_backend(LocalBackendOptions::default()).map_err(|e| {
        ui.error(&e);
        1
    })
}

fn list(argv: &[String]) -> i32 {
    let p = match parse(argv, LIST_HELP, &[], &[]) {
        Ok(p) => p,
        Err(code) => return code,
    };
    if !p.positionals.is_empty() {
        p.ui.error("Too many command line arguments. Did you mean to use -chdir?");
        return 1;
    }
    let mut backend = match backend(&p.ui) {
        Ok(b) => b,
        Err(code) => return code,
    };
    let (names, current) = match backend
        .workspaces()
        .and_then(|w| Ok((w, backend.current_workspace()?)))
    {
        Ok(found) => found,
        Err(e) => {
            p.ui.error(&e.to_string());
            return 1;
        }
    };
    let mut out = String::new();
    for name in &names {
        let marker = if *name == current { "* " } else { "  " };
        out.push_str(&format!("{marker}{name}\n"));
    }
    p.ui.output(&out);
    if std::env::var(WORKSPACE_ENV_VAR).is_ok_and(|v| !v.is_empty()) {
        p.ui.output(&format!("\n\n{}\n", messages::list_overridden()));
    }
    0
}

fn show(argv: &[String]) -> i32 {
    let p = match parse(argv, SHOW_HELP, &[], &[]) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let backend = match backend(&p.ui) {
        Ok(b) => b,
        Err(code) => return code,
    };
    match backend.current_workspace() {
        Ok(name) => {
            p.ui.output(&name);
            0
        }
        Err(e) => {
            p.ui.error(&e.to_string());
            1
        }
    }
}

/// `[reset][green]` text, as Terraform colours workspace news.
fn green(ui: &Ui, text: &str) -> String {
    if ui.color {
        format!("\x1b[0m\x1b[32m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

/// The "Created and switched" message, its first line bold.
fn created(ui: &Ui, name: &str) -> String {
    let text = messages::created(name);
    if !ui.color {
        return text;
    }
    match text.split_once('\n') {
        Some((first, rest)) => {
            format!("\x1b[0m\x1b[32m\x1b[1m{first}\x1b[0m\x1b[32m\n{rest}\x1b[0m")
        }
        None => green(ui, &text),
    }
}

/// Terraform's message for a failed workspace command: some carry blank
/// lines around them.
fn report(ui: &Ui, e: &WorkspaceError, padded: bool) {
    if let Some(d) = e.diagnostic() {
        ui.legacy_diagnostics(&[d]);
        return;
    }
    let text = e.to_string();
    match e {
        WorkspaceError::InvalidName(_)
        | WorkspaceError::OverriddenSelect
        | WorkspaceError::OverriddenNew => ui.error(&format!("\n{text}\n")),
        WorkspaceError::DoesNotExist(_) if padded => ui.error(&format!("\n{text}")),
        WorkspaceError::State(terrace_states::backend::StateError::Lock(l)) => {
            ui.legacy_diagnostics(&[l.acquire_diagnostic()])
        }
        _ => ui.error(&text),
    }
}

fn new(argv: &[String]) -> i32 {
    let p = match parse(argv, NEW_HELP, &[], &["lock", "lock-timeout", "state"]) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let [name] = p.positionals.as_slice() else {
        p.ui.output(NEW_HELP.trim_end());
        p.ui.error("Expected a single argument: NAME.\n");
        return 1;
    };
    let mut backend = match backend(&p.ui) {
        Ok(b) => b,
        Err(code) => return code,
    };
    if let Err(e) = backend.new_workspace(name) {
        report(&p.ui, &e, false);
        return 1;
    }
    p.ui.output(&created(&p.ui, name));
    match &p.flags.state {
        Some(path) => copy_state_into(backend.as_mut(), path, &p.flags, &p.ui),
        None => 0,
    }
}

/// `workspace new -state=PATH`: the new workspace starts with that state.
fn copy_state_into(backend: &mut dyn Backend, path: &PathBuf, flags: &StateFlags, ui: &Ui) -> i32 {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            ui.error(&format!(
                "open {}: {}",
                path.display(),
                terrace_gocompat::oserror::errno_text(&e)
            ));
            return 1;
        }
    };
    let state = match statefile::read(&bytes) {
        Ok((state, _)) => state,
        Err(diags) => {
            ui.legacy_diagnostics(&diags);
            return 1;
        }
    };
    if !state_meta::lock(backend, flags, "workspace-new", ui) {
        return 1;
    }
    let mut code = 0;
    if let Err(e) = backend.write_state(&state) {
        ui.error(&e.to_string());
        code = 1;
    }
    if !state_meta::unlock(backend, ui) {
        code = 1;
    }
    code
}

fn select(argv: &[String]) -> i32 {
    let p = match parse(argv, SELECT_HELP, &["or-create"], &[]) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let [name] = p.positionals.as_slice() else {
        p.ui.output(SELECT_HELP.trim_end());
        p.ui.error("Expected a single argument: NAME.\n");
        return 1;
    };
    let mut backend = match backend(&p.ui) {
        Ok(b) => b,
        Err(code) => return code,
    };
    match backend.select_workspace(name, p.flag("or-create")) {
        Ok(SelectOutcome::AlreadySelected) => 0,
        Ok(SelectOutcome::Switched) => {
            p.ui.output(&green(&p.ui, &messages::switched(name)));
            0
        }
        Ok(SelectOutcome::Created) => {
            p.ui.output(&created(&p.ui, name));
            0
        }
        Err(e) => {
            report(&p.ui, &e, true);
            1
        }
    }
}

fn delete(argv: &[String]) -> i32 {
    let p = match parse(argv, DELETE_HELP, &["force"], &["lock", "lock-timeout"]) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let [name] = p.positionals.as_slice() else {
        p.ui.output(DELETE_HELP.trim_end());
        p.ui.error("Expected a single argument: NAME.\n");
        return 1;
    };
    let mut backend = match backend(&p.ui) {
        Ok(b) => b,
        Err(code) => return code,
    };
    let timeout = p.flags.lock.then_some(p.flags.lock_timeout);
    match backend.delete_workspace(name, p.flag("force"), timeout) {
        Ok(outcome) => {
            p.ui.output(&green(&p.ui, &messages::deleted(name)));
            if outcome.was_non_empty {
                let text = format!("{}\n", messages::deleted_non_empty(name));
                if p.ui.color {
                    p.ui.output(&format!("\x1b[0m\x1b[33m{text}\x1b[0m"));
                } else {
                    p.ui.output(&text);
                }
            }
            0
        }
        // Terraform looks the name up before validating it.
        Err(WorkspaceError::InvalidName(n)) => {
            report(&p.ui, &WorkspaceError::DoesNotExist(n), false);
            1
        }
        Err(e) => {
            report(&p.ui, &e, false);
            1
        }
    }
}
