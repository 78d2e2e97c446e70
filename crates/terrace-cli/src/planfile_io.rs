//! Saved plans (`plan -out`, `apply PLANFILE`): terrace's own plan file
//! (terrace-plans' `planfile`) with what the plan was made from: the
//! configuration's files, the dependency lock file, the backend and the
//! state snapshot. `apply PLANFILE` takes all of these from the file, and
//! refuses a state, a lock file or variables that no longer fit, with
//! terraform's messages.

use crate::backend_config::{LocalSettings, WorkingBackend};
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
    pub backend: &'a WorkingBackend,
    pub workspace: &'a str,
    pub state: Option<&'a SnapshotId>,
    pub apply_time_variables: Vec<String>,
    /// The file `-generate-config-out` wrote, as given.
    pub generated_config: Option<std::path::PathBuf>,
}

pub fn context(
    config: &Config,
    dir: &Path,
    files: &dyn ConfigFiles,
    made_from: MadeFrom<'_>,
) -> PlanContext {
    let mut snapshot = ConfigSnapshot::of(config, dir, files);
    // Generated configuration written into the root module after it was
    // loaded is part of what the plan applies: without it, the resources
    // it declares would have no configuration, and their imports nothing
    // to record them under.
    if let Some(generated) = &made_from.generated_config {
        let in_root = generated
            .parent()
            .is_none_or(|p| p.as_os_str().is_empty() || p == Path::new("."));
        if let (true, Some(name)) = (in_root, generated.file_name()) {
            if let Ok(text) = std::fs::read_to_string(dir.join(generated)) {
                snapshot.add_file(&config.module.source_dir, &name.to_string_lossy(), text);
            }
        }
    }
    PlanContext {
        config_files: snapshot.modules,
        module_manifest: snapshot.module_manifest,
        dependency_locks: made_from.locks_text,
        backend: SavedBackend {
            type_name: made_from.backend.type_name().to_string(),
            config: backend_entries(made_from.backend),
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

/// A backend's settings as the plan file keeps them: the local backend's
/// as text; a remote backend's set attributes each as its JSON.
fn backend_entries(backend: &WorkingBackend) -> std::collections::BTreeMap<String, String> {
    match backend {
        WorkingBackend::Local(settings) => settings.entries().into_iter().collect(),
        WorkingBackend::Remote { config, .. } => config
            .as_attributes()
            .into_iter()
            .flatten()
            .filter(|(_, v)| !v.is_null())
            .filter_map(|(name, v)| {
                terrace_value::json::to_json(v, v.ty())
                    .ok()
                    .map(|json| (name.clone(), json))
            })
            .collect(),
    }
}

/// The backend a saved plan was made with; an error for a backend
/// terrace does not implement.
pub fn backend_settings(file: &PlanFile) -> Result<WorkingBackend, Diagnostics> {
    let backend = &file.context.backend;
    if backend.type_name == "local" {
        let mut settings = LocalSettings::default();
        for (name, value) in &backend.config {
            settings.set(name, Some(value.clone()));
        }
        return Ok(WorkingBackend::Local(settings));
    }
    let ty = terrace_states::backend::schema::config_type(&backend.type_name).ok_or_else(|| {
        vec![crate::backend_config::unsupported_backend(
            &backend.type_name,
        )]
    })?;
    let mut settings = Vec::new();
    for (name, json) in &backend.config {
        let Some(attr_ty) = ty.attribute_type(name) else {
            continue;
        };
        let value = terrace_value::json::from_json(json.as_bytes(), attr_ty).map_err(|e| {
            vec![Diagnostic::error(
                "Failed to load plan file",
                format!("The plan file's backend setting {name:?} cannot be read: {e}."),
            )]
        })?;
        settings.push((name.clone(), value));
    }
    Ok(WorkingBackend::Remote {
        type_name: backend.type_name.clone(),
        config: crate::backend_config::with_settings(&backend.type_name, None, &settings),
    })
}

/// Writes the plan file, encrypted as the configuration's plan
/// encryption says.
pub fn write(
    path: &Path,
    plan: &Plan,
    context: &PlanContext,
    codec: &terrace_states::encryption::PlanCodec,
) -> Result<(), Diagnostics> {
    let failed = |detail: String| {
        vec![Diagnostic::error(
            "Failed to write plan file",
            format!("The plan file could not be written: {detail}."),
        )]
    };
    let bytes = planfile::write(plan, context).map_err(|e| failed(e.to_string()))?;
    let bytes = codec
        .encrypt(&bytes)
        .map_err(|e| vec![Diagnostic::error(e.summary, e.detail)])?;
    std::fs::write(path, bytes).map_err(|e| failed(format!("{}: {e}", path.display())))
}

/// Reads a plan file, decrypting it first as the configuration's plan
/// encryption says.
pub fn read(
    path: &Path,
    codec: &terrace_states::encryption::PlanCodec,
) -> Result<PlanFile, Diagnostics> {
    // terraform looks at the file before reading it: one that is not
    // there is reported with the path error of that look.
    if let Err(e) = std::fs::metadata(path) {
        return Err(vec![Diagnostic::error(
            format!(
                "Failed to load {} as a plan file",
                terrace_value::gostr::quote(&path.to_string_lossy())
            ),
            format!(
                "Error: {}",
                terrace_gocompat::oserror::path_error("stat", path, &e)
            ),
        )]);
    }
    let bytes = std::fs::read(path).map_err(|e| {
        vec![Diagnostic::error(
            "Failed to load plan file",
            format!(
                "Failed to read plan from plan file: {}: {e}",
                path.display()
            ),
        )]
    })?;
    let bytes = codec
        .decrypt(&bytes)
        .map_err(|e| vec![Diagnostic::error(e.summary, e.detail)])?;
    planfile::read(&bytes).map_err(|e| {
        let why = if terrace_states::encryption::is_envelope(&bytes) {
            "the given plan file is encrypted and requires a valid encryption configuration to decrypt".to_string()
        } else {
            e.to_string()
        };
        vec![Diagnostic::error(
            "Failed to load plan file",
            format!("Failed to read plan from plan file: {why}"),
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
