//! Which backend a working directory's state lives in, decided as
//! terraform decides it: the root module's `backend` block against the
//! backend `init` recorded in `.terraform/terraform.tfstate`. Every
//! command that reads or writes state goes through here, so none of them
//! can fall back to a local state silently: a backend block that changed
//! since `init` asks for `init`, and a backend type terrace does not
//! implement is refused by name.

use crate::PRODUCT;
use std::path::{Path, PathBuf};
use terrace_config::model::Module;
use terrace_states::backend::local::LocalBackendOptions;
use terrace_syntax::{Diagnostic, Diagnostics};
use terrace_value::gostr::quote;

/// The local backend's two settings (`None`: not set).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LocalSettings {
    pub path: Option<String>,
    pub workspace_dir: Option<String>,
}

impl LocalSettings {
    pub const NAMES: [&'static str; 2] = ["path", "workspace_dir"];

    pub fn set(&mut self, name: &str, value: Option<String>) {
        match name {
            "path" => self.path = value,
            "workspace_dir" => self.workspace_dir = value,
            _ => {}
        }
    }

    /// Terraform's hash of a backend block: cty's hash of the tuple of the
    /// type and the decoded configuration (CRC-32 of its set-hash text).
    pub fn hash(&self) -> u32 {
        let field = |v: &Option<String>| match v {
            Some(s) => quote(s),
            None => "~".to_string(),
        };
        let text = format!(
            "<\"local\";<{};{};>;>",
            field(&self.path),
            field(&self.workspace_dir)
        );
        terrace_value::crc32::checksum_ieee(text.as_bytes())
    }

    /// Backend options for these settings (command-line overrides such as
    /// `-state` are the caller's to add).
    pub fn options(&self) -> LocalBackendOptions {
        LocalBackendOptions {
            path: self.path.as_ref().map(PathBuf::from),
            workspace_dir: self.workspace_dir.as_ref().map(PathBuf::from),
            ..LocalBackendOptions::default()
        }
    }

    /// The settings that are set, by name.
    pub fn entries(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        if let Some(p) = &self.path {
            out.push(("path".to_string(), p.clone()));
        }
        if let Some(w) = &self.workspace_dir {
            out.push(("workspace_dir".to_string(), w.clone()));
        }
        out
    }
}

/// The backend `init` recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SavedBackend {
    pub type_name: String,
    /// The local backend's settings when `type_name` is `local`.
    pub local: LocalSettings,
    pub hash: u64,
}

/// `.terraform/terraform.tfstate` under `data_dir`.
pub fn backend_state_path(data_dir: &Path) -> PathBuf {
    data_dir.join("terraform.tfstate")
}

/// The backend recorded by an earlier `init`, if any.
pub fn read_saved_backend(path: &Path) -> Result<Option<SavedBackend>, Diagnostics> {
    let failed = |e: String| {
        vec![Diagnostic::error(
            "Failed to load state",
            format!(
                "Failed to load the backend state file {}: {e}.",
                path.display()
            ),
        )]
    };
    let text = match std::fs::read(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(failed(e.to_string())),
    };
    let json: serde_json::Value =
        serde_json::from_slice(&text).map_err(|e| failed(e.to_string()))?;
    let backend = &json["backend"];
    let type_name = backend["type"].as_str().unwrap_or("");
    if backend.is_null() || type_name.is_empty() {
        return Ok(None);
    }
    let get = |k: &str| backend["config"][k].as_str().map(str::to_string);
    Ok(Some(SavedBackend {
        type_name: type_name.to_string(),
        local: LocalSettings {
            path: get("path"),
            workspace_dir: get("workspace_dir"),
        },
        hash: backend["hash"].as_u64().unwrap_or(0),
    }))
}

