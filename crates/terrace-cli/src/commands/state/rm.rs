//! `terrace state rm [-dry-run] ADDRESS...`: forgets resource instances
//! (whole modules, whole resources or single instances) without
//! destroying them, under the state lock, after a timestamped backup.

use crate::state_meta::{self, StateFlags, Ui};
use terrace_addrs::AbsResourceInstance;
use terrace_states::model::State;
use terrace_syntax::PRODUCT;
use terrace_syntax::{Diagnostic, Diagnostics};

const HELP: &str = "Usage: terrace [global options] state rm [options] ADDRESS...

  Remove one or more items from the state, causing terrace to
  \"forget\" those items without first destroying them in the remote system.

  This command removes one or more resource instances from the state
  based on the addresses given. You can view and list the available instances
  with \"terrace state list\".

  If you give the address of an entire module then all of the instances in
  that module and any of its child modules will be removed from the state.

  If you give the address of a resource that has \"count\" or \"for_each\" set,
  all of the instances of that resource will be removed from the state.

Options:

  -dry-run                If set, prints out what would've been removed but
                          doesn't actually remove anything.

  -backup=PATH            Path where terrace should write the backup
                          state.

  -lock=false             Don't hold a state lock during the operation. This is
                          dangerous if others might concurrently run commands
                          against the same workspace.

  -lock-timeout=0s        Duration to retry a state lock.

  -state=PATH             Path to the state file to update. Defaults to the
                          current workspace state.
";

pub fn run(argv: &[String]) -> i32 {
    let mut ui = Ui::new();
    let (flags, addrs) = state_meta::parse_args(argv, &[]);
    let mut state_flags = StateFlags::default();
    let mut dry_run = false;
    for (name, value) in flags {
        let result = match state_flags.take(
            &["state", "backup", "lock", "lock-timeout"],
            &name,
            value.as_deref(),
        ) {
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
                "dry-run" => {
                    state_meta::parse_bool("dry-run", value.as_deref()).map(|b| dry_run = b)
                }
                other => Err(format!("flag provided but not defined: -{other}")),
            },
        };
        if let Err(e) = result {
            out!("{HELP}");
            ui.error(&format!("Error parsing command-line flags: {e}\n"));
            return 1;
        }
    }
    if addrs.is_empty() {
        out!("{HELP}");
        ui.error("At least one address is required.\n");
        return 1;
    }

    state_meta::with_locked_state(&state_flags, "state-rm", &ui, |backend| {
        remove(backend, &addrs, dry_run, &ui)
    })
}

fn remove(
    backend: &mut dyn terrace_states::backend::Backend,
    raw_addrs: &[String],
    dry_run: bool,
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
    let targets = match select(&state, raw_addrs) {
        Ok(t) => t,
        Err(diags) => {
            ui.legacy_diagnostics(&diags);
            return 1;
        }
    };
    for addr in &targets {
        if dry_run {
            ui.output(&format!("Would remove {addr}"));
        } else {
            ui.output(&format!("Removed {addr}"));
            state.remove_instance(addr);
        }
    }
    if dry_run {
        if targets.is_empty() {
            ui.output("Would have removed nothing.");
        }
        return 0;
    }
    if !targets.is_empty() || loaded.recovered > 0 {
        if let Err(e) = backend.write_state(&state) {
            ui.legacy_diagnostics(&[saving_error(&e.to_string())]);
            return 1;
        }
        state_meta::journal_saved(backend, &loaded);
    }
    if targets.is_empty() {
        ui.legacy_diagnostics(&[Diagnostic::error(
            "Invalid target address",
            format!("No matching objects found. To view the available instances, use \"{PRODUCT} state \
             list\". Please modify the address to reference a specific instance."),
        )]);
        return 1;
    }
    ui.output(&format!(
        "Successfully removed {} resource instance(s).",
        targets.len()
    ));
    0
}

/// The instances the addresses select, in the order given (each
/// address's own sorted); addresses that match nothing are skipped.
fn select(state: &State, raw_addrs: &[String]) -> Result<Vec<AbsResourceInstance>, Diagnostics> {
    let mut targets = Vec::new();
    let mut diags = Vec::new();
    for raw in raw_addrs {
        let (found, more) = state_meta::lookup_instances(state, raw, true);
        targets.extend(found);
        diags.extend(more);
    }
    if diags.iter().any(Diagnostic::is_error) {
        Err(diags)
    } else {
        Ok(targets)
    }
}

/// Terraform's "Error saving the state" for the state-modifying `state`
/// subcommands.
pub fn saving_error(cause: &str) -> Diagnostic {
    Diagnostic::error(
        "Error saving the state",
        format!(
            "The state was not saved. No items were removed from the persisted state. No backup \
             was created since no modification occurred. Please resolve the issue above and try \
             again.\n\nCause: {cause}"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use terrace_states::statefile;

    #[test]
    fn selects_in_argument_order() {
        let text = r#"{"version": 4, "terraform_version": "1.11.4", "serial": 1, "lineage": "l",
            "outputs": {}, "resources": [
              {"mode": "managed", "type": "terraform_data", "name": "a",
               "provider": "provider[\"terraform.io/builtin/terraform\"]",
               "instances": [{"schema_version": 0, "attributes": {"id": "a"}, "sensitive_attributes": []}]},
              {"mode": "managed", "type": "terraform_data", "name": "c",
               "provider": "provider[\"terraform.io/builtin/terraform\"]",
               "instances": [
                 {"index_key": 1, "schema_version": 0, "attributes": {"id": "c1"}, "sensitive_attributes": []},
                 {"index_key": 0, "schema_version": 0, "attributes": {"id": "c0"}, "sensitive_attributes": []}]}
            ], "check_results": null}"#;
        let state = match statefile::read(text.as_bytes()) {
            Ok((state, _)) => state,
            Err(d) => panic!("fixture: {d:?}"),
        };
        let raw: Vec<String> = ["terraform_data.c", "terraform_data.zz", "terraform_data.a"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let got: Vec<String> = match select(&state, &raw) {
            Ok(t) => t.iter().map(|a| a.to_string()).collect(),
            Err(d) => panic!("{d:?}"),
        };
        assert_eq!(
            got,
            [
                "terraform_data.c[0]",
                "terraform_data.c[1]",
                "terraform_data.a"
            ]
        );
        let bad = vec!["not an address".to_string()];
        assert!(select(&state, &bad).is_err());
    }
}
