//! `terrace taint ADDRESS` and `terrace untaint ADDRESS`: mark a managed
//! resource instance's current object as tainted (so the next plan
//! replaces it) or ready again, under the state lock, with Terraform's
//! checks, messages and `-allow-missing`.

// A command reports at most a few diagnostics, so returning them by value
// costs nothing worth boxing for.
#![allow(clippy::result_large_err)]

use crate::state_meta::{self, StateFlags, Ui};
use terrace_addrs::{AbsResourceInstance, ResourceMode};
use terrace_states::backend::Backend;
use terrace_states::model::{ObjectStatus, State};
use terrace_syntax::Diagnostic;
use terrace_syntax::PRODUCT;

const TAINT_HELP: &str = "Usage: terrace [global options] taint [options] <address>

  terrace uses the term \"tainted\" to describe a resource instance
  which may not be fully functional, either because its creation
  partially failed or because you've manually marked it as such using
  this command.

  This will not modify your infrastructure directly, but subsequent
  plans will include actions to destroy the remote object
  and create a new object to replace it.

  You can remove the \"taint\" state from a resource instance using
  the \"terrace untaint\" command.

  The address is in the usual resource address syntax, such as:
    aws_instance.foo
    aws_instance.bar[1]
    module.foo.module.bar.aws_instance.baz

  Use your shell's quoting or escaping syntax to ensure that the
  address will reach terrace correctly, without any special
  interpretation.

Options:

  -allow-missing          If specified, the command will succeed (exit code 0)
                          even if the resource is missing.

  -lock=false             Don't hold a state lock during the operation. This is
                          dangerous if others might concurrently run commands
                          against the same workspace.

  -lock-timeout=0s        Duration to retry a state lock.

  -state, state-out, and -backup are legacy options supported for the local
  backend only. For more information, see the local backend's documentation.
";

const UNTAINT_HELP: &str = "Usage: terrace [global options] untaint [options] name

  terrace uses the term \"tainted\" to describe a resource instance
  which may not be fully functional, either because its creation
  partially failed or because you've manually marked it as such using
  the \"terrace taint\" command.

  This command removes that state from a resource instance, causing
  terrace to see it as fully-functional and not in need of
  replacement.

  This will not modify your infrastructure directly. It only avoids
  terrace planning to replace a tainted instance in a future operation.

Options:

  -allow-missing          If specified, the command will succeed (exit code 0)
                          even if the resource is missing.

  -lock=false             Don't hold a state lock during the operation. This is
                          dangerous if others might concurrently run commands
                          against the same workspace.

  -lock-timeout=0s        Duration to retry a state lock.

  -state, state-out, and -backup are legacy options supported for the local
  backend only. For more information, see the local backend's documentation.
";

/// `taint` (true) or `untaint` (false).
pub fn run(taint: bool, argv: &[String]) -> i32 {
    let (command, help) = if taint {
        ("taint", TAINT_HELP)
    } else {
        ("untaint", UNTAINT_HELP)
    };
    let mut ui = Ui::new();
    let (flags, positionals) = state_meta::parse_args(argv, &[]);
    let mut state_flags = StateFlags::default();
    let mut allow_missing = false;
    for (name, value) in flags {
        let result = match state_flags.take(
            &["state", "state-out", "backup", "lock", "lock-timeout"],
            &name,
            value.as_deref(),
        ) {
            Some(r) => r,
            None => match name.as_str() {
                "help" | "h" => {
                    out!("{help}");
                    return 0;
                }
                "no-color" => {
                    ui.color = false;
                    Ok(())
                }
                "ignore-remote-version" => Ok(()),
                "allow-missing" => state_meta::parse_bool("allow-missing", value.as_deref())
                    .map(|b| allow_missing = b),
                other => Err(format!("flag provided but not defined: -{other}")),
            },
        };
        if let Err(e) = result {
            ui.error(&format!("Error parsing command-line flags: {e}\n"));
            ui.error(help.trim_end());
            return 1;
        }
    }
    let [raw] = positionals.as_slice() else {
        ui.error(&format!(
            "The {command} command expects exactly one argument."
        ));
        ui.error(help.trim_end());
        return 1;
    };
    let addr = match AbsResourceInstance::parse_str(raw) {
        Ok(a) => a,
        Err(diags) => {
            ui.legacy_diagnostics(&diags);
            return 1;
        }
    };
    if taint && addr.resource.resource.mode != ResourceMode::Managed {
        ui.error(&format!("Resource instance {addr} cannot be tainted"));
        return 1;
    }

    let mut backend = match state_meta::open_backend(state_flags.backend_options()) {
        Ok(b) => b,
        Err(e) => {
            ui.legacy_diagnostics(&[Diagnostic::error(
                "Error selecting the current workspace name",
                format!("Failed to select the current workspace: {e}"),
            )]);
            return 1;
        }
    };
    if !state_meta::lock(backend.as_mut(), &state_flags, command, &ui) {
        return 1;
    }
    let code = mark(backend.as_mut(), &addr, taint, allow_missing, &ui);
    if !state_meta::unlock(backend.as_mut(), &ui) {
        return 1;
    }
    code
}