/// Writes `.terraform/terraform.tfstate` as Terraform writes it for the
/// local backend.
pub fn write_saved_local_backend(
    path: &Path,
    config: &LocalSettings,
    hash: u32,
) -> Result<(), String> {
    let field = |v: &Option<String>| match v {
        Some(s) => serde_json::Value::String(s.clone()).to_string(),
        None => "null".to_string(),
    };
    let text = format!(
        "{{\n  \"version\": 3,\n  \"terraform_version\": \"{}\",\n  \"backend\": {{\n    \"type\": \"local\",\n    \"config\": {{\n      \"path\": {},\n      \"workspace_dir\": {}\n    }},\n    \"hash\": {hash}\n  }}\n}}",
        env!("CARGO_PKG_VERSION"),
        field(&config.path),
        field(&config.workspace_dir)
    );
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
    }
    std::fs::write(path, text).map_err(|e| e.to_string())
}

/// A value of a backend setting as text (`None`: null).
pub fn string_value(v: &terrace_value::Value) -> Result<Option<String>, String> {
    if v.is_null() {
        return Ok(None);
    }
    match terrace_value::convert::convert(v, &terrace_value::Type::String) {
        Ok(s) if s.is_known() => Ok(s.as_str().map(str::to_string)),
        Ok(_) => Err("value must be known".into()),
        Err(e) => Err(e.to_string()),
    }
}

/// The local backend's settings a body sets: a `backend "local"` block,
/// or a `-backend-config` file.
pub fn decode_local_settings(
    body: &terrace_config::body::Body,
) -> (Vec<(String, Option<String>)>, Diagnostics) {
    let mut schema = terrace_config::body::BodySchema::new();
    for name in LocalSettings::NAMES {
        schema = schema.attr(name);
    }
    let (content, mut diags) = body.content(&schema);
    let mut out = Vec::new();
    for attr in &content.attributes {
        let (value, more) = attr.expr.constant_value();
        diags.extend(more);
        match string_value(&value) {
            Ok(v) => out.push((attr.name.clone(), v)),
            Err(e) => diags.push(
                Diagnostic::error(
                    "Incorrect attribute value type",
                    format!(
                        "Inappropriate value for attribute {}: {e}.",
                        quote(&attr.name)
                    ),
                )
                .with_subject(attr.expr.range()),
            ),
        }
    }
    (out, diags)
}

/// The settings a `backend "local"` block itself sets (no
/// `-backend-config`).
pub fn local_block_settings(
    backend: &terrace_config::model::Backend,
) -> (LocalSettings, Diagnostics) {
    let (values, diags) = decode_local_settings(&backend.config);
    let mut block = LocalSettings::default();
    for (name, value) in values {
        block.set(&name, value);
    }
    (block, diags)
}

fn init_required(reason: &str) -> Diagnostic {
    Diagnostic::error(
        format!("Backend initialization required, please run \"{PRODUCT} init\""),
        format!(
            "Reason: {reason}\n\nThe \"backend\" is the interface that {PRODUCT} uses to store state,\nperform operations, etc. If this message is showing up, it means that the\n{PRODUCT} configuration you're using is using a custom configuration for\nthe {PRODUCT} backend.\n\nChanges to backend configurations require reinitialization. This allows\n{PRODUCT} to set up the new configuration, copy existing state, etc. Please run\n\"{PRODUCT} init\" with either the \"-reconfigure\" or \"-migrate-state\" flags to\nuse the current configuration.\n\nIf the change reason above is incorrect, please verify your configuration\nhasn't changed and try again. At this point, no changes to your existing\nconfiguration or state have been made."
        ),
    )
}

/// The refusal of a backend type terrace does not implement.
pub fn unsupported_backend(type_name: &str) -> Diagnostic {
    Diagnostic::error(
        "Unsupported backend type",
        format!(
            "This working directory's state is kept by the {} backend, which {PRODUCT} does not implement. {PRODUCT} will not use a local state instead: it would not be the state of this configuration, and an apply would create everything a second time. Use a tool that supports the {} backend here, or move the state to a local backend with it first.",
            quote(type_name),
            quote(type_name)
        ),
    )
}

