//! `terrace state replace-provider FROM TO`: points every resource that
//! the state records under provider FROM at provider TO (a provider moved
//! to another namespace or registry), after a listing and a confirmation,
//! under the state lock and with a backup, as terraform does.

use crate::state_meta::{self, StateFlags, Ui};
use terrace_addrs::Provider;

fn help() -> String {
    let p = crate::PRODUCT;
    format!(
        "Usage: {p} [global options] state replace-provider [options] FROM_PROVIDER_FQN TO_PROVIDER_FQN

  Records provider TO for every resource of the state that provider FROM
  manages, for a provider that moved to another namespace or registry.

Options:

  -auto-approve           Do not ask for confirmation.

  -lock=false             Do not take the state lock. Dangerous when others
                          may change the same state.

  -lock-timeout=0s        How long to retry taking the state lock.

  -state, -state-out, -backup
                          The local backend's files, for this run only.
"
    )
}

pub fn run(argv: &[String]) -> i32 {
    let mut ui = Ui::new();
    let (flags, args) = state_meta::parse_args(argv, &[]);
    let mut state_flags = StateFlags::default();
    let mut auto_approve = false;
    for (name, value) in flags {
        let result = match state_flags.take(
            &["state", "state-out", "backup", "lock", "lock-timeout"],
            &name,
            value.as_deref(),
        ) {
            Some(r) => r,
            None => match name.as_str() {
                "help" | "h" => {
                    out!("{}", help());
                    return 0;
                }
                "no-color" => {
                    ui.color = false;
                    Ok(())
                }
                "ignore-remote-version" => Ok(()),
                "auto-approve" => state_meta::parse_bool("auto-approve", value.as_deref())
                    .map(|b| auto_approve = b),
                other => Err(format!("flag provided but not defined: -{other}")),
            },
        };
        if let Err(e) = result {
            ui.error(&format!("Error parsing command-line flags: {e}\n"));
            eprint!("{}", help());
            return 1;
        }
    }
    let [from, to] = args.as_slice() else {
        ui.error("Exactly two arguments expected.\n");
        eprint!("{}", help());
        return 1;
    };
    let parse = |text: &str, which: &str| {
        Provider::parse_source_str(text).map_err(|diags| {
            let detail = diags.first().map(|d| d.detail.clone()).unwrap_or_default();
            format!("Invalid \"{which}\" provider {text:?}: {detail}")
        })
    };
    let (from, to) = match (parse(from, "from"), parse(to, "to")) {
        (Ok(f), Ok(t)) => (f, t),
        (Err(e), _) | (_, Err(e)) => {
            ui.error(&e);
            return 1;
        }
    };
    state_meta::with_locked_state(&state_flags, "state-replace-provider", &ui, |backend| {
        replace(backend, &from, &to, auto_approve, &ui)
    })
}

fn replace(
    backend: &mut dyn terrace_states::backend::Backend,
    from: &Provider,
    to: &Provider,
    auto_approve: bool,
    ui: &Ui,
) -> i32 {
    let loaded = match state_meta::read_state(backend) {
        Ok(l) => l,
        Err(diags) => {
            ui.legacy_diagnostics(&diags);
            return 1;
        }
    };
    ui.legacy_diagnostics(&loaded.warnings);
    let Some(mut state) = loaded.state.clone() else {
        ui.error(&state_meta::no_state_file());
        return 1;
    };
    let changing: Vec<String> = state
        .resources
        .iter()
        .filter(|(_, rs)| rs.provider.provider == *from)
        .map(|(addr, _)| addr.to_string())
        .collect();
    if changing.is_empty() {
        ui.output("\nNo matching resources found.");
        return 0;
    }
    let c = |markup: &str, plain: &str| {
        if ui.color {
            markup.to_string()
        } else {
            plain.to_string()
        }
    };
    let mut listing = format!(
        "{} will perform the following actions:\n\n  {} Updating provider:{}\n    {} {}{}\n    {} {}\n{}\n{}Changing{} {} resources:\n{}\n",
        crate::PRODUCT,
        c("\x1b[33m~\x1b[0m", "~"),
        c("\x1b[0m", ""),
        c("\x1b[31m-\x1b[0m", "-"),
        from,
        c("\x1b[0m", ""),
        c("\x1b[32m+\x1b[0m", "+"),
        to,
        c("\x1b[0m", ""),
        c("\x1b[1m", ""),
        c("\x1b[0m", ""),
        changing.len(),
        c("\x1b[0m", ""),
    );
    for addr in &changing {
        listing.push_str(&format!("  {addr}\n"));
    }
    out!("{listing}");
    if !auto_approve {
        outln!("\nDo you want to make these changes?\nOnly 'yes' will be accepted to continue.\n");
        out!("Enter a value: ");
        use std::io::{BufRead, Write};
        let _ = std::io::stdout().flush();
        let mut answer = String::new();
        let read = std::io::stdin().lock().read_line(&mut answer);
        outln!();
        if !matches!(read, Ok(n) if n > 0) || answer.trim_end() != "yes" {
            ui.error("Cancelled replacing providers.");
            return 1;
        }
    }
    for rs in state.resources.values_mut() {
        if rs.provider.provider == *from {
            rs.provider.provider = to.clone();
        }
    }
    if let Err(e) = backend.write_state(&state) {
        ui.legacy_diagnostics(&[crate::commands::state::rm::saving_error(&e.to_string())]);
        return 1;
    }
    state_meta::journal_saved(backend, &loaded);
    ui.output(&format!(
        "\nSuccessfully replaced provider for {} resources.",
        changing.len()
    ));
    0
}
