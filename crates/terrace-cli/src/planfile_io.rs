//! Saved plans (`plan -out`, `apply PLANFILE`): terrace's own plan file
//! (terrace-plans' `planfile`) with what the plan was made from: the
//! configuration's files, the dependency lock file, the backend and the
//! state snapshot. `apply PLANFILE` takes all of these from the file, and
//! refuses a state, a lock file or variables that no longer fit, with
//! terraform's messages.

use crate::backend_config::LocalSettings;
use crate::journal::SnapshotId;
use std::path::Path;
use terrace_config::files::{ConfigFiles, ConfigSnapshot};
use terrace_config::loader::Config;
use terrace_getproviders::lockfile::Locks;
use terrace_plans::model::Plan;
use terrace_plans::planfile::{self, PlanContext, PlanFile, SavedBackend};
use terrace_syntax::{Diagnostic, Diagnostics};

/// What a plan made now from `config` records: its configuration's
/// files, with the lock file's text, the backend, the state snapshot and
/// the apply-time variables given.
pub struct MadeFrom<'a> {
    pub locks_text: Option<String>,
    pub backend: &'a LocalSettings,
    pub workspace: &'a str,
    pub state: Option<&'a SnapshotId>,
    pub apply_time_variables: Vec<String>,
}

pub fn context(
    config: &Config,
    dir: &Path,
    files: &dyn ConfigFiles,
    made_from: MadeFrom<'_>,
) -> PlanContext {
    let snapshot = ConfigSnapshot::of(config, dir, files);
    PlanContext {
        config_files: snapshot.modules,
        module_manifest: snapshot.module_manifest,
        dependency_locks: made_from.locks_text,
        backend: SavedBackend {
            type_name: "local".into(),
            config: made_from.backend.entries().into_iter().collect(),
            workspace: made_from.workspace.to_string(),
        },
        state: made_from.state.map(|s| (s.lineage.clone(), s.serial)),
        apply_time_variables: made_from.apply_time_variables,
    }
}

/// The configuration files a saved plan carries.
pub fn config_files(file: &PlanFile) -> ConfigSnapshot {
    ConfigSnapshot {
        modules: file.context.config_files.clone(),
        module_manifest: file.context.module_manifest.clone(),
    }
}

/// The local backend settings a saved plan was made with; an error for a
/// backend terrace does not implement.
pub fn backend_settings(file: &PlanFile) -> Result<LocalSettings, Diagnostics> {
    let backend = &file.context.backend;
    if backend.type_name != "local" {
        return Err(vec![crate::backend_config::unsupported_backend(
            &backend.type_name,
        )]);
    }
    let mut settings = LocalSettings::default();
    for (name, value) in &backend.config {
        settings.set(name, Some(value.clone()));
    }
    Ok(settings)
}

pub fn write(path: &Path, plan: &Plan, context: &PlanContext) -> Result<(), Diagnostics> {
    let failed = |detail: String| {
        vec![Diagnostic::error(
            "Failed to write plan file",
            format!("The plan file could not be written: {detail}."),
        )]
    };
    let bytes = planfile::write(plan, context).map_err(|e| failed(e.to_string()))?;
    std::fs::write(path, bytes).map_err(|e| failed(format!("{}: {e}", path.display())))
}

pub fn read(path: &Path) -> Result<PlanFile, Diagnostics> {
    let bytes = std::fs::read(path).map_err(|e| {
        vec![Diagnostic::error(
            "Failed to load plan file",
            format!(
                "Failed to read plan from plan file: {}: {e}",
                path.display()
            ),
        )]
    })?;
    planfile::read(&bytes).map_err(|e| {
        vec![Diagnostic::error(
            "Failed to load plan file",
            format!("Failed to read plan from plan file: {e}"),
        )]
    })
}

/// Terraform's refusal to apply a plan with other provider selections
/// than it was made with: the working directory's lock file must hold
/// exactly the selections the plan's does.
pub fn check_locks(file: &PlanFile, current: &Locks) -> Option<Diagnostic> {
    let saved = match &file.context.dependency_locks {
        Some(text) => {
            let (locks, diags) = Locks::parse(text, terrace_getproviders::lockfile::LOCK_FILE_NAME);
            if diags.iter().any(Diagnostic::is_error) {
                return Some(inconsistent_locks());
            }
            locks
        }
        None => Locks::new(),
    };
    (saved != *current).then(inconsistent_locks)
}

fn inconsistent_locks() -> Diagnostic {
    Diagnostic::error(
        "Inconsistent dependency lock file",
        "The given plan file was created with a different set of external dependency selections than the current configuration. A saved plan can be applied only to the same configuration it was created from.\n\nCreate a new plan from the updated configuration.",
    )
}