fn mark(
    backend: &mut dyn Backend,
    addr: &AbsResourceInstance,
    taint: bool,
    allow_missing: bool,
    ui: &Ui,
) -> i32 {
    let loaded = match state_meta::read_state(backend) {
        Ok(l) => l,
        Err(diags) => {
            ui.legacy_diagnostics(&[Diagnostic::error(
                "Error refreshing the state",
                format!("Failed to refresh the state: {}", flatten(&diags)),
            )]);
            return 1;
        }
    };
    ui.legacy_diagnostics(&loaded.warnings);
    let mut state = loaded.state.clone().unwrap_or_else(State::new_empty);
    match set_status(&mut state, addr, taint) {
        Ok(()) => {}
        Err(Refusal::Missing(_)) if allow_missing => {
            ui.legacy_diagnostics(&[Diagnostic::warning(
                "No such resource instance",
                format!(
                    "Resource instance {addr} was not found, but this is not an error because \
                     -allow-missing was set."
                ),
            )]);
            return 0;
        }
        Err(Refusal::Missing(d) | Refusal::Other(d)) => {
            ui.legacy_diagnostics(&[d]);
            return 1;
        }
    }
    if let Err(e) = backend.write_state(&state) {
        ui.legacy_diagnostics(&[Diagnostic::error(
            "Error writing state file",
            format!("Failed to persist the new state: {e}"),
        )]);
        return 1;
    }
    state_meta::journal_saved(backend, &loaded);
    if taint {
        ui.output(&format!(
            "Resource instance {addr} has been marked as tainted."
        ));
    } else {
        ui.output(&format!(
            "Resource instance {addr} has been successfully untainted."
        ));
    }
    0
}

fn flatten(diags: &[Diagnostic]) -> String {
    diags
        .iter()
        .map(|d| format!("{}: {}", d.summary, d.detail))
        .collect::<Vec<_>>()
        .join("\n")
}

#[derive(Debug)]
enum Refusal {
    /// No such instance: `-allow-missing` turns it into a warning.
    Missing(Diagnostic),
    Other(Diagnostic),
}

fn no_such_instance(detail: String) -> Diagnostic {
    Diagnostic::error("No such resource instance", detail)
}

