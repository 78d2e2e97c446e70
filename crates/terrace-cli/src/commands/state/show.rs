//! `terrace state show [-state=path] ADDRESS`: one resource instance's
//! current object as Terraform prints it (`# ADDR:` then a `resource`
//! block with aligned attributes, sensitive values hidden), decoded with
//! its provider's schema.

use crate::state_meta::{self, Schemas, StateFlags, Ui};
use std::collections::BTreeSet;
use terrace_addrs::{AbsResourceInstance, InstanceKey};
use terrace_plans::render::{render_state, RenderOptions};
use terrace_states::model::State;
use terrace_syntax::Diagnostic;

const HELP: &str = "Usage: terrace [global options] state show [options] ADDRESS

  Shows the attributes of a resource in the state.

  This command shows the attributes of a single resource in the state.
  The address argument must be used to specify a single resource.
  You can view the list of available resources with \"terrace state list\".

Options:

  -state=statefile    Path to a state file to use to look up managed
                      resources. By default it will use the state
                      \"terraform.tfstate\" if it exists.
";

pub fn run(argv: &[String]) -> i32 {
    let mut ui = Ui::new();
    let (flags, positionals) = state_meta::parse_args(argv, &[]);
    let mut state_flags = StateFlags::default();
    for (name, value) in flags {
        if let Some(r) = state_flags.take(&["state"], &name, value.as_deref()) {
            if let Err(e) = r {
                out!("{HELP}");
                ui.error(&format!("Error parsing command-line flags: {e}\n"));
                return 1;
            }
            continue;
        }
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
    // This command prints its messages without colour.
    let render_color = ui.color;
    ui.color = false;
    let [raw] = positionals.as_slice() else {
        out!("{HELP}");
        ui.error("Exactly one argument expected.");
        return 1;
    };
    let Ok(addr) = AbsResourceInstance::parse_str(raw) else {
        ui.error(&format!(
            "Error parsing instance address: {raw}\n\n{}",
            state_meta::specific_instance_help()
        ));
        return 1;
    };

    let mut backend = match state_meta::open_backend(state_flags.backend_options()) {
        Ok(b) => b,
        Err(e) => {
            ui.error(&e);
            return 1;
        }
    };
    let state = match state_meta::read_state(backend.as_mut()) {
        Ok(loaded) => match loaded.state {
            Some(state) => {
                ui.legacy_diagnostics(&loaded.warnings);
                state
            }
            None => {
                ui.error(&state_meta::no_state_file());
                return 1;
            }
        },
        Err(diags) => {
            ui.legacy_diagnostics(&diags);
            return 1;
        }
    };
    let Some(single) = single_instance_state(&state, &addr) else {
        ui.error(&format!(
            "No instance found for the given address!\n\n{}",
            state_meta::specific_instance_help()
        ));
        return 1;
    };
    let providers: BTreeSet<_> = single
        .resources
        .values()
        .map(|rs| rs.provider.provider.clone())
        .collect();
    let schemas = match Schemas::load(providers) {
        Ok(s) => s,
        Err(diags) => {
            ui.legacy_diagnostics(&diags);
            return 1;
        }
    };
    let lookup = |p: &_, m, t: &str| schemas.resource(p, m, t);
    match render_state(&single, &lookup, &RenderOptions::new(render_color)) {
        Ok(text) => {
            out!("{text}");
            0
        }
        Err(e) => {
            ui.legacy_diagnostics(&[marshal_error(&e)]);
            1
        }
    }
}

/// What Terraform reports when an object cannot be decoded for display.
pub fn marshal_error(e: &str) -> Diagnostic {
    Diagnostic::error(
        "Failed to marshal state to json",
        format!("Error while marshalling state to json: {e}"),
    )
}

/// A state holding only the current object of `addr` (as Terraform
/// builds one to render a single instance); `None` without one.
fn single_instance_state(state: &State, addr: &AbsResourceInstance) -> Option<State> {
    let object = state.object(addr)?;
    let resource = state.resource(&addr.containing_resource())?;
    let mut single = State::new_with_lineage("");
    single.set_current(
        addr,
        resource.provider.clone(),
        InstanceKey::None,
        Some(object.clone()),
    );
    Some(single)
}

#[cfg(test)]
mod tests {
    use super::*;
    use terrace_states::statefile;

    #[test]
    fn only_instances_with_a_current_object_are_shown() {
        let text = r#"{"version": 4, "terraform_version": "1.11.4", "serial": 1, "lineage": "l",
            "outputs": {}, "resources": [
              {"mode": "managed", "type": "terraform_data", "name": "a",
               "provider": "provider[\"terraform.io/builtin/terraform\"]",
               "instances": [
                 {"index_key": 0, "schema_version": 0, "attributes": {"id": "c"}, "sensitive_attributes": []},
                 {"index_key": 1, "deposed": "00000001", "schema_version": 0, "attributes": {"id": "d"}, "sensitive_attributes": []}]}
            ], "check_results": null}"#;
        let state = match statefile::read(text.as_bytes()) {
            Ok((state, _)) => state,
            Err(d) => panic!("fixture: {d:?}"),
        };
        let parse = |s: &str| match AbsResourceInstance::parse_str(s) {
            Ok(a) => a,
            Err(d) => panic!("{s}: {d:?}"),
        };
        let single = single_instance_state(&state, &parse("terraform_data.a[0]"));
        assert_eq!(single.map(|s| s.all_instances().count()), Some(1));
        assert!(single_instance_state(&state, &parse("terraform_data.a[1]")).is_none());
        assert!(single_instance_state(&state, &parse("terraform_data.a")).is_none());
    }
}
