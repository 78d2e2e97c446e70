//! The `terraform_remote_state` data source: the root outputs of another
//! configuration's latest state, read through a backend, with `defaults`
//! for outputs the state lacks.
//!
//! terrace implements the `local` backend only (`path`, `workspace_dir`,
//! workspaces under `terraform.tfstate.d`). Relative paths are relative to
//! the working directory the provider was created with, as Terraform's
//! are relative to its own. Every other backend Terraform knows is an
//! error at validation, so that a configuration using one fails before
//! anything is planned.

use crate::outputs::{read_outputs, ReadOutputs};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use terrace_providers::{AttributePath, Diagnostic, Diagnostics};
use terrace_states::encryption::StateCodec;
use terrace_value::convert::{convert, format_path, PathStep};
use terrace_value::{Type, Value};

const DEFAULT_WORKSPACE: &str = "default";
const DEFAULT_STATE_FILENAME: &str = "terraform.tfstate";
const DEFAULT_WORKSPACE_DIR: &str = "terraform.tfstate.d";

/// Backends Terraform 1.11 has that terrace does not implement (`s3`,
/// `pg` and `http` are read through terrace-states).
const OTHER_TERRAFORM_BACKENDS: &[&str] = &[
    "azurerm",
    "cloud",
    "consul",
    "cos",
    "gcs",
    "inmem",
    "kubernetes",
    "oss",
    "remote",
];

