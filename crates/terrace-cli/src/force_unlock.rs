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
    if let Err(e) = state_meta::open_backend(Default::default()) {
        ui.error(&e);
        return 1;
    }
    if force {
        ui.error("Failed to unlock state: LocalState not locked");
    } else {
        ui.error("Local state cannot be unlocked by another process");
    }
    1
}
