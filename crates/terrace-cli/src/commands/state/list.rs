//! `terrace state list [-state=path] [-id=ID] [ADDR...]`: the resource
//! instances in the state, one address a line in Terraform's order,
//! optionally only those under the given modules or resources, or whose
//! object's `id` attribute equals `-id`.

use crate::state_meta::{self, StateFlags, Ui};
use terrace_addrs::AbsResourceInstance;
use terrace_states::model::{AttrsJson, State};

const HELP: &str = "Usage: terrace [global options] state list [options] [address...]

  List resources in the state.

  This command lists resource instances in the state. The address
  argument can be used to filter the instances by resource or module. If
  no pattern is given, all resource instances are listed.

  The addresses must either be module addresses or absolute resource
  addresses, such as:
      aws_instance.example
      module.example
      module.example.module.child
      module.example.aws_instance.example

  An error will be returned if any of the resources or modules given as
  filter addresses do not exist in the state.

Options:

  -state=statefile    Path to a state file to use to look up managed
                      resources. By default, terrace will consult the
                      state of the currently-selected workspace.

  -id=ID              Filters the results to include only instances whose
                      resource types have an attribute named \"id\" whose value
                      equals the given id string.
";

pub fn run(argv: &[String]) -> i32 {
    let mut ui = Ui::new();
    let (flags, addrs) = state_meta::parse_args(argv, &["id"]);
    let mut state_flags = StateFlags::default();
    let mut id = None;
    for (name, value) in flags {
        if let Some(r) = state_flags.take(&["state"], &name, value.as_deref()) {
            if let Err(e) = r {
                return usage_error(&ui, &e);
            }
            continue;
        }
        match (name.as_str(), value) {
            ("help" | "h", _) => {
                out!("{HELP}");
                return 0;
            }
            ("no-color", _) => ui.color = false,
            ("id", Some(v)) => id = Some(v),
            (other, _) => {
                return usage_error(&ui, &format!("flag provided but not defined: -{other}"))
            }
        }
    }
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
    match list(&state, &addrs, id.as_deref()) {
        Ok(found) => {
            for addr in found {
                ui.output(&addr.to_string());
            }
            0
        }
        Err(diags) => {
            ui.legacy_diagnostics(&diags);
            1
        }
    }
}

fn usage_error(ui: &Ui, message: &str) -> i32 {
    out!("{HELP}");
    ui.error(&format!("Error parsing command-line flags: {message}\n"));
    1
}

/// The instances to print, or the diagnostics for filter addresses that
/// match nothing.
fn list(
    state: &State,
    filters: &[String],
    id: Option<&str>,
) -> Result<Vec<AbsResourceInstance>, terrace_syntax::Diagnostics> {
    let mut found = Vec::new();
    let mut diags = Vec::new();
    if filters.is_empty() {
        found = state.all_instances().map(|(addr, _, _)| addr).collect();
        found.sort();
    } else {
        for raw in filters {
            let (more, more_diags) = state_meta::lookup_instances(state, raw, false);
            found.extend(more);
            diags.extend(more_diags);
        }
    }
    if diags.iter().any(terrace_syntax::Diagnostic::is_error) {
        return Err(diags);
    }
    Ok(found
        .into_iter()
        .filter(|addr| match id {
            None | Some("") => true,
            Some(id) => legacy_id(state, addr) == id,
        })
        .collect())
}

/// Terraform's `LegacyInstanceObjectID`: the current object's `id`
/// attribute, as text.
fn legacy_id(state: &State, addr: &AbsResourceInstance) -> String {
    let Some(object) = state.object(addr) else {
        return "<not created>".to_string();
    };
    match &object.attributes {
        AttrsJson::Json(text) => serde_json::from_str::<serde_json::Value>(text)
            .ok()
            .and_then(|v| v.get("id").and_then(|id| id.as_str()).map(str::to_string))
            .unwrap_or_default(),
        AttrsJson::Flat(map) => map.get("id").cloned().unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use terrace_states::statefile;

    fn fixture() -> State {
        let text = r#"{"version": 4, "terraform_version": "1.11.4", "serial": 1, "lineage": "l",
            "outputs": {}, "resources": [
              {"module": "module.m", "mode": "managed", "type": "terraform_data", "name": "a",
               "provider": "provider[\"terraform.io/builtin/terraform\"]",
               "instances": [{"schema_version": 0, "attributes": {"id": "m1"}, "sensitive_attributes": []}]},
              {"mode": "managed", "type": "terraform_data", "name": "b",
               "provider": "provider[\"terraform.io/builtin/terraform\"]",
               "instances": [
                 {"index_key": "y", "schema_version": 0, "attributes": {"id": "y1"}, "sensitive_attributes": []},
                 {"index_key": "x", "schema_version": 0, "attributes": {"id": "x1"}, "sensitive_attributes": []}]},
              {"mode": "data", "type": "terraform_remote_state", "name": "z",
               "provider": "provider[\"terraform.io/builtin/terraform\"]",
               "instances": [{"schema_version": 0, "attributes": {"id": "d"}, "sensitive_attributes": []}]}
            ], "check_results": null}"#;
        match statefile::read(text.as_bytes()) {
            Ok((state, _)) => state,
            Err(d) => panic!("fixture: {d:?}"),
        }
    }

    fn names(found: Vec<AbsResourceInstance>) -> Vec<String> {
        found.iter().map(|a| a.to_string()).collect()
    }

    #[test]
    fn lists_in_terraform_order_with_filters() {
        let state = fixture();
        let cases: &[(&[&str], Option<&str>, &[&str])] = &[
            (
                &[],
                None,
                &[
                    "data.terraform_remote_state.z",
                    "terraform_data.b[\"x\"]",
                    "terraform_data.b[\"y\"]",
                    "module.m.terraform_data.a",
                ],
            ),
            (
                &["terraform_data.b"],
                None,
                &["terraform_data.b[\"x\"]", "terraform_data.b[\"y\"]"],
            ),
            (&["module.m"], None, &["module.m.terraform_data.a"]),
            (&[], Some("y1"), &["terraform_data.b[\"y\"]"]),
            (&[], Some("nope"), &[]),
        ];
        for (filters, id, want) in cases {
            let filters: Vec<String> = filters.iter().map(|s| s.to_string()).collect();
            let got = list(&state, &filters, *id).map(names);
            assert_eq!(
                got,
                Ok(want.iter().map(|s| s.to_string()).collect()),
                "{filters:?}"
            );
        }
    }

    #[test]
    fn unknown_filters_are_all_reported() {
        let state = fixture();
        let filters = vec![
            "module.zz".to_string(),
            "terraform_data.b".to_string(),
            "terraform_data.q".to_string(),
        ];
        let summaries: Vec<String> = match list(&state, &filters, None) {
            Ok(found) => panic!("listed {found:?}"),
            Err(diags) => diags.into_iter().map(|d| d.summary).collect(),
        };
        assert_eq!(summaries, vec!["Unknown module", "Unknown resource"]);
    }
}
