//! `terrace state pull`: the current workspace's state on stdout in the
//! state file format, as Terraform writes it (re-encoded with this
//! version, then a newline); nothing when there is no state.

use crate::commands::operation::TERRAFORM_VERSION;
use crate::state_meta::{self, Ui};
use terrace_states::statefile;

const HELP: &str = "Usage: terrace [global options] state pull [options]

  Pull the state from its location, upgrade the local copy, and output it
  to stdout.

  This command \"pulls\" the current state and outputs it to stdout.
  As part of this process, the state is upgraded to the current format.
";

pub fn run(argv: &[String]) -> i32 {
    let mut ui = Ui::new();
    let (flags, positionals) = state_meta::parse_args(argv, &[]);
    for (name, _) in flags {
        match name.as_str() {
            "help" | "h" => {
                out!("{HELP}");
                return 0;
            }
            "no-color" => ui.color = false,
            other => {
                out!("{HELP}");
                ui.error(&format!(
                    "Error parsing command-line flags: flag provided but not defined: -{other}\n"
                ));
                return 1;
            }
        }
    }
    if !positionals.is_empty() {
        out!("{HELP}");
        return 1;
    }
    let mut backend = match state_meta::open_backend(Default::default()) {
        Ok(b) => b,
        Err(e) => {
            ui.error(&e);
            return 1;
        }
    };
    match state_meta::read_state(backend.as_mut()) {
        Ok(loaded) => {
            if let Some(mut state) = loaded.state {
                state.terraform_version = TERRAFORM_VERSION.to_string();
                let bytes = statefile::write(&state);
                crate::write_stdout(&format!("{}\n", String::from_utf8_lossy(&bytes)));
            }
            0
        }
        Err(diags) => {
            ui.legacy_diagnostics(&diags);
            1
        }
    }
}
