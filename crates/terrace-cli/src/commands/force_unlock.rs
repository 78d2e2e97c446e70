//! `terrace force-unlock LOCK_ID`: removes a state lock left behind by a
//! run that can no longer release it. The local backend's lock is an
//! operating-system lock held by the process that took it, so no other
//! process can remove it: as terraform does, this says so and changes
//! nothing. Backends terrace does not implement are refused by name.

use crate::state_meta::{self, Ui};
use crate::PRODUCT;

fn usage() -> String {
    format!(
        "Usage: {PRODUCT} [global options] force-unlock LOCK_ID

  Removes the state lock of the current workspace that a failed or killed
  run left behind. Nothing else changes. How locks behave depends on the
  backend: a local state's lock belongs to the process that holds it, and
  no other process can remove it.

Options:

  -force                 Do not ask for confirmation.
"
    )
}

pub fn run(argv: &[String]) -> i32 {
    let mut ui = Ui::new();
    let (flags, positionals) = state_meta::parse_args(argv, &[]);
    let mut force = false;
    for (name, value) in flags {
        match name.as_str() {
            "help" | "h" => {
                out!("{}", usage());
                return 0;
            }
            "force" => match state_meta::parse_bool("force", value.as_deref()) {
                Ok(b) => force = b,
                Err(e) => {
                    ui.error(&e);
                    return 1;
                }
            },
            "no-color" => ui.color = false,
            other => {
                ui.error(&format!("flag provided but not defined: -{other}"));
                eprint!("{}", usage());
                return 1;
            }
        }
    }
    if positionals.len() != 1 {
        ui.error("Expected a single argument: LOCK_ID");
        eprint!("{}", usage());
        return 1;
    }
    // The working directory's backend, as every state command sees it: a
    // type terrace does not implement stops here.
    let mut backend = match state_meta::open_backend(Default::default()) {
        Ok(b) => b,
        Err(e) => {
            ui.error(&e);
            return 1;
        }
    };
    if backend.local().is_some() {
        if force {
            ui.error("Failed to unlock state: LocalState not locked");
        } else {
            ui.error("Local state cannot be unlocked by another process");
        }
        return 1;
    }
    if !force {
        let description = format!("{PRODUCT} will remove the lock on the remote state.\nThis will allow local {PRODUCT} commands to modify this state, even though it\nmay still be in use. Only 'yes' will be accepted to confirm.");
        match ask("Do you really want to force-unlock?", &description) {
            Ok(answer) if answer == "yes" => {}
            Ok(_) => {
                out!("force-unlock cancelled.\n");
                return 1;
            }
            Err(e) => {
                ui.error(&format!("Error asking for confirmation: {e}"));
                return 1;
            }
        }
    }
    if let Err(e) = backend.force_unlock(&positionals[0]) {
        ui.error(&format!("Failed to unlock state: {e}"));
        return 1;
    }
    let text = format!("{title} state has been successfully unlocked!\n\nThe state has been unlocked, and {title} commands should now be able to\nobtain a new lock on the remote state.", title = crate::diag_output::PRODUCT_TITLE);
    if ui.color {
        let (head, rest) = text.split_once('\n').unwrap_or((&text, ""));
        out!("\x1b[0m\x1b[1m\x1b[32m{head}\x1b[0m\x1b[32m\n{rest}\x1b[0m\n");
    } else {
        out!("{text}\n");
    }
    0
}

/// Asks on the terminal as terraform's input does; the line typed.
fn ask(query: &str, description: &str) -> Result<String, String> {
    use std::io::{BufRead, Write};
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{query}");
    for line in description.lines() {
        let _ = writeln!(out, "  {line}");
    }
    let _ = write!(out, "\n  Enter a value: ");
    let _ = out.flush();
    drop(out);
    let mut line = String::new();
    match std::io::stdin().lock().read_line(&mut line) {
        Ok(0) => Err("EOF".to_string()),
        Ok(_) => {
            out!("\n");
            Ok(line.trim_end_matches(['\n', '\r']).to_string())
        }
        Err(e) => Err(e.to_string()),
    }
}