/// Marks the current object of `addr` tainted or ready, with Terraform's
/// refusals.
fn set_status(state: &mut State, addr: &AbsResourceInstance, taint: bool) -> Result<(), Refusal> {
    if state.is_empty() {
        return Err(Refusal::Missing(no_such_instance(
            "The state currently contains no resource instances whatsoever. This may occur if the \
             configuration has never been applied or if it has recently been destroyed."
                .to_string(),
        )));
    }
    let Some(instance) = state.instance(addr) else {
        return Err(Refusal::Missing(no_such_instance(format!(
            "There is no resource instance in the state with the address {addr}. If the resource \
             configuration has just been added, you must run \"{PRODUCT} apply\" once to create \
             the corresponding instance(s) before they can be tainted."
        ))));
    };
    if instance.current.is_none() {
        let detail = if instance.deposed.is_empty() {
            format!(
                "Resource instance {addr} does not currently have a remote object associated with \
                 it, so it cannot be tainted."
            )
        } else {
            format!(
                "Resource instance {addr} is currently part-way through a create_before_destroy \
                 replacement action. Run \"{PRODUCT} apply\" to complete its replacement before \
                 tainting it."
            )
        };
        return Err(Refusal::Other(no_such_instance(detail)));
    }
    let Some(object) = state
        .resources
        .get_mut(&addr.containing_resource())
        .and_then(|rs| rs.instances.get_mut(&addr.resource.key))
        .and_then(|is| std::sync::Arc::make_mut(is).current.as_mut())
    else {
        return Err(Refusal::Other(no_such_instance(format!(
            "Resource instance {addr} does not currently have a remote object associated with it, \
             so it cannot be tainted."
        ))));
    };
    if !taint && object.status != ObjectStatus::Tainted {
        return Err(Refusal::Other(Diagnostic::error(
            "Resource instance is not tainted",
            format!(
                "Resource instance {addr} is not currently tainted, and so it cannot be untainted."
            ),
        )));
    }
    object.status = if taint {
        ObjectStatus::Tainted
    } else {
        ObjectStatus::Ready
    };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use terrace_states::statefile;

    fn fixture() -> State {
        let text = r#"{"version": 4, "terraform_version": "1.11.4", "serial": 1, "lineage": "l",
            "outputs": {}, "resources": [
              {"mode": "managed", "type": "terraform_data", "name": "a",
               "provider": "provider[\"terraform.io/builtin/terraform\"]",
               "instances": [
                 {"schema_version": 0, "attributes": {"id": "a"}, "sensitive_attributes": []}]},
              {"mode": "managed", "type": "terraform_data", "name": "d",
               "provider": "provider[\"terraform.io/builtin/terraform\"]",
               "instances": [
                 {"deposed": "0000000a", "schema_version": 0, "attributes": {"id": "d"}, "sensitive_attributes": []}]}
            ], "check_results": null}"#;
        match statefile::read(text.as_bytes()) {
            Ok((state, _)) => state,
            Err(d) => panic!("fixture: {d:?}"),
        }
    }

    fn addr(s: &str) -> AbsResourceInstance {
        match AbsResourceInstance::parse_str(s) {
            Ok(a) => a,
            Err(d) => panic!("{s}: {d:?}"),
        }
    }

    #[test]
    fn taints_and_untaints_with_terraform_refusals() {
        let mut state = fixture();
        let a = addr("terraform_data.a");
        let status = |s: &State| s.object(&a).map(|o| o.status);
        assert!(
            set_status(&mut state, &a, false).is_err(),
            "untaint of a ready object"
        );
        assert!(set_status(&mut state, &a, true).is_ok());
        assert_eq!(status(&state), Some(ObjectStatus::Tainted));
        assert!(
            set_status(&mut state, &a, true).is_ok(),
            "tainting twice is fine"
        );
        assert!(set_status(&mut state, &a, false).is_ok());
        assert_eq!(status(&state), Some(ObjectStatus::Ready));

        match set_status(&mut state, &addr("terraform_data.zz"), true) {
            Err(Refusal::Missing(d)) => {
                assert!(d.detail.contains("terraform_data.zz"), "{}", d.detail)
            }
            other => panic!("{other:?}"),
        }
        match set_status(&mut state, &addr("terraform_data.d"), true) {
            Err(Refusal::Other(d)) => {
                assert!(d.detail.contains("create_before_destroy"), "{}", d.detail)
            }
            other => panic!("{other:?}"),
        }
        match set_status(&mut State::new_empty(), &a, true) {
            Err(Refusal::Missing(d)) => assert!(d.detail.contains("whatsoever"), "{}", d.detail),
            other => panic!("{other:?}"),
        }
    }
}
