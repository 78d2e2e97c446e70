//! Saved plans (`plan -out`, `apply PLANFILE`): terrace's own plan file
//! (terrace-plans' `planfile`), tied to the configuration it was made from
//! (a hash of every configuration file) and to the state it was made
//! against (lineage and serial), so applying it later to anything else is
//! refused with terraform's "Saved plan is stale".

use std::path::Path;
use terrace_config::loader::Config;
use terrace_plans::model::Plan;
use terrace_plans::planfile;
use terrace_states::model::State;
use terrace_syntax::{Diagnostic, Diagnostics};

fn config_hash(config: &Config) -> String {
    let files = config.files();
    planfile::config_hash(files.iter().map(|f| (f.name.as_str(), f.text.as_bytes())))
}

fn state_meta(state: &State) -> Option<(&str, u64)> {
    (!state.lineage.is_empty()).then_some((state.lineage.as_str(), state.serial))
}

pub fn write(path: &Path, plan: &Plan, prior: &State, config: &Config) -> Result<(), Diagnostics> {
    let failed = |detail: String| {
        vec![Diagnostic::error(
            "Failed to write plan file",
            format!("The plan file could not be written: {detail}."),
        )]
    };
    let bytes = planfile::write(plan, &config_hash(config), state_meta(prior))
        .map_err(|e| failed(e.to_string()))?;
    std::fs::write(path, bytes).map_err(|e| failed(format!("{}: {e}", path.display())))
}

pub fn read(path: &Path, current: &State, config: &Config) -> Result<Plan, Diagnostics> {
    let bytes = std::fs::read(path).map_err(|e| {
        vec![Diagnostic::error(
            "Failed to load plan file",
            format!(
                "Failed to read plan from plan file: {}: {e}",
                path.display()
            ),
        )]
    })?;
    let file = planfile::read(&bytes).map_err(|e| {
        vec![Diagnostic::error(
            "Failed to load plan file",
            format!("Failed to read plan from plan file: {e}"),
        )]
    })?;
    if let Some(problem) = file.check_applicable(state_meta(current), &config_hash(config)) {
        return Err(vec![problem]);
    }
    Ok(file.plan)
}