/// The local settings of the working directory's backend, given its root
/// module, or why there are none to use.
pub fn working_backend(data_dir: &Path, root: &Module) -> Result<LocalSettings, Diagnostics> {
    let saved = read_saved_backend(&backend_state_path(data_dir))?;
    if root.cloud.is_some() {
        return Err(vec![unsupported_backend("cloud")]);
    }
    match (&root.backend, saved) {
        (None, None) => Ok(LocalSettings::default()),
        (None, Some(saved)) => Err(vec![init_required(&format!(
            "Unsetting the previously set backend {}",
            quote(&saved.type_name)
        ))]),
        (Some(block), None) => {
            if block.type_name != "local" {
                return Err(vec![
                    unsupported_backend(&block.type_name).with_subject(block.type_range.clone())
                ]);
            }
            Err(vec![init_required(&format!(
                "Initial configuration of the requested backend {}",
                quote(&block.type_name)
            ))])
        }
        (Some(block), Some(saved)) => {
            if block.type_name != "local" {
                return Err(vec![
                    unsupported_backend(&block.type_name).with_subject(block.type_range.clone())
                ]);
            }
            if saved.type_name != "local" {
                return Err(vec![init_required(&format!(
                    "Backend type changed from {} to {}",
                    quote(&saved.type_name),
                    quote(&block.type_name)
                ))]);
            }
            let (settings, diags) = local_block_settings(block);
            if diags.iter().any(Diagnostic::is_error) {
                return Err(diags);
            }
            if u64::from(settings.hash()) != saved.hash {
                return Err(vec![init_required(
                    "Backend configuration block has changed",
                )]);
            }
            // The saved settings include what `-backend-config` added.
            Ok(saved.local)
        }
    }
}

/// [`working_backend`] for commands that do not load the whole
/// configuration: reads the root module in `dir` for its backend block.
/// When the root module does not load, what `init` recorded decides
/// alone (and a backend other than local is still refused).
pub fn working_backend_of_dir(dir: &Path, data_dir: &Path) -> Result<LocalSettings, Diagnostics> {
    let (module, diags) = terrace_config::loader::load_module_dir(dir);
    match module {
        Some(module) if !diags.iter().any(Diagnostic::is_error) => {
            working_backend(data_dir, &module)
        }
        _ => match read_saved_backend(&backend_state_path(data_dir))? {
            None => Ok(LocalSettings::default()),
            Some(saved) if saved.type_name == "local" => Ok(saved.local),
            Some(saved) => Err(vec![unsupported_backend(&saved.type_name)]),
        },
    }
}

/// How `init` may move state between backends.
pub struct MigrateOptions {
    /// `-force-copy`: copy without asking.
    pub force_copy: bool,
    /// `-input`: whether asking is allowed at all.
    pub input: bool,
}

/// Asks a yes/no question on the terminal as terraform does; only `yes`
/// agrees.
fn confirm(query: &str, description: &str) -> Result<bool, Diagnostics> {
    use std::io::{BufRead, Write};
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{query}");
    for line in description.lines() {
        let _ = writeln!(out, "  {line}");
    }
    let _ = write!(out, "\n  Enter a value: ");
    let _ = out.flush();
    drop(out);
    let mut line = String::new();
    match std::io::stdin().lock().read_line(&mut line) {
        Ok(0) => Err(vec![Diagnostic::error(
            "Error asking for confirmation: EOF",
            "",
        )]),
        Ok(_) => {
            outln!();
            Ok(line.trim_end_matches(['\n', '\r']) == "yes")
        }
        Err(e) => Err(vec![Diagnostic::error(
            format!("Error asking for confirmation: {e}"),
            "",
        )]),
    }
}

fn migration_failed(e: impl std::fmt::Display) -> Diagnostics {
    vec![Diagnostic::error(
        format!("Error copying state from the previous \"local\" backend to the newly configured \"local\" backend:\n    {e}\n\nThe state in the previous backend remains intact and unmodified. Please resolve the error above and try again."),
        "",
    )]
}

fn local_backend(
    dir: &Path,
    data_dir: &Path,
    settings: &LocalSettings,
) -> terrace_states::backend::LocalBackend {
    terrace_states::backend::LocalBackend::new(dir, settings.options())
        .with_data_dir(data_dir)
        .with_version(crate::operation::TERRAFORM_VERSION)
}

