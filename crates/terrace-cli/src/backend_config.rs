//! Which backend a working directory's state lives in, decided as
//! terraform decides it: the root module's `backend` block against the
//! backend `init` recorded in `.terraform/terraform.tfstate`. Every
//! command that reads or writes state goes through here, so none of them
//! can fall back to a local state silently: a backend block that changed
//! since `init` asks for `init`, and a backend type terrace does not
//! implement (`local`, `pg`, `s3` and `http` are) is refused by name.

use crate::PRODUCT;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use terrace_config::model::Module;
use terrace_states::backend::local::LocalBackendOptions;
use terrace_states::backend::{schema, Backend, LocalBackend};
use terrace_states::encryption::StateCodec;
use terrace_syntax::{Diagnostic, Diagnostics};
use terrace_value::gostr::quote;
use terrace_value::{Type, Value};

/// The local backend's two settings (`None`: not set).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LocalSettings {
    pub path: Option<String>,
    pub workspace_dir: Option<String>,
}

impl LocalSettings {
    pub fn set(&mut self, name: &str, value: Option<String>) {
        match name {
            "path" => self.path = value,
            "workspace_dir" => self.workspace_dir = value,
            _ => {}
        }
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
    /// The recorded configuration object, as JSON.
    pub config: serde_json::Value,
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
        config: backend["config"].clone(),
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

/// The backend a working directory's state lives in, as `init` recorded
/// it (its settings include what `-backend-config` added).
#[derive(Clone, Debug)]
pub enum WorkingBackend {
    Local(LocalSettings),
    /// `pg`, `s3`, `http`: the configuration object of the type
    /// [`schema::config_type`] gives.
    Remote {
        type_name: String,
        config: Value,
    },
}

impl Default for WorkingBackend {
    fn default() -> WorkingBackend {
        WorkingBackend::Local(LocalSettings::default())
    }
}

impl WorkingBackend {
    pub fn type_name(&self) -> &str {
        match self {
            WorkingBackend::Local(_) => "local",
            WorkingBackend::Remote { type_name, .. } => type_name,
        }
    }

    /// The configuration as an object of the backend's configuration type.
    pub fn config_value(&self) -> Value {
        match self {
            WorkingBackend::Local(l) => l.to_value(),
            WorkingBackend::Remote { config, .. } => config.clone(),
        }
    }

    /// The backend on the current workspace (`TF_WORKSPACE`, else the
    /// selected one). `local` adds the command line's `-state`,
    /// `-state-out` and `-backup`, which a remote backend does not use.
    /// States are read and written through `codec` (the configuration's
    /// state encryption), on every backend type.
    pub fn open(
        &self,
        dir: &Path,
        data_dir: &Path,
        local: LocalBackendOptions,
        codec: &StateCodec,
    ) -> Result<Box<dyn Backend>, Diagnostics> {
        let mut backend: Box<dyn Backend> = match self {
            WorkingBackend::Local(settings) => Box::new(
                LocalBackend::new(
                    dir,
                    LocalBackendOptions {
                        path: settings.options().path,
                        workspace_dir: settings.options().workspace_dir,
                        ..local
                    },
                )
                .with_data_dir(data_dir)
                .with_version(crate::commands::operation::TERRAFORM_VERSION)
                .with_encryption(codec.clone()),
            ),
            WorkingBackend::Remote { type_name, config } => {
                let opts = terrace_states::backend::OpenOptions {
                    dir: dir.to_path_buf(),
                    data_dir: data_dir.to_path_buf(),
                    version: crate::commands::operation::TERRAFORM_VERSION.to_string(),
                };
                let remote = terrace_states::backend::open_remote_encrypted(
                    type_name,
                    config,
                    &terrace_states::backend::process_env,
                    &opts,
                    codec.clone(),
                )
                .map_err(|e| vec![configure_failed(type_name, &e)])?;
                Box::new(remote)
            }
        };
        let workspace = backend.current_workspace().map_err(|e| {
            vec![e
                .diagnostic()
                .unwrap_or_else(|| Diagnostic::error("Failed to select workspace", e.to_string()))]
        })?;
        backend.use_workspace(workspace);
        Ok(backend)
    }
}

fn configure_failed(type_name: &str, error: &str) -> Diagnostic {
    Diagnostic::error(
        "Failed to configure the backend",
        format!(
            "The {} backend could not be configured: {error}",
            quote(type_name)
        ),
    )
}

impl LocalSettings {
    /// The settings as the local backend's configuration object.
    pub fn to_value(&self) -> Value {
        let field = |v: &Option<String>| match v {
            Some(s) => Value::string(s),
            None => Value::null(Type::String),
        };
        Value::object(
            [
                ("path".to_string(), field(&self.path)),
                ("workspace_dir".to_string(), field(&self.workspace_dir)),
            ]
            .into_iter()
            .collect(),
        )
    }

    pub fn from_value(config: &Value) -> LocalSettings {
        let get = |name: &str| {
            config
                .as_attributes()
                .and_then(|a| a.get(name))
                .and_then(|v| string_value(v).ok().flatten())
        };
        LocalSettings {
            path: get("path"),
            workspace_dir: get("workspace_dir"),
        }
    }
}

/// The configuration a body sets for a backend of `type_name`: each
/// attribute converted to its type, the unset ones null. The body may
/// only set the backend's attributes (a `backend` block, or a
/// `-backend-config` file); `None` for a type terrace does not implement.
pub fn decode_backend_body(
    type_name: &str,
    body: &terrace_config::body::Body,
) -> (Vec<(String, Value)>, Diagnostics) {
    let Some(ty) = schema::config_type(type_name) else {
        return (Vec::new(), vec![unsupported_backend(type_name)]);
    };
    let Some(object) = ty.object_type() else {
        return (Vec::new(), Vec::new());
    };
    let mut body_schema = terrace_config::body::BodySchema::new();
    for name in object.attributes.keys() {
        body_schema = body_schema.attr(name);
    }
    let (content, mut diags) = body.content(&body_schema);
    let mut out = Vec::new();
    for attr in &content.attributes {
        let Some(want) = object.attributes.get(&attr.name) else {
            continue;
        };
        let (value, more) = attr.expr.constant_value();
        let failed = more.iter().any(Diagnostic::is_error);
        diags.extend(more);
        if failed {
            continue;
        }
        match convert_setting(&value, want) {
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

/// Converts a setting to its type; an object-typed setting (`endpoints`,
/// `assume_role`) may leave any of its attributes out, as the backends
/// declare them as nested attributes that are all optional.
fn convert_setting(value: &Value, want: &Type) -> Result<Value, String> {
    let target = match want.object_type() {
        Some(object) => Type::object_with_optional(
            object.attributes.clone(),
            object.attributes.keys().cloned().collect(),
        ),
        None => want.clone(),
    };
    match terrace_value::convert::convert(value, &target) {
        Ok(v) if v.is_wholly_known() => Ok(v),
        Ok(_) => Err("value must be known".to_string()),
        Err(e) => Err(e.to_string()),
    }
}

/// A `-backend-config=NAME=VALUE` pair: a string setting takes the text
/// as it is; any other is read as an HCL expression, as terraform reads
/// it.
pub fn setting_from_cli(
    type_name: &str,
    name: &str,
    raw: &str,
) -> Result<(String, Value), Box<Diagnostic>> {
    let ty =
        schema::config_type(type_name).ok_or_else(|| Box::new(unsupported_backend(type_name)))?;
    let Some(want) = ty.attribute_type(name) else {
        return Err(Box::new(Diagnostic::error(
            "Invalid backend configuration argument",
            format!("The backend configuration argument {} given on the command line is not expected for the selected backend type.", quote(name)),
        )));
    };
    let invalid = |e: String| {
        Box::new(Diagnostic::error(
            "Invalid backend configuration value",
            format!(
                "The backend configuration argument {} given on the command line has an invalid value: {e}.",
                quote(name)
            ),
        ))
    };
    let value = if want.is_primitive() {
        Value::string(raw)
    } else {
        let file = terrace_syntax::ast::SourceFile::new(format!("<backend-config {name}>"), raw);
        let (expr, diags) = terrace_syntax::parse_expression(&file);
        if let Some(d) = diags.iter().find(|d| d.is_error()) {
            return Err(invalid(d.summary.clone()));
        }
        let (value, diags) = terrace_config::expr::Expression::native(&file, expr).constant_value();
        if let Some(d) = diags.iter().find(|d| d.is_error()) {
            return Err(invalid(d.summary.clone()));
        }
        value
    };
    convert_setting(&value, want)
        .map(|v| (name.to_string(), v))
        .map_err(invalid)
}

/// The configuration object: `base` (null attributes when `None`) with
/// `settings` replacing whole attributes, as terraform merges
/// `-backend-config` over the block.
pub fn with_settings(type_name: &str, base: Option<&Value>, settings: &[(String, Value)]) -> Value {
    let empty = schema::empty_config(type_name).unwrap_or_else(|| Value::object(BTreeMap::new()));
    let mut attrs: BTreeMap<String, Value> = base
        .or(Some(&empty))
        .and_then(|v| v.as_attributes())
        .map(terrace_value::Attrs::to_map)
        .unwrap_or_default();
    let want = schema::config_type(type_name);
    for (name, value) in settings {
        let value = match want.as_ref().and_then(|t| t.attribute_type(name)) {
            Some(t) => terrace_value::convert::convert(value, t).unwrap_or_else(|_| value.clone()),
            None => value.clone(),
        };
        attrs.insert(name.clone(), value);
    }
    Value::object(attrs)
}

/// The recorded configuration of a remote backend: the `config` object of
/// `.terraform/terraform.tfstate`, read with the backend's type.
fn saved_remote_config(saved: &SavedBackend) -> Result<Value, Diagnostics> {
    let ty = schema::config_type(&saved.type_name)
        .ok_or_else(|| vec![unsupported_backend(&saved.type_name)])?;
    let text = serde_json::to_vec(&saved.config).unwrap_or_default();
    terrace_value::json::from_json(&text, &ty).map_err(|e| {
        vec![Diagnostic::error(
            "Failed to load state",
            format!(
                "The configuration of the {} backend recorded in {} cannot be read: {e}.",
                quote(&saved.type_name),
                backend_state_path(Path::new(".terraform")).display()
            ),
        )]
    })
}

impl SavedBackend {
    /// The recorded backend as commands use it; an error for a type
    /// terrace does not implement.
    pub fn working(&self) -> Result<WorkingBackend, Diagnostics> {
        if self.type_name == "local" {
            return Ok(WorkingBackend::Local(self.local.clone()));
        }
        if !schema::IMPLEMENTED.contains(&self.type_name.as_str()) {
            return Err(vec![unsupported_backend(&self.type_name)]);
        }
        Ok(WorkingBackend::Remote {
            type_name: self.type_name.clone(),
            config: saved_remote_config(self)?,
        })
    }
}

/// The configuration a `backend` block sets by itself (no
/// `-backend-config`), as its backend's configuration object.
pub fn block_config(backend: &terrace_config::model::Backend) -> (Value, Diagnostics) {
    let (settings, diags) = decode_backend_body(&backend.type_name, &backend.config);
    (with_settings(&backend.type_name, None, &settings), diags)
}

/// Writes `.terraform/terraform.tfstate` as terraform writes it: the
/// backend's type, its whole configuration (null where unset) and the
/// hash of the block.
pub fn write_saved_backend(path: &Path, working: &WorkingBackend, hash: u32) -> Result<(), String> {
    if let WorkingBackend::Local(settings) = working {
        return write_saved_local_backend(path, settings, hash);
    }
    let type_name = working.type_name();
    let ty = schema::config_type(type_name).ok_or("unsupported backend type")?;
    let config_text =
        terrace_value::json::to_json(&working.config_value(), &ty).map_err(|e| e.to_string())?;
    let config: serde_json::Value =
        serde_json::from_str(&config_text).map_err(|e| e.to_string())?;
    let document = serde_json::json!({
        "version": 3,
        "terraform_version": env!("CARGO_PKG_VERSION"),
        "backend": {
            "type": type_name,
            "config": config,
            "hash": hash,
        }
    });
    let text = serde_json::to_string_pretty(&document).map_err(|e| e.to_string())?;
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
    }
    std::fs::write(path, text).map_err(|e| e.to_string())
}

/// The working directory's backend, given its root module, or why there
/// is none to use.
pub fn working_backend(data_dir: &Path, root: &Module) -> Result<WorkingBackend, Diagnostics> {
    let saved = read_saved_backend(&backend_state_path(data_dir))?;
    if root.cloud.is_some() {
        return Err(vec![unsupported_backend("cloud")]);
    }
    match (&root.backend, saved) {
        (None, None) => Ok(WorkingBackend::default()),
        (None, Some(saved)) => Err(vec![init_required(&format!(
            "Unsetting the previously set backend {}",
            quote(&saved.type_name)
        ))]),
        (Some(block), None) => {
            if !schema::IMPLEMENTED.contains(&block.type_name.as_str()) {
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
            if !schema::IMPLEMENTED.contains(&block.type_name.as_str()) {
                return Err(vec![
                    unsupported_backend(&block.type_name).with_subject(block.type_range.clone())
                ]);
            }
            if saved.type_name != block.type_name {
                return Err(vec![init_required(&format!(
                    "Backend type changed from {} to {}",
                    quote(&saved.type_name),
                    quote(&block.type_name)
                ))]);
            }
            let (config, diags) = block_config(block);
            if diags.iter().any(Diagnostic::is_error) {
                return Err(diags);
            }
            if u64::from(schema::config_hash(&block.type_name, &config)) != saved.hash {
                return Err(vec![init_required(
                    "Backend configuration block has changed",
                )]);
            }
            // The saved settings include what `-backend-config` added.
            saved.working()
        }
    }
}

/// [`working_backend`] for commands that do not load the whole
/// configuration: reads the root module in `dir` for its backend block.
/// When the root module does not load, what `init` recorded decides
/// alone.
pub fn working_backend_of_dir(dir: &Path, data_dir: &Path) -> Result<WorkingBackend, Diagnostics> {
    let (module, diags) = terrace_config::loader::load_module_dir(dir);
    match module {
        Some(module) if !diags.iter().any(Diagnostic::is_error) => {
            working_backend(data_dir, &module)
        }
        _ => match read_saved_backend(&backend_state_path(data_dir))? {
            None => Ok(WorkingBackend::default()),
            Some(saved) => saved.working(),
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

fn migration_failed(from: &str, to: &str, e: impl std::fmt::Display) -> Diagnostics {
    vec![Diagnostic::error(
        format!("Error copying state from the previous {} backend to the newly configured {} backend:\n    {e}\n\nThe state in the previous backend remains intact and unmodified. Please resolve the error above and try again.", quote(from), quote(to)),
        "",
    )]
}

/// Backends that keep only the default workspace.
fn single_workspace(type_name: &str) -> bool {
    type_name == "http"
}

/// Copies the state of every workspace from the backend `from` to the
/// backend `to`, asking first unless `-force-copy`, as terraform's `init`
/// does when the backend changes: lineage, serial and resources are
/// copied as they are. To a backend with only the default workspace, only
/// the current workspace goes, after asking. Returns whether anything was
/// copied.
pub fn migrate_state(
    dir: &Path,
    data_dir: &Path,
    from: &WorkingBackend,
    to: &WorkingBackend,
    opts: &MigrateOptions,
    codec: &StateCodec,
) -> Result<bool, Diagnostics> {
    let (from_type, to_type) = (from.type_name().to_string(), to.type_name().to_string());
    let mut source = from.open(dir, data_dir, LocalBackendOptions::default(), codec)?;
    let mut destination = to.open(dir, data_dir, LocalBackendOptions::default(), codec)?;
    let current = source.workspace().to_string();
    let workspaces = source.workspaces().map_err(|e| {
        vec![Diagnostic::error(
            format!(
                "Error loading state from the {} backend: {e}",
                quote(&from_type)
            ),
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
    // Pairs of (source workspace, destination workspace).
    let mut pairs: Vec<(String, String)> =
        workspaces.iter().map(|w| (w.clone(), w.clone())).collect();
    if multi && single_workspace(&to_type) {
        let description = format!("The existing {f} backend supports workspaces and you currently are\nusing more than one. The newly configured {t} backend doesn't support\nworkspaces. If you continue, {PRODUCT} will copy your current workspace {c}\nto the default workspace in the new backend. Your existing workspaces in the\nsource backend won't be modified. If you want to switch workspaces, back them\nup, or cancel altogether, answer \"no\" and {PRODUCT} will abort.", f = quote(&from_type), t = quote(&to_type), c = quote(&current));
        if !may_ask(
            "Do you want to copy only your current workspace?",
            &description,
        )? {
            return Err(vec![Diagnostic::error("Migration aborted by user.", "")]);
        }
        pairs = vec![(current.clone(), "default".to_string())];
    } else if multi {
        let description = format!("Both the existing {f} backend and the newly configured {t} backend\nsupport workspaces. When migrating between backends, {PRODUCT} will copy\nall workspaces (with the same names). THIS WILL OVERWRITE any conflicting\nstates in the destination.\n\n{PRODUCT} initialization doesn't currently migrate only select workspaces.\nIf you want to migrate a select number of workspaces, you must manually\npull and push those states.\n\nIf you answer \"yes\", {PRODUCT} will migrate all states. If you answer\n\"no\", {PRODUCT} will abort.", f = quote(&from_type), t = quote(&to_type));
        if !may_ask(
            &format!(
                "Do you want to migrate all workspaces to {}?",
                quote(&to_type)
            ),
            &description,
        )? {
            return Err(vec![Diagnostic::error("Migration aborted by user.", "")]);
        }
    }
    let failed = |e: &dyn std::fmt::Display| migration_failed(&from_type, &to_type, e);
    let mut copied = false;
    for (from_workspace, to_workspace) in &pairs {
        source.use_workspace(from_workspace.clone());
        destination.use_workspace(to_workspace.clone());
        let (from_state, _) = source.read_state().map_err(|e| failed(&e))?;
        let Some(from_state) = from_state.filter(|s| !s.is_empty()) else {
            continue;
        };
        if let (Some(a), Some(b)) = (source.local(), destination.local()) {
            let from_path = dir.join(a.state_paths(from_workspace).read);
            let to_path = dir.join(b.state_paths(to_workspace).write);
            if same_file(&from_path, &to_path) {
                continue;
            }
        }
        let (to_state, _) = destination.read_state().map_err(|e| failed(&e))?;
        let destination_empty = to_state.as_ref().is_none_or(|s| s.is_empty());
        if !multi {
            let (f, t) = (quote(&from_type), quote(&to_type));
            let description = if destination_empty {
                format!("Pre-existing state was found while migrating the previous {f} backend to the\nnewly configured {t} backend. No existing state was found in the newly\nconfigured {t} backend. Do you want to copy this state to the new {t}\nbackend? Enter \"yes\" to copy and \"no\" to start with an empty state.")
            } else {
                format!("Pre-existing state was found while migrating the previous {f} backend to the\nnewly configured {t} backend. An existing non-empty state already exists in\nthe new backend.\n\nPrevious (type {f}): {}\nNew      (type {t}): {}\n\nDo you want to overwrite the state in the new backend with the previous state?\nEnter \"yes\" to copy and \"no\" to start with the existing state in the newly\nconfigured {t} backend.", source.describe_location(), destination.describe_location())
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
        written.map_err(|e| failed(&e))?;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn attr<'a>(config: &'a Value, name: &str) -> &'a Value {
        config
            .as_attributes()
            .and_then(|a| a.get(name))
            .expect("attribute present")
    }

    /// `-backend-config=NAME=VALUE`: a string setting is the text as
    /// written (quotes and all), other types are HCL expressions, and a
    /// name the backend does not have is terraform's error.
    #[test]
    fn command_line_settings_are_typed_by_the_schema() {
        let (name, v) = setting_from_cli("s3", "key", "\"a/b\"").unwrap();
        assert_eq!(name, "key");
        assert_eq!(v.as_str(), Some("\"a/b\""));
        let (_, v) = setting_from_cli("s3", "use_lockfile", "true").unwrap();
        assert_eq!(v.as_bool(), Some(true));
        let (_, v) = setting_from_cli("http", "retry_max", "0").unwrap();
        assert_eq!(v.as_number().and_then(|n| n.to_i64()), Some(0));
        let (_, v) = setting_from_cli("s3", "endpoints", "{ s3 = \"http://x\" }").unwrap();
        assert_eq!(attr(&v, "s3").as_str(), Some("http://x"));
        assert!(attr(&v, "dynamodb").is_null());
        let e = setting_from_cli("pg", "bogus", "1").unwrap_err();
        assert_eq!(e.summary, "Invalid backend configuration argument");
        let e = setting_from_cli("s3", "use_lockfile", "maybe").unwrap_err();
        assert_eq!(e.summary, "Invalid backend configuration value");
        let e = setting_from_cli("s3", "endpoints", "{ s3 = ").unwrap_err();
        assert_eq!(e.summary, "Invalid backend configuration value");
    }

    /// Overrides replace whole attributes of the block's configuration,
    /// and what is recorded reads back as the same configuration.
    #[test]
    fn overrides_merge_and_the_record_reads_back() {
        let base = with_settings(
            "http",
            None,
            &[("address".to_string(), Value::string("http://a/state"))],
        );
        let merged = with_settings(
            "http",
            Some(&base),
            &[("lock_address".to_string(), Value::string("http://a/lock"))],
        );
        assert_eq!(attr(&merged, "address").as_str(), Some("http://a/state"));
        assert_eq!(
            attr(&merged, "lock_address").as_str(),
            Some("http://a/lock")
        );
        assert!(attr(&merged, "username").is_null());

        let dir =
            std::env::temp_dir().join(format!("terrace-backend-record-{}", std::process::id()));
        let path = dir.join("terraform.tfstate");
        let working = WorkingBackend::Remote {
            type_name: "http".to_string(),
            config: merged.clone(),
        };
        let hash = schema::config_hash("http", &base);
        write_saved_backend(&path, &working, hash).unwrap();
        let saved = read_saved_backend(&path).unwrap().unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(saved.type_name, "http");
        assert_eq!(saved.hash, u64::from(hash));
        let back = saved.working().unwrap();
        assert!(back.config_value().raw_equals(&merged));
    }

    /// A recorded type terrace does not implement is refused by name.
    #[test]
    fn unimplemented_recorded_backend_is_refused() {
        let saved = SavedBackend {
            type_name: "gcs".to_string(),
            local: LocalSettings::default(),
            config: serde_json::json!({}),
            hash: 1,
        };
        let diags = saved.working().unwrap_err();
        assert_eq!(diags[0].summary, "Unsupported backend type");
    }
}