/// Backends Terraform no longer has, with the reason it gives.
fn removed_backend(name: &str) -> Option<String> {
    match name {
        "azure" => {
            Some(r#"The "azure" backend name has been removed, please use "azurerm"."#.into())
        }
        "artifactory" | "etcd" | "etcdv3" | "manta" | "swift" => Some(format!(
            "The {name:?} backend is not supported in Terraform v1.3 or later."
        )),
        _ => None,
    }
}

/// The local backend's settings after validation.
#[derive(Clone, Debug, PartialEq, Eq)]
struct LocalBackend {
    path: Option<String>,
    workspace_dir: Option<String>,
}

impl LocalBackend {
    /// The state file of a workspace: `path` belongs to the default
    /// workspace only; the others live under the workspace directory.
    fn state_path(&self, workspace: &str) -> PathBuf {
        if workspace == DEFAULT_WORKSPACE || workspace.is_empty() {
            PathBuf::from(self.path.as_deref().unwrap_or(DEFAULT_STATE_FILENAME))
        } else {
            self.workspace_dir()
                .join(workspace)
                .join(DEFAULT_STATE_FILENAME)
        }
    }

    fn workspace_dir(&self) -> PathBuf {
        PathBuf::from(
            self.workspace_dir
                .as_deref()
                .unwrap_or(DEFAULT_WORKSPACE_DIR),
        )
    }
}

fn attribute(config: &Value, name: &str) -> Value {
    config
        .as_attributes()
        .and_then(|attributes| attributes.get(name).cloned())
        .unwrap_or_else(|| Value::null(Type::Dynamic))
}

fn at(name: &str) -> AttributePath {
    AttributePath::root().attribute(name)
}

/// Whether a value's type could be an object or map once known.
fn object_like(ty: &Type) -> bool {
    ty.is_dynamic() || ty.is_object() || ty.is_map()
}

pub fn validate(config: &Value) -> Diagnostics {
    let mut diagnostics = Diagnostics::new();
    if config.is_null() || !config.is_known() {
        return diagnostics;
    }
    let backend_config = attribute(config, "config");
    let backend = attribute(config, "backend");
    if backend_config.is_wholly_known() && backend.is_known() {
        // A null backend is the missing required argument the caller
        // reports from the schema.
        let remote = backend.as_str().filter(|n| REMOTE_BACKENDS.contains(n));
        if let Some(name) = remote {
            if let Err(message) = remote_settings(name, &backend_config) {
                diagnostics.push(
                    Diagnostic::error(
                        "Invalid backend configuration",
                        format!(
                            "The given configuration is not valid for backend {name:?}: {message}."
                        ),
                    )
                    .with_attribute(at("config")),
                );
            }
        } else if !backend.is_null() {
            if let Err(more) = backend_from_config(config) {
                diagnostics.extend(more);
            }
        }
    } else if !object_like(backend_config.ty()) {
        diagnostics.push(
            Diagnostic::error(
                "Invalid backend configuration",
                "The configuration must be an object value.",
            )
            .with_attribute(at("config")),
        );
    }
    if !object_like(attribute(config, "defaults").ty()) {
        diagnostics.push(
            Diagnostic::error(
                "Invalid default values",
                "Defaults must be given in an object value.",
            )
            .with_attribute(at("defaults")),
        );
    }
    diagnostics
}

/// Picks the backend named in `backend` and checks `config` against it.
fn backend_from_config(config: &Value) -> Result<LocalBackend, Diagnostics> {
    let backend = attribute(config, "backend");
    let Some(name) = backend.as_str() else {
        return Err(Diagnostic::error(
            "Invalid backend configuration",
            "The backend type must be a known string.",
        )
        .with_attribute(at("backend"))
        .into());
    };
    // "_local" is an old spelling that Terraform still accepts.
    let name = if name == "_local" { "local" } else { name };
    if name != "local" {
        let detail = if let Some(reason) = removed_backend(name) {
            reason
        } else if OTHER_TERRAFORM_BACKENDS.contains(&name) {
            format!(
                "The {name:?} backend is not supported by terrace yet; terraform_remote_state can only read from the \"local\" backend."
            )
        } else {
            format!("There is no backend type named {name:?}.")
        };
        return Err(Diagnostic::error("Invalid backend configuration", detail)
            .with_attribute(at("backend"))
            .into());
    }
    let local = coerce_local_config(&attribute(config, "config")).map_err(|message| {
        Diagnostics::from(
            Diagnostic::error(
                "Invalid backend configuration",
                format!("The given configuration is not valid for backend {name:?}: {message}."),
            )
            .with_attribute(at("config")),
        )
    })?;
    let mut diagnostics = Diagnostics::new();
    // These name attributes of the backend configuration, which Terraform
    // cannot point at in the data source's block, so it reports them on
    // the whole block; so does terrace.
    if local.path.as_deref() == Some("") {
        diagnostics.push(Diagnostic::error(
            "Invalid local state file path",
            r#"The "path" attribute value must not be empty."#,
        ));
    }
    if local.workspace_dir.as_deref() == Some("") {
        diagnostics.push(Diagnostic::error(
            "Invalid local workspace directory path",
            r#"The "workspace_dir" attribute value must not be empty."#,
        ));
    }
    if diagnostics.has_errors() {
        return Err(diagnostics);
    }
    Ok(local)
}

/// The backend configuration as the local backend's schema (`path` and
/// `workspace_dir`, optional strings) accepts it, or the message of
/// Terraform's schema coercion.
fn coerce_local_config(config: &Value) -> Result<LocalBackend, String> {
    if config.is_null() {
        return Ok(LocalBackend {
            path: None,
            workspace_dir: None,
        });
    }
    let ty = config.ty();
    if !ty.is_object() && !ty.is_map() {
        return Err("an object is required".into());
    }
    let Some(attributes) = config.as_attributes() else {
        return Err("an object is required".into());
    };
    if let Some(name) = attributes
        .keys()
        .find(|name| !matches!(name.as_str(), "path" | "workspace_dir"))
    {
        return Err(format!("unexpected attribute {name:?}"));
    }
    let string = |name: &str| -> Result<Option<String>, String> {
        let Some(value) = attributes.get(name) else {
            return Ok(None);
        };
        let converted = convert(value, &Type::String).map_err(|e| {
            let mut path = vec![PathStep::Attr(name.to_string())];
            path.extend(e.path.iter().cloned());
            format!("{}: {}", format_path(&path), e.message)
        })?;
        if converted.is_null() {
            return Ok(None);
        }
        match converted.as_str() {
            Some(s) => Ok(Some(s.to_string())),
            None => Err(format!(
                "{}: value must be known",
                format_path(&[PathStep::Attr(name.to_string())])
            )),
        }
    };
    Ok(LocalBackend {
        path: string("path")?,
        workspace_dir: string("workspace_dir")?,
    })
}

/// Reads the data source. The result is null when the backend cannot be
/// used at all; when the state is missing it carries empty outputs along
/// with the error, as Terraform's does.
pub fn read(config: &Value, working_dir: &Path, codec: &StateCodec) -> (Value, Diagnostics) {
    let ty = crate::schema::remote_state_schema().implied_type();
    let mut diagnostics = Diagnostics::new();
    if !config.is_wholly_known() || !config.ty().is_object() {
        diagnostics.push(Diagnostic::error(
            "Invalid terraform_remote_state configuration",
            "The configuration must be a wholly known object to read remote state.",
        ));
        return (Value::null(ty), diagnostics);
    }
    if let Some(name) = attribute(config, "backend")
        .as_str()
        .filter(|n| REMOTE_BACKENDS.contains(n))
    {
        return read_remote(config, name, working_dir, codec);
    }
    let backend = match backend_from_config(config) {
        Ok(backend) => backend,
        Err(more) => return (Value::null(ty), more),
    };

    let mut new_state = BTreeMap::new();
    new_state.insert("backend".to_string(), attribute(config, "backend"));
    new_state.insert("config".to_string(), attribute(config, "config"));
    let workspace = attribute(config, "workspace");
    let workspace_name = workspace.as_str().unwrap_or(DEFAULT_WORKSPACE).to_string();
    new_state.insert("workspace".to_string(), workspace.clone());

    if let Err(e) = create_workspace_dir(&backend, &workspace_name, working_dir) {
        diagnostics.push(
            Diagnostic::error(
                "Error loading state error",
                format!("error loading the remote state: {e}"),
            )
            .with_attribute(at("backend")),
        );
        return (Value::null(ty), diagnostics);
    }

    let mut outputs = BTreeMap::new();
    let defaults = attribute(config, "defaults");
    if defaults.is_null() {
        new_state.insert("defaults".to_string(), Value::null(Type::Dynamic));
    } else {
        if let Some(members) = defaults.as_attributes() {
            outputs.extend(members.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        new_state.insert("defaults".to_string(), defaults);
    }

    let state_path = working_dir.join(backend.state_path(&workspace_name));
    match read_state_file(&state_path, codec) {
        Err(more) => {
            diagnostics.extend(more);
            return (Value::null(ty), diagnostics);
        }
        Ok(ReadOutputs::NoState) => {
            diagnostics.push(
                Diagnostic::error(
                    "Unable to find remote state",
                    "No stored state was found for the given workspace in the given backend.",
                )
                .with_attribute(at("workspace")),
            );
            new_state.insert("outputs".to_string(), Value::empty_object());
            return (Value::object(new_state), diagnostics);
        }
        Ok(ReadOutputs::Outputs(values)) => outputs.extend(values),
    }
    new_state.insert("outputs".to_string(), Value::object(outputs));
    (Value::object(new_state), diagnostics)
}

/// The remote backends the data source reads through terrace-states.
const REMOTE_BACKENDS: [&str; 3] = ["s3", "pg", "http"];

/// The data source on a remote backend: `config` checked against the
/// backend's configuration schema, the backend configured (the
/// environment variables it reads included), and the workspace's state
/// read without a lock, as terraform reads it.
fn read_remote(
    config: &Value,
    name: &str,
    working_dir: &Path,
    codec: &StateCodec,
) -> (Value, Diagnostics) {
    let ty = crate::schema::remote_state_schema().implied_type();
    let invalid = |message: String| {
        Diagnostics::from(
            Diagnostic::error(
                "Invalid backend configuration",
                format!("The given configuration is not valid for backend {name:?}: {message}."),
            )
            .with_attribute(at("config")),
        )
    };
    let settings = match remote_settings(name, &attribute(config, "config")) {
        Ok(settings) => settings,
        Err(message) => return (Value::null(ty), invalid(message)),
    };
    let opts = terrace_states::backend::OpenOptions {
        dir: working_dir.to_path_buf(),
        data_dir: working_dir.join(".terraform"),
        version: terrace_states::TERRAFORM_VERSION.to_string(),
    };
    let mut backend = match terrace_states::backend::open_remote_encrypted(
        name,
        &settings,
        &terrace_states::backend::process_env,
        &opts,
        codec.clone(),
    ) {
        Ok(b) => b,
        Err(message) => {
            return (
                Value::null(ty),
                Diagnostic::error(
                    "Error loading state error",
                    format!("error loading the remote state: {message}"),
                )
                .with_attribute(at("backend"))
                .into(),
            )
        }
    };
    let workspace = attribute(config, "workspace");
    let workspace_name = workspace.as_str().unwrap_or(DEFAULT_WORKSPACE).to_string();
    use terrace_states::backend::Backend;
    backend.use_workspace(workspace_name);
    let mut new_state = BTreeMap::new();
    new_state.insert("backend".to_string(), attribute(config, "backend"));
    new_state.insert("config".to_string(), attribute(config, "config"));
    new_state.insert("workspace".to_string(), workspace);
    let mut outputs = BTreeMap::new();
    let defaults = attribute(config, "defaults");
    if defaults.is_null() {
        new_state.insert("defaults".to_string(), Value::null(Type::Dynamic));
    } else {
        if let Some(members) = defaults.as_attributes() {
            outputs.extend(members.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        new_state.insert("defaults".to_string(), defaults);
    }
    let mut diagnostics = Diagnostics::new();
    match backend.read_state() {
        Err(e) => {
            diagnostics.push(
                Diagnostic::error(
                    "Error loading state error",
                    format!("error loading the remote state: {e}"),
                )
                .with_attribute(at("backend")),
            );
            return (Value::null(ty), diagnostics);
        }
        Ok((None, _)) => {
            diagnostics.push(
                Diagnostic::error(
                    "Unable to find remote state",
                    "No stored state was found for the given workspace in the given backend.",
                )
                .with_attribute(at("workspace")),
            );
            new_state.insert("outputs".to_string(), Value::empty_object());
            return (Value::object(new_state), diagnostics);
        }
        Ok((Some(state), _)) => {
            let (bytes, _) = terrace_states::statefile::write_with_diagnostics(&state);
            match read_outputs(&bytes) {
                Ok(ReadOutputs::Outputs(values)) => outputs.extend(values),
                Ok(ReadOutputs::NoState) => {}
                Err(more) => {
                    diagnostics.extend(more);
                    return (Value::null(ty), diagnostics);
                }
            }
        }
    }
    new_state.insert("outputs".to_string(), Value::object(outputs));
    (Value::object(new_state), diagnostics)
}

/// The data source's `config` as the backend's configuration object:
/// only its attributes, each converted to its type (object-typed ones may
/// leave attributes out), the rest null.
fn remote_settings(name: &str, config: &Value) -> Result<Value, String> {
    let Some(schema_ty) = terrace_states::backend::schema::config_type(name) else {
        return Err(format!("there is no backend type named {name:?}"));
    };
    let Some(object) = schema_ty.object_type() else {
        return Err("an object is required".into());
    };
    let mut out: BTreeMap<String, Value> = object
        .attributes
        .iter()
        .map(|(k, t)| (k.clone(), Value::null(t.clone())))
        .collect();
    if config.is_null() {
        return Ok(Value::object(out));
    }
    let Some(given) = config.as_attributes() else {
        return Err("an object is required".into());
    };
    for (key, value) in given {
        let Some(want) = object.attributes.get(key) else {
            return Err(format!("unexpected attribute {key:?}"));
        };
        let target = match want.object_type() {
            Some(inner) => Type::object_with_optional(
                inner.attributes.clone(),
                inner.attributes.keys().cloned().collect(),
            ),
            None => want.clone(),
        };
        let converted = convert(value, &target).map_err(|e| {
            let mut path = vec![PathStep::Attr(key.clone())];
            path.extend(e.path.iter().cloned());
            format!("{}: {}", format_path(&path), e.message)
        })?;
        out.insert(key.clone(), converted);
    }
    Ok(Value::object(out))
}

/// The local backend makes a workspace's directory when it is first used,
/// even just to read it; Terraform leaves it behind after reading a
/// workspace that does not exist, and so does terrace.
fn create_workspace_dir(
    backend: &LocalBackend,
    workspace: &str,
    working_dir: &Path,
) -> Result<(), String> {
    if workspace == DEFAULT_WORKSPACE {
        return Ok(());
    }
    let dir = working_dir.join(backend.workspace_dir()).join(workspace);
    if dir.is_dir() {
        return Ok(());
    }
    std::fs::create_dir_all(&dir).map_err(|e| {
        format!(
            "mkdir {}: {}",
            dir.display(),
            terrace_gocompat::oserror::errno_text(&e)
        )
    })
}

fn read_state_file(path: &Path, codec: &StateCodec) -> Result<ReadOutputs, Diagnostics> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(ReadOutputs::NoState),
        Err(e) => {
            return Err(Diagnostic::error(
                "Failed to read state file",
                format!(
                    "The state file could not be read: read {}: {}",
                    path.display(),
                    terrace_gocompat::oserror::errno_text(&e)
                ),
            )
            .into())
        }
    };
    if bytes.is_empty() {
        return Ok(ReadOutputs::NoState);
    }
    let (plain, _) = codec
        .decrypt(&bytes)
        .map_err(|e| Diagnostics::from(Diagnostic::error(e.summary, e.detail)))?;
    read_outputs(&plain)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(attributes: &[(&str, Value)]) -> Value {
        Value::object(
            attributes
                .iter()
                .map(|(name, value)| (name.to_string(), value.clone()))
                .collect(),
        )
    }

    /// The data source's configuration with the given attributes and
    /// nulls for the rest.
    fn config(given: &[(&str, Value)]) -> Value {
        let mut attributes: BTreeMap<String, Value> = [
            ("backend", Value::null(Type::String)),
            ("config", Value::null(Type::Dynamic)),
            ("defaults", Value::null(Type::Dynamic)),
            ("outputs", Value::null(Type::Dynamic)),
            ("workspace", Value::null(Type::String)),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        for (name, value) in given {
            attributes.insert(name.to_string(), value.clone());
        }
        Value::object(attributes)
    }

    fn local(backend_config: Value) -> Value {
        config(&[
            ("backend", Value::string("local")),
            ("config", backend_config),
        ])
    }

    /// (summary, detail, attribute) of each diagnostic.
    type Described = Vec<(String, String, String)>;

    fn described(diagnostics: &Diagnostics) -> Described {
        diagnostics
            .iter()
            .map(|d| {
                (
                    d.summary.clone(),
                    d.detail.clone(),
                    d.attribute
                        .as_ref()
                        .map(ToString::to_string)
                        .unwrap_or_default(),
                )
            })
            .collect()
    }

    fn one(summary: &str, detail: &str, attribute: &str) -> Described {
        vec![(summary.into(), detail.into(), attribute.into())]
    }

    #[test]
    fn validation() {
        let invalid = "Invalid backend configuration";
        let cases: Vec<(&str, Value, Described)> = vec![
            (
                "local without config",
                local(Value::null(Type::Dynamic)),
                vec![],
            ),
            (
                "local with path",
                local(obj(&[("path", Value::string("x.tfstate"))])),
                vec![],
            ),
            (
                "map config, number converts to string",
                local(Value::map(
                    Type::Number,
                    [("path".to_string(), Value::int(12))].into(),
                )),
                vec![],
            ),
            (
                "old _local name",
                config(&[("backend", Value::string("_local"))]),
                vec![],
            ),
            (
                "unknown backend",
                config(&[("backend", Value::string("foo"))]),
                one(
                    invalid,
                    r#"There is no backend type named "foo"."#,
                    ".backend",
                ),
            ),
            (
                "removed backend",
                config(&[("backend", Value::string("etcd"))]),
                one(
                    invalid,
                    r#"The "etcd" backend is not supported in Terraform v1.3 or later."#,
                    ".backend",
                ),
            ),
            (
                "renamed backend",
                config(&[("backend", Value::string("azure"))]),
                one(
                    invalid,
                    r#"The "azure" backend name has been removed, please use "azurerm"."#,
                    ".backend",
                ),
            ),
            (
                "backend terrace lacks",
                config(&[("backend", Value::string("gcs"))]),
                one(
                    invalid,
                    r#"The "gcs" backend is not supported by terrace yet; terraform_remote_state can only read from the "local" backend."#,
                    ".backend",
                ),
            ),
            (
                "remote backend, its own settings",
                config(&[
                    ("backend", Value::string("pg")),
                    (
                        "config",
                        obj(&[("conn_str", Value::string("postgres://x"))]),
                    ),
                ]),
                vec![],
            ),
            (
                "remote backend, a setting it does not have",
                config(&[
                    ("backend", Value::string("s3")),
                    ("config", obj(&[("path", Value::string("x"))])),
                ]),
                one(
                    invalid,
                    r#"The given configuration is not valid for backend "s3": unexpected attribute "path"."#,
                    ".config",
                ),
            ),
            (
                "unexpected attribute",
                local(obj(&[("foo", Value::int(1))])),
                one(
                    invalid,
                    r#"The given configuration is not valid for backend "local": unexpected attribute "foo"."#,
                    ".config",
                ),
            ),
            (
                "not an object",
                local(Value::string("s")),
                one(
                    invalid,
                    r#"The given configuration is not valid for backend "local": an object is required."#,
                    ".config",
                ),
            ),
            (
                "wrong attribute type",
                local(obj(&[("path", Value::tuple(vec![Value::int(1)]))])),
                one(
                    invalid,
                    r#"The given configuration is not valid for backend "local": .path: string required."#,
                    ".config",
                ),
            ),
            (
                "empty paths",
                local(obj(&[
                    ("path", Value::string("")),
                    ("workspace_dir", Value::string("")),
                ])),
                vec![
                    (
                        "Invalid local state file path".into(),
                        r#"The "path" attribute value must not be empty."#.into(),
                        String::new(),
                    ),
                    (
                        "Invalid local workspace directory path".into(),
                        r#"The "workspace_dir" attribute value must not be empty."#.into(),
                        String::new(),
                    ),
                ],
            ),
            (
                "unknown config that cannot be an object",
                config(&[
                    ("backend", Value::string("local")),
                    ("config", Value::unknown(Type::String)),
                ]),
                one(
                    invalid,
                    "The configuration must be an object value.",
                    ".config",
                ),
            ),
            (
                "unknown config that may be an object",
                config(&[
                    ("backend", Value::string("nonsense")),
                    ("config", Value::dynamic()),
                ]),
                vec![],
            ),
            (
                "defaults must be an object",
                config(&[
                    ("backend", Value::string("local")),
                    ("defaults", Value::tuple(vec![Value::string("a")])),
                ]),
                one(
                    "Invalid default values",
                    "Defaults must be given in an object value.",
                    ".defaults",
                ),
            ),
        ];
        for (name, value, want) in cases {
            assert_eq!(described(&validate(&value)), want, "{name}");
        }
    }

    use terrace_testsupport::TempDir;

    const FIXTURE: &str = include_str!("../testdata/outputs.tfstate");

    fn outputs_of(state: &Value) -> Value {
        attribute(state, "outputs")
    }

    #[test]
    fn reads_outputs_with_defaults() {
        let dir = TempDir::new("read");
        dir.write("src/terraform.tfstate", FIXTURE);
        let defaults = obj(&[("s", Value::string("def")), ("extra", Value::string("e"))]);
        let cfg = config(&[
            ("backend", Value::string("local")),
            (
                "config",
                obj(&[("path", Value::string("src/terraform.tfstate"))]),
            ),
            ("defaults", defaults.clone()),
        ]);
        let (state, diagnostics) = read(&cfg, dir.path(), &StateCodec::disabled());
        assert!(diagnostics.is_empty(), "{diagnostics}");
        let want_outputs = obj(&[
            ("extra", Value::string("e")),
            ("l", Value::tuple(vec![Value::int(1), Value::string("a")])),
            (
                "m",
                obj(&[
                    ("a", Value::int(1)),
                    ("b", Value::tuple(vec![Value::bool(true)])),
                ]),
            ),
            ("n", Value::int(42)),
            ("s", Value::string("hello")),
            ("sec", Value::string("pw")),
        ]);
        let got = outputs_of(&state);
        assert!(got.raw_equals(&want_outputs), "{got:?}");
        assert!(attribute(&state, "defaults").raw_equals(&defaults));
        assert!(attribute(&state, "workspace").raw_equals(&Value::null(Type::String)));
        assert!(attribute(&state, "backend").raw_equals(&Value::string("local")));
        assert_eq!(
            state.ty().object_type().map(|o| o.attributes.len()),
            Some(5)
        );
    }

    #[test]
    fn default_path_and_workspaces() {
        let dir = TempDir::new("workspaces");
        dir.write("terraform.tfstate", FIXTURE);
        let (state, diagnostics) = read(
            &local(Value::null(Type::Dynamic)),
            dir.path(),
            &StateCodec::disabled(),
        );
        assert!(diagnostics.is_empty(), "{diagnostics}");
        assert!(attribute(&state, "defaults").raw_equals(&Value::null(Type::Dynamic)));
        assert!(attribute(&outputs_of(&state), "n").raw_equals(&Value::int(42)));

        // Another workspace ignores `path` and reads its own directory.
        dir.write(
            "wsdir/staging/terraform.tfstate",
            r#"{"version":4,"terraform_version":"1.11.4","serial":1,"lineage":"l","outputs":{"only":{"value":true,"type":"bool"}},"resources":[]}"#,
        );
        let cfg = config(&[
            ("backend", Value::string("local")),
            (
                "config",
                obj(&[
                    ("path", Value::string("terraform.tfstate")),
                    ("workspace_dir", Value::string("wsdir")),
                ]),
            ),
            ("workspace", Value::string("staging")),
        ]);
        let (state, diagnostics) = read(&cfg, dir.path(), &StateCodec::disabled());
        assert!(diagnostics.is_empty(), "{diagnostics}");
        assert!(outputs_of(&state).raw_equals(&obj(&[("only", Value::bool(true))])));
    }

    #[test]
    fn missing_state() {
        let dir = TempDir::new("missing");
        let cfg = config(&[
            ("backend", Value::string("local")),
            ("workspace", Value::string("nope")),
        ]);
        let (state, diagnostics) = read(&cfg, dir.path(), &StateCodec::disabled());
        assert_eq!(
            described(&diagnostics),
            one(
                "Unable to find remote state",
                "No stored state was found for the given workspace in the given backend.",
                ".workspace"
            )
        );
        assert!(outputs_of(&state).raw_equals(&Value::empty_object()));
        // As Terraform does, reading a workspace creates its directory.
        assert!(dir.join("terraform.tfstate.d/nope").is_dir());

        // An empty file is no state either.
        dir.write("terraform.tfstate", "");
        let (_, diagnostics) = read(
            &local(Value::null(Type::Dynamic)),
            dir.path(),
            &StateCodec::disabled(),
        );
        assert_eq!(
            diagnostics.iter().next().map(|d| d.summary.as_str()),
            Some("Unable to find remote state")
        );
    }

    #[test]
    fn unreadable_and_invalid_states() {
        let dir = TempDir::new("invalid");
        std::fs::create_dir_all(dir.join("adir")).unwrap_or_else(|e| panic!("{e}"));
        let (state, diagnostics) = read(
            &local(obj(&[("path", Value::string("adir"))])),
            dir.path(),
            &StateCodec::disabled(),
        );
        assert!(state.is_null());
        let first = diagnostics
            .iter()
            .next()
            .map(|d| (d.summary.clone(), d.detail.clone()));
        let Some((summary, detail)) = first else {
            panic!("no diagnostics");
        };
        assert_eq!(summary, "Failed to read state file");
        assert!(detail.ends_with("adir: is a directory"), "{detail}");

        dir.write("bad.tfstate", r#"{"version":4,"serial":1,"lineage":"x","outputs":{"a":{"value":"x","type":"number"}},"resources":[]}"#);
        let (state, diagnostics) = read(
            &local(obj(&[("path", Value::string("bad.tfstate"))])),
            dir.path(),
            &StateCodec::disabled(),
        );
        assert!(state.is_null());
        assert_eq!(
            described(&diagnostics),
            one(
                "Invalid output value saved in state",
                r#"The state file has an invalid value for output "a": a number is required."#,
                ""
            )
        );

        // A workspace directory that cannot be made.
        dir.write("file", "");
        let cfg = config(&[
            ("backend", Value::string("local")),
            ("config", obj(&[("workspace_dir", Value::string("file"))])),
            ("workspace", Value::string("w")),
        ]);
        let (state, diagnostics) = read(&cfg, dir.path(), &StateCodec::disabled());
        assert!(state.is_null());
        let got = described(&diagnostics);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].0, "Error loading state error");
        assert!(
            got[0]
                .1
                .starts_with("error loading the remote state: mkdir "),
            "{}",
            got[0].1
        );
        assert!(got[0].1.ends_with(": not a directory"), "{}", got[0].1);
        assert_eq!(got[0].2, ".backend");
    }

    #[test]
    fn read_rejects_bad_backends() {
        let dir = TempDir::new("bad-backend");
        let (state, diagnostics) = read(
            &config(&[("backend", Value::string("foo"))]),
            dir.path(),
            &StateCodec::disabled(),
        );
        assert!(state.is_null());
        assert_eq!(diagnostics.len(), 1);
        let (state, diagnostics) = read(&Value::string("x"), dir.path(), &StateCodec::disabled());
        assert!(state.is_null());
        assert!(diagnostics.has_errors());
    }
}