/// Copies the state of every workspace from the local backend `from` to
/// the local backend `to`, asking first unless `-force-copy`, as
/// terraform's `init` does when a backend's configuration changes.
/// Returns whether anything was copied.
pub fn migrate_local_state(
    dir: &Path,
    data_dir: &Path,
    from: &LocalSettings,
    to: &LocalSettings,
    opts: &MigrateOptions,
) -> Result<bool, Diagnostics> {
    let mut source = local_backend(dir, data_dir, from);
    let mut destination = local_backend(dir, data_dir, to);
    let workspaces = source.workspaces().map_err(|e| {
        vec![Diagnostic::error(
            format!("Error loading state from the \"local\" backend: {e}"),
            "",
        )]
    })?;
    let multi = workspaces.iter().any(|w| w != "default");
    let may_ask = |query: &str, description: &str| -> Result<bool, Diagnostics> {
        if opts.force_copy {
            return Ok(true);
        }
        if !opts.input {
            return Err(vec![Diagnostic::error(
                "Can't ask approval for state migration when interactive input is disabled.\n\nIf non-interactive operation is desired, consider adding the \"-force-copy\"\noption. Otherwise, please remove the \"-input=false\" option and try again.",
                "",
            )]);
        }
        confirm(query, description)
    };
    if multi {
        let description = format!("Both the existing \"local\" backend and the newly configured \"local\" backend\nsupport workspaces. When migrating between backends, {PRODUCT} will copy\nall workspaces (with the same names). THIS WILL OVERWRITE any conflicting\nstates in the destination.\n\n{PRODUCT} initialization doesn't currently migrate only select workspaces.\nIf you want to migrate a select number of workspaces, you must manually\npull and push those states.\n\nIf you answer \"yes\", {PRODUCT} will migrate all states. If you answer\n\"no\", {PRODUCT} will abort.");
        if !may_ask(
            "Do you want to migrate all workspaces to \"local\"?",
            &description,
        )? {
            return Err(vec![Diagnostic::error("Migration aborted by user.", "")]);
        }
    }
    let mut copied = false;
    for workspace in &workspaces {
        source.use_workspace(workspace.clone());
        destination.use_workspace(workspace.clone());
        let (from_state, _) = source.read_state().map_err(migration_failed)?;
        let Some(from_state) = from_state.filter(|s| !s.is_empty()) else {
            continue;
        };
        let from_path = dir.join(source.state_paths(workspace).read);
        let to_path = dir.join(destination.state_paths(workspace).write);
        if same_file(&from_path, &to_path) {
            continue;
        }
        let (to_state, _) = destination.read_state().map_err(migration_failed)?;
        let destination_empty = to_state.as_ref().is_none_or(|s| s.is_empty());
        if !multi {
            let description = if destination_empty {
                "Pre-existing state was found while migrating the previous \"local\" backend to the\nnewly configured \"local\" backend. No existing state was found in the newly\nconfigured \"local\" backend. Do you want to copy this state to the new \"local\"\nbackend? Enter \"yes\" to copy and \"no\" to start with an empty state.".to_string()
            } else {
                format!("Pre-existing state was found while migrating the previous \"local\" backend to the\nnewly configured \"local\" backend. An existing non-empty state already exists in\nthe new backend.\n\nPrevious (type \"local\"): {}\nNew      (type \"local\"): {}\n\nDo you want to overwrite the state in the new backend with the previous state?\nEnter \"yes\" to copy and \"no\" to start with the existing state in the newly\nconfigured \"local\" backend.", from_path.display(), to_path.display())
            };
            if !may_ask(
                "Do you want to copy existing state to the new backend?",
                &description,
            )? {
                continue;
            }
        }
        destination
            .lock(
                "OperationTypeInvalid",
                "migration",
                std::time::Duration::ZERO,
            )
            .map_err(|e| vec![e.acquire_diagnostic()])?;
        let written = destination.write_state_for_migration(&from_state);
        let _ = destination.unlock();
        written.map_err(migration_failed)?;
        copied = true;
    }
    Ok(copied)
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}
