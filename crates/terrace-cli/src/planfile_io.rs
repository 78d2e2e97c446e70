//! Saved plans (`plan -out`, `apply PLANFILE`).

use std::path::Path;
use terrace_plans::model::Plan;
use terrace_states::model::State;
use terrace_syntax::{Diagnostic, Diagnostics};

pub fn write(path: &Path, _plan: &Plan, _prior: &State) -> Result<(), Diagnostics> {
    Err(vec![Diagnostic::error(
        "Failed to write plan file",
        format!("{}: saved plans are not available yet", path.display()),
    )])
}

pub fn read(path: &Path, _prior: &State) -> Result<Plan, Diagnostics> {
    Err(vec![Diagnostic::error(
        "Failed to read plan file",
        format!("{}: saved plans are not available yet", path.display()),
    )])
}
