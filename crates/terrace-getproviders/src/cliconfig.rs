//! The CLI configuration: Terraform's `~/.terraformrc` (or the file
//! `TF_CLI_CONFIG_FILE` names, `terraform.rc` on Windows) plus the
//! `*.tfrc` files in `~/.terraform.d`, written in HCL 1. What matters to
//! provider installation is decoded with OpenTofu's rules and messages:
//! the `provider_installation` block (`filesystem_mirror`,
//! `network_mirror`, `direct`, `dev_overrides`, `include`/`exclude`),
//! `plugin_cache_dir`; `credentials`, `credentials_helper`, `host`,
//! `disable_checkpoint` and the like are read and checked but otherwise
//! only carried along.
//!
//! [`provider_source`] turns the result into the [`MultiSource`] `init`
//! installs from, including the implied local mirror directories used
//! when there is no `provider_installation` block.

use crate::hcl1::{self, Item, Node, Pos};
use crate::source::{
    parse_provider_patterns, FilesystemMirrorSource, MultiSource, MultiSourceSelector,
    ProviderPattern, Source,
};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use terrace_addrs::{Hostname, Provider};
use terrace_syntax::{Diagnostic, Diagnostics};
use terrace_value::gostr::quote;

/// One `provider_installation` method.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InstallationLocation {
    /// `direct`: the provider's origin registry.
    Direct,
    /// `filesystem_mirror { path = ... }`.
    FilesystemMirror(String),
    /// `network_mirror { url = ... }`, the URL as written.
    NetworkMirror(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstallationMethod {
    pub location: InstallationLocation,
    pub include: Vec<String>,
    pub exclude: Vec<String>,
    /// `download_retry_count`, when set.
    pub download_retry_count: Option<i64>,
}

/// A `provider_installation` block.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProviderInstallation {
    pub methods: Vec<InstallationMethod>,
    /// `dev_overrides`: providers taken from a local directory, bypassing
    /// versions, the lock file and installation.
    pub dev_overrides: BTreeMap<Provider, PathBuf>,
}

/// The merged CLI configuration.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CliConfig {
    /// After `$VAR` expansion (and `TF_PLUGIN_CACHE_DIR`, which wins).
    pub plugin_cache_dir: Option<String>,
    pub plugin_cache_may_break_dependency_lock_file: bool,
    pub disable_checkpoint: bool,
    pub disable_checkpoint_signature: bool,
    /// `credentials "HOST" { token = "..." }`: the token per host as
    /// written (other attributes are ignored).
    pub credentials: BTreeMap<String, Option<String>>,
    /// `credentials_helper "NAME" { args = [...] }`.
    pub credentials_helpers: BTreeMap<String, Vec<String>>,
    /// `host "HOST" { services = { "providers.v1" = "..." } }`: service
    /// discovery answers given locally instead of fetched.
    pub hosts: BTreeMap<String, BTreeMap<String, String>>,
    /// The same `host` blocks with every service as JSON, objects too
    /// (`login.v1` describes an OAuth client, not a URL).
    pub host_service_documents: BTreeMap<String, serde_json::Map<String, serde_json::Value>>,
    /// Zero or one is valid; more is reported by validation.
    pub provider_installation: Vec<ProviderInstallation>,
}

impl CliConfig {
    /// `dev_overrides` of the (first) `provider_installation` block.
    pub fn dev_overrides(&self) -> BTreeMap<Provider, PathBuf> {
        self.provider_installation
            .first()
            .map(|p| p.dev_overrides.clone())
            .unwrap_or_default()
    }

    /// OpenTofu's `Config.Merge`: `self` wins for single values; lists are
    /// concatenated, `self`'s first; maps take `other`'s entries over
    /// `self`'s.
    pub fn merge(&self, other: &CliConfig) -> CliConfig {
        let mut credentials = self.credentials.clone();
        credentials.extend(other.credentials.clone());
        let mut helpers = self.credentials_helpers.clone();
        helpers.extend(other.credentials_helpers.clone());
        let mut hosts = self.hosts.clone();
        hosts.extend(other.hosts.clone());
        let mut host_service_documents = self.host_service_documents.clone();
        host_service_documents.extend(other.host_service_documents.clone());
        let mut pi = self.provider_installation.clone();
        pi.extend(other.provider_installation.clone());
        CliConfig {
            plugin_cache_dir: self
                .plugin_cache_dir
                .clone()
                .or_else(|| other.plugin_cache_dir.clone()),
            plugin_cache_may_break_dependency_lock_file: self
                .plugin_cache_may_break_dependency_lock_file
                || other.plugin_cache_may_break_dependency_lock_file,
            disable_checkpoint: self.disable_checkpoint || other.disable_checkpoint,
            disable_checkpoint_signature: self.disable_checkpoint_signature
                || other.disable_checkpoint_signature,
            credentials,
            credentials_helpers: helpers,
            hosts,
            host_service_documents,
            provider_installation: pi,
        }
    }

    /// The checks that need the whole merged configuration.
    pub fn validate(&self) -> Diagnostics {
        let mut diags = Vec::new();
        for host in self.hosts.keys() {
            if let Err(e) = Hostname::for_comparison(host) {
                diags.push(plain_error(format!(
                    "The host {} block has an invalid hostname: {e}",
                    quote(host)
                )));
            }
        }
        for host in self.credentials.keys() {
            if let Err(e) = Hostname::for_comparison(host) {
                diags.push(plain_error(format!(
                    "The credentials {} block has an invalid hostname: {e}",
                    quote(host)
                )));
            }
        }
        if self.credentials_helpers.len() > 1 {
            diags.push(plain_error(
                "No more than one credentials_helper block may be specified".into(),
            ));
        }
        if self.provider_installation.len() > 1 {
            diags.push(plain_error(
                "No more than one provider_installation block may be specified".into(),
            ));
        }
        if let Some(dir) = &self.plugin_cache_dir {
            if let Err(e) = std::fs::metadata(dir) {
                diags.push(plain_error(format!(
                    "The specified plugin cache dir {dir} cannot be opened: {}",
                    crate::goerr::path_error("stat", Path::new(dir), &e)
                )));
            }
        }
        diags
    }
}

/// A diagnostic made from a plain Go error: the message is the summary.
fn plain_error(msg: String) -> Diagnostic {
    Diagnostic::error(msg, "")
}

/// What the CLI configuration depends on in the environment, gathered once
/// so tests can supply their own.
#[derive(Clone, Debug, Default)]
pub struct CliEnv {
    /// The user's home directory (`$HOME`).
    pub home: Option<PathBuf>,
    /// The directory terrace was started in (before any `-chdir`).
    pub cwd: PathBuf,
    /// Environment variables, for `TF_*`, `XDG_*`, `APPDATA` and `$VAR`
    /// expansion in `plugin_cache_dir`.
    pub vars: HashMap<String, String>,
}

impl CliEnv {
    pub fn from_process() -> CliEnv {
        let vars: HashMap<String, String> = std::env::vars().collect();
        let home = vars
            .get("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from);
        CliEnv {
            home,
            cwd: std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
            vars,
        }
    }

    fn var(&self, name: &str) -> Option<&str> {
        self.vars
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// `TF_CLI_CONFIG_FILE` (or the older `TERRAFORM_CONFIG`).
    pub fn config_file_override(&self) -> Option<&str> {
        self.var("TF_CLI_CONFIG_FILE")
            .or_else(|| self.var("TERRAFORM_CONFIG"))
    }

    /// The default CLI configuration file: `~/.terraformrc`, or
    /// `%APPDATA%\terraform.rc` on Windows.
    pub fn default_config_file(&self) -> Option<PathBuf> {
        if cfg!(windows) {
            return self
                .var("APPDATA")
                .map(|d| Path::new(d).join("terraform.rc"));
        }
        self.home.as_ref().map(|h| h.join(".terraformrc"))
    }

    /// The CLI configuration directory: `~/.terraform.d`, or
    /// `%APPDATA%\terraform.d` on Windows.
    pub fn config_dir(&self) -> Option<PathBuf> {
        if cfg!(windows) {
            return self
                .var("APPDATA")
                .map(|d| Path::new(d).join("terraform.d"));
        }
        self.home.as_ref().map(|h| h.join(".terraform.d"))
    }

    /// Go's `os.ExpandEnv` over these variables.
    pub fn expand(&self, s: &str) -> String {
        expand_env(s, |name| self.vars.get(name).cloned().unwrap_or_default())
    }
}

/// Go's `os.Expand`: `$NAME`, `${NAME}` and the one-character shell
/// specials; malformed `${` is dropped, a lone `$` kept.
fn expand_env(s: &str, lookup: impl Fn(&str) -> String) -> String {
    let b = s.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    let mut last = 0;
    while i < b.len() {
        if b[i] == b'$' && i + 1 < b.len() {
            out.push_str(&s[last..i]);
            let (name, width) = shell_name(&s[i + 1..]);
            if name.is_empty() && width > 0 {
                // Invalid syntax: the characters are dropped.
            } else if name.is_empty() {
                out.push('$');
            } else {
                out.push_str(&lookup(name));
            }
            i += 1 + width;
            last = i;
        } else {
            i += 1;
        }
    }
    out.push_str(&s[last..]);
    out
}

fn shell_name(s: &str) -> (&str, usize) {
    let b = s.as_bytes();
    let special =
        |c: u8| matches!(c, b'*' | b'#' | b'$' | b'@' | b'!' | b'?' | b'-') || c.is_ascii_digit();
    if b[0] == b'{' {
        if b.len() > 2 && special(b[1]) && b[2] == b'}' {
            return (&s[1..2], 3);
        }
        for i in 1..b.len() {
            if b[i] == b'}' {
                if i == 1 {
                    return ("", 2);
                }
                return (&s[1..i], i + 1);
            }
        }
        return ("", 1);
    }
    if special(b[0]) {
        return (&s[0..1], 1);
    }
    let n = b
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
        .count();
    (&s[..n], n)
}

/// Reads and merges every CLI configuration file, then applies the
/// environment, as `terraform` does at startup. Problems are returned
/// with the configuration (which is still usable).
pub fn load(env: &CliEnv) -> (CliConfig, Diagnostics) {
    let mut diags = Vec::new();
    let mut config = CliConfig::default();
    let override_file = env.config_file_override();
    let main = match override_file {
        Some(p) => Some((PathBuf::from(p), true)),
        None => env.default_config_file().map(|p| (p, false)),
    };
    if let Some((path, must_exist)) = main {
        match std::fs::File::open(&path) {
            Ok(_) => {
                let (main_config, more) = load_file(&path, env);
                diags.extend(more);
                config = main_config.merge(&config);
            }
            Err(e) => {
                if must_exist || e.kind() != std::io::ErrorKind::NotFound {
                    diags.push(Diagnostic::warning(
                        "Unable to open CLI configuration file",
                        format!(
                            "The CLI configuration file at {} does not exist.",
                            quote(&path.to_string_lossy())
                        ),
                    ));
                }
            }
        }
    }
    if override_file.is_none() {
        if let Some(dir) = env.config_dir().filter(|d| d.is_dir()) {
            let (dir_config, more) = load_dir(&dir, env);
            diags.extend(more);
            config = config.merge(&dir_config);
        }
    }
    let mut from_env = CliConfig::default();
    if let Some(dir) = env.var("TF_PLUGIN_CACHE_DIR") {
        from_env.plugin_cache_dir = Some(dir.to_string());
    }
    if env
        .var("TF_PLUGIN_CACHE_MAY_BREAK_DEPENDENCY_LOCK_FILE")
        .is_some_and(|v| v != "0")
    {
        from_env.plugin_cache_may_break_dependency_lock_file = true;
    }
    config = from_env.merge(&config);
    diags.extend(config.validate());
    (config, diags)
}

fn load_dir(dir: &Path, env: &CliEnv) -> (CliConfig, Diagnostics) {
    let mut diags = Vec::new();
    let mut config = CliConfig::default();
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            diags.push(plain_error(format!(
                "Error reading {}: {}",
                dir.display(),
                crate::goerr::path_error("open", dir, &e)
            )));
            return (config, diags);
        }
    };
    let mut names: Vec<String> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for name in names {
        if !(name.ends_with(".tfrc") || name.ends_with(".tfrc.json")) {
            continue;
        }
        let (file_config, more) = load_file(&dir.join(&name), env);
        diags.extend(more);
        config = config.merge(&file_config);
    }
    (config, diags)
}

/// Reads one CLI configuration file.
pub fn load_file(path: &Path, env: &CliEnv) -> (CliConfig, Diagnostics) {
    match std::fs::read(path) {
        Ok(bytes) => {
            let text = String::from_utf8_lossy(&bytes);
            parse(&path.to_string_lossy(), &text, env)
        }
        Err(e) => (
            CliConfig::default(),
            vec![plain_error(format!(
                "Error reading {}: {}",
                path.display(),
                crate::goerr::path_error("open", path, &e)
            ))],
        ),
    }
}

/// Decodes one file's text; `path` names it in messages. Files whose name
/// ends in `.json` are read as JSON.
pub fn parse(path: &str, text: &str, env: &CliEnv) -> (CliConfig, Diagnostics) {
    let mut config = CliConfig::default();
    let mut diags = Vec::new();
    let (items, is_json) = if path.ends_with(".json") {
        match json_items(path, text) {
            Ok(items) => (items, true),
            Err(e) => {
                diags.push(plain_error(format!("Error parsing {path}: {e}")));
                return (config, diags);
            }
        }
    } else {
        match hcl1::parse(text) {
            Ok(items) => (items, false),
            Err(e) => {
                diags.push(plain_error(format!("Error parsing {path}: {e}")));
                return (config, diags);
            }
        }
    };
    if let Err(e) = decode_top_level(&items, &mut config) {
        diags.push(plain_error(format!("Error parsing {path}: {e}")));
        return (config, diags);
    }
    let (pi, more) = decode_provider_installation(&items, is_json);
    diags.extend(more);
    config.provider_installation = pi;
    if let Some(dir) = config.plugin_cache_dir.take() {
        config.plugin_cache_dir = Some(env.expand(&dir));
    }
    (config, diags)
}

/// JSON files as HCL 1 reads them: objects become items.
fn json_items(path: &str, text: &str) -> Result<Vec<Item>, String> {
    use terrace_syntax::ast::{Body, JsonValue, JsonValueKind};
    let (file, diags) = terrace_syntax::parse_json_file(path, text);
    if let Some(d) = diags.iter().find(|d| d.is_error()) {
        return Err(match &d.subject {
            Some(s) => format!("At {}:{}: {}", s.start.line, s.start.column, d.detail),
            None => d.detail.clone(),
        });
    }
    let Body::Json(body) = &file.body else {
        return Err("expected a JSON object".into());
    };
    let pos_of = |span: terrace_syntax::Span| {
        let r = file.source.range(span);
        Pos {
            line: r.start.line as usize,
            column: r.start.column as usize,
        }
    };
    fn node(v: &JsonValue, pos_of: &dyn Fn(terrace_syntax::Span) -> Pos) -> Node {
        let pos = pos_of(v.span);
        let lit = |kind: hcl1::Tok, text: String| Node::Literal(hcl1::Token { kind, pos, text });
        match &v.kind {
            JsonValueKind::String(s) => lit(hcl1::Tok::String, hcl1::quote(s)),
            JsonValueKind::Number(n) => lit(
                if n.contains(['.', 'e', 'E']) {
                    hcl1::Tok::Float
                } else {
                    hcl1::Tok::Number
                },
                n.clone(),
            ),
            JsonValueKind::Bool(b) => lit(hcl1::Tok::Bool, b.to_string()),
            JsonValueKind::Null | JsonValueKind::Invalid => lit(hcl1::Tok::Illegal, String::new()),
            JsonValueKind::Array(items) => Node::List {
                items: items.iter().map(|i| node(i, pos_of)).collect(),
                pos,
            },
            JsonValueKind::Object(props) => Node::Object {
                items: props
                    .iter()
                    .map(|p| Item {
                        keys: vec![hcl1::Key {
                            name: p.name.clone(),
                            pos: pos_of(p.name_span),
                        }],
                        assign: None,
                        val: node(&p.value, pos_of),
                    })
                    .collect(),
                pos,
            },
        }
    }
    Ok(body
        .properties
        .iter()
        .map(|p| Item {
            keys: vec![hcl1::Key {
                name: p.name.clone(),
                pos: pos_of(p.name_span),
            }],
            assign: None,
            val: node(&p.value, &pos_of),
        })
        .collect())
}

/// HCL 1's decoding of a literal into a string field.
fn decode_string(node: &Node, name: &str) -> Result<String, String> {
    match node {
        Node::Literal(t) => hcl1::literal_string(t).ok_or_else(|| {
            format!(
                "At {}: {name}: unknown type for string {}",
                t.pos,
                node.go_type()
            )
        }),
        Node::List { pos, .. } => Err(format!(
            "At {pos}: {name}: unknown type for string *ast.ListType"
        )),
        Node::Object { items, pos } => Err(format!(
            "At {}: {name}: unknown type for string *ast.ObjectList",
            items.first().map(|i| i.pos()).unwrap_or(*pos)
        )),
    }
}

fn decode_bool(node: &Node, name: &str) -> Result<bool, String> {
    match node {
        Node::Literal(t) if t.kind == hcl1::Tok::Bool => Ok(t.text == "true"),
        Node::Literal(t) if t.kind == hcl1::Tok::String => {
            match hcl1::literal_string(t).as_deref() {
                Some("1" | "t" | "T" | "true" | "TRUE" | "True") => Ok(true),
                Some("0" | "f" | "F" | "false" | "FALSE" | "False") => Ok(false),
                _ => Err(format!(
                    "At {}: {name}: strconv.ParseBool: parsing {}: invalid syntax",
                    t.pos,
                    quote(&hcl1::literal_string(t).unwrap_or_default())
                )),
            }
        }
        other => Err(format!(
            "At {}: {name}: unknown type *ast.{}",
            other.pos(),
            other.go_type().trim_start_matches("*ast.")
        )),
    }
}

fn decode_string_list(node: &Node, name: &str) -> Result<Vec<String>, String> {
    match node {
        Node::List { items, .. } => items
            .iter()
            .enumerate()
            .map(|(i, n)| match n {
                // Inside a list an object keeps its own type and position.
                Node::Object { pos, .. } => Err(format!(
                    "At {pos}: {name}[{i}]: unknown type for string *ast.ObjectType"
                )),
                _ => decode_string(n, &format!("{name}[{i}]")),
            })
            .collect(),
        other => Err(format!(
            "At {}: unknown slice type: {}",
            other.pos(),
            other.go_type()
        )),
    }
}

/// The items of an object value, with the remaining keys of a multi-key
/// item (`a "b" { }` is `a = { "b" = { } }`).
fn nested_items(item: &Item) -> Vec<(String, Node)> {
    if item.keys.len() > 1 {
        let mut val = item.val.clone();
        for k in item.keys[2..].iter().rev() {
            val = Node::Object {
                items: vec![Item {
                    keys: vec![k.clone()],
                    assign: None,
                    val,
                }],
                pos: k.pos,
            };
        }
        return vec![(item.keys[1].name.clone(), val)];
    }
    match &item.val {
        Node::Object { items, .. } => items
            .iter()
            .flat_map(|i| {
                if i.keys.len() > 1 {
                    nested_items(i)
                        .into_iter()
                        .map(|(k, v)| {
                            (
                                i.keys[0].name.clone(),
                                Node::Object {
                                    items: vec![Item {
                                        keys: vec![hcl1::Key {
                                            name: k,
                                            pos: i.pos(),
                                        }],
                                        assign: None,
                                        val: v,
                                    }],
                                    pos: i.pos(),
                                },
                            )
                        })
                        .collect::<Vec<_>>()
                } else {
                    vec![(i.keys[0].name.clone(), i.val.clone())]
                }
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn object_fields(node: &Node) -> Vec<(String, Node)> {
    match node {
        Node::Object { items, .. } => items
            .iter()
            .map(|i| {
                (
                    i.keys.first().map(|k| k.name.clone()).unwrap_or_default(),
                    if i.keys.len() > 1 {
                        let mut val = i.val.clone();
                        for k in i.keys[1..].iter().rev() {
                            val = Node::Object {
                                items: vec![Item {
                                    keys: vec![k.clone()],
                                    assign: None,
                                    val,
                                }],
                                pos: k.pos,
                            };
                        }
                        val
                    } else {
                        i.val.clone()
                    },
                )
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The fields HCL 1's `DecodeObject` fills from the top level.
fn decode_top_level(items: &[Item], config: &mut CliConfig) -> Result<(), String> {
    for item in items {
        let Some(key) = item.keys.first() else {
            continue;
        };
        let root = format!("root.{}", key.name);
        match key.name.as_str() {
            "plugin_cache_dir" => config.plugin_cache_dir = Some(decode_string(&item.val, &root)?),
            "plugin_cache_may_break_dependency_lock_file" => {
                config.plugin_cache_may_break_dependency_lock_file = decode_bool(&item.val, &root)?
            }
            "disable_checkpoint" => config.disable_checkpoint = decode_bool(&item.val, &root)?,
            "disable_checkpoint_signature" => {
                config.disable_checkpoint_signature = decode_bool(&item.val, &root)?
            }
            "credentials" => {
                for (host, val) in nested_items(item) {
                    let token = object_fields(&val)
                        .into_iter()
                        .find(|(k, _)| k == "token")
                        .and_then(|(_, v)| match v {
                            Node::Literal(t) => hcl1::literal_string(&t),
                            _ => None,
                        });
                    config.credentials.insert(host, token);
                }
            }
            "credentials_helper" => {
                for (name, val) in nested_items(item) {
                    let mut args = Vec::new();
                    for (k, v) in object_fields(&val) {
                        if k == "args" {
                            args = decode_string_list(&v, &format!("{root}.args"))?;
                        }
                    }
                    config.credentials_helpers.insert(name, args);
                }
            }
            "host" => {
                for (host, val) in nested_items(item) {
                    let mut services = BTreeMap::new();
                    let mut documents = serde_json::Map::new();
                    for (k, v) in object_fields(&val) {
                        if k == "services" {
                            for (svc, url) in object_fields(&v) {
                                if let Node::Literal(t) = &url {
                                    if let Some(s) = hcl1::literal_string(t) {
                                        services.insert(svc.clone(), s);
                                    }
                                }
                                documents.insert(svc, node_json(&url));
                            }
                        }
                    }
                    config
                        .host_service_documents
                        .insert(host.clone(), documents);
                    config.hosts.insert(host, services);
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// An HCL 1 value as JSON: what a `host` block's service says, in the
/// shape a discovery document would say it.
fn node_json(node: &Node) -> serde_json::Value {
    use serde_json::Value as Json;
    match node {
        Node::Literal(t) => match t.kind {
            hcl1::Tok::Bool => Json::Bool(t.text == "true"),
            hcl1::Tok::Number | hcl1::Tok::Float => hcl1::literal_string(t)
                .and_then(|text| serde_json::from_str::<Json>(&text).ok())
                .filter(Json::is_number)
                .unwrap_or_else(|| Json::String(t.text.clone())),
            _ => hcl1::literal_string(t).map_or(Json::Null, Json::String),
        },
        Node::List { items, .. } => Json::Array(items.iter().map(node_json).collect()),
        Node::Object { .. } => Json::Object(
            object_fields(node)
                .into_iter()
                .map(|(k, v)| (k, node_json(&v)))
                .collect(),
        ),
    }
}

fn method_error(detail: String) -> Diagnostic {
    Diagnostic::error("Invalid provider_installation method block", detail)
}

/// OpenTofu's `decodeProviderInstallationFromConfig`, blocks in file
/// order, with its diagnostics.
fn decode_provider_installation(
    items: &[Item],
    is_json: bool,
) -> (Vec<ProviderInstallation>, Diagnostics) {
    let mut out = Vec::new();
    let mut diags = Vec::new();
    for block in items.iter().filter(|i| {
        i.keys
            .first()
            .is_some_and(|k| k.name == "provider_installation")
    }) {
        let pos = block.pos();
        if block.assign.is_some() && !is_json {
            diags.push(Diagnostic::error(
                "Invalid provider_installation block",
                format!("The provider_installation block at {pos} must not be introduced with an equals sign."),
            ));
            continue;
        }
        if block.keys.len() > 1 && !is_json {
            diags.push(Diagnostic::error(
                "Invalid provider_installation block",
                format!("The provider_installation block at {pos} must not have any labels."),
            ));
        }
        let Node::Object { items: methods, .. } = &block.val else {
            diags.push(Diagnostic::error(
                "Invalid provider_installation block",
                format!("The provider_installation block at {pos} must not be introduced with an equals sign."),
            ));
            continue;
        };
        let mut pi = ProviderInstallation::default();
        for method in methods {
            if method.assign.is_some() && !is_json {
                diags.push(method_error(format!(
                    "The items inside the provider_installation block at {pos} must all be blocks."
                )));
                continue;
            }
            if method.keys.len() > 1 && !is_json {
                diags.push(method_error(format!(
                    "The blocks inside the provider_installation block at {pos} may not have any labels."
                )));
            }
            if !matches!(method.val, Node::Object { .. }) {
                diags.push(method_error(format!(
                    "The items inside the provider_installation block at {pos} must all be blocks."
                )));
                continue;
            }
            let kind = method.keys.first().map(|k| k.name.as_str()).unwrap_or("");
            let fields = object_fields(&method.val);
            let get = |name: &str| fields.iter().find(|(k, _)| k == name).map(|(_, v)| v);
            let body = |f: &dyn Fn() -> Result<InstallationMethod, String>| {
                f().map_err(|e| format!("Invalid {kind} block at {pos}: {e}."))
            };
            let list = |name: &str| -> Result<Vec<String>, String> {
                match get(name) {
                    Some(v) => decode_string_list(v, &format!("root.{name}")),
                    None => Ok(Vec::new()),
                }
            };
            let retries = || -> Result<Option<i64>, String> {
                match get("download_retry_count") {
                    None => Ok(None),
                    Some(v) => {
                        let s = decode_string(v, "root.download_retry_count")?;
                        s.parse().map(Some).map_err(|_| {
                            format!(
                                "At {}: root.download_retry_count: strconv.ParseInt: parsing {}: invalid syntax",
                                v.pos(),
                                quote(&s)
                            )
                        })
                    }
                }
            };
            let required = |name: &str| -> Result<String, String> {
                match get(name) {
                    Some(v) => decode_string(v, &format!("root.{name}")),
                    None => Ok(String::new()),
                }
            };
            let decoded = match kind {
                "direct" => body(&|| {
                    Ok(InstallationMethod {
                        location: InstallationLocation::Direct,
                        include: list("include")?,
                        exclude: list("exclude")?,
                        download_retry_count: retries()?,
                    })
                }),
                "filesystem_mirror" => body(&|| {
                    Ok(InstallationMethod {
                        location: InstallationLocation::FilesystemMirror(required("path")?),
                        include: list("include")?,
                        exclude: list("exclude")?,
                        download_retry_count: None,
                    })
                }),
                "network_mirror" => body(&|| {
                    Ok(InstallationMethod {
                        location: InstallationLocation::NetworkMirror(required("url")?),
                        include: list("include")?,
                        exclude: list("exclude")?,
                        download_retry_count: retries()?,
                    })
                }),
                "dev_overrides" => {
                    if !pi.methods.is_empty() {
                        diags.push(method_error(format!(
                            "The dev_overrides block at at {} must appear before all other installation methods, because development overrides always have the highest priority.",
                            method.pos()
                        )));
                        continue;
                    }
                    for (raw_addr, raw_path) in &fields {
                        let path = match decode_string(raw_path, &format!("root.{raw_addr}")) {
                            Ok(p) => p,
                            Err(e) => {
                                diags.push(method_error(format!(
                                    "Invalid {kind} block at {pos}: {e}."
                                )));
                                continue;
                            }
                        };
                        match Provider::parse_source_str(raw_addr) {
                            Ok(addr) => {
                                pi.dev_overrides.insert(addr, clean_path(&path));
                            }
                            Err(ds) => {
                                let err = ds
                                    .iter()
                                    .map(|d| format!("{}: {}", d.summary, d.detail))
                                    .collect::<Vec<_>>()
                                    .join("; ");
                                diags.push(Diagnostic::error(
                                    "Invalid provider installation dev overrides",
                                    format!(
                                        "The entry {} in {pos} is not a valid provider source string.\n\n{err}",
                                        quote(raw_addr)
                                    ),
                                ));
                            }
                        }
                    }
                    continue;
                }
                other => {
                    diags.push(method_error(format!(
                        "Unknown provider installation method {} at {}.",
                        quote(other),
                        method.pos()
                    )));
                    continue;
                }
            };
            match decoded {
                Ok(m) => {
                    let missing = match &m.location {
                        InstallationLocation::FilesystemMirror(p) if p.is_empty() => Some("path"),
                        InstallationLocation::NetworkMirror(u) if u.is_empty() => Some("url"),
                        _ => None,
                    };
                    if let Some(arg) = missing {
                        diags.push(method_error(format!(
                            "Invalid {kind} block at {pos}: \"{arg}\" argument is required."
                        )));
                        continue;
                    }
                    pi.methods.push(m);
                }
                Err(detail) => diags.push(method_error(detail)),
            }
        }
        out.push(pi);
    }
    (out, diags)
}

/// Go's `filepath.Clean` for Unix paths.
pub(crate) fn clean_path(p: &str) -> PathBuf {
    PathBuf::from(terrace_gocompat::path::clean(p))
}

/// The directories searched for providers when the CLI configuration has
/// no `provider_installation` block, in priority order (whether or not
/// they exist): `terraform.d/plugins` in the starting directory, the CLI
/// configuration directory's `plugins`, then the platform's data
/// directories (XDG on Unix: `$XDG_DATA_HOME` or `~/.local/share`, then
/// `$XDG_DATA_DIRS` or `/usr/local/share:/usr/share`, each with
/// `terraform/plugins`).
pub fn implied_local_mirror_dirs(env: &CliEnv) -> Vec<PathBuf> {
    let mut dirs = vec![env.cwd.join("terraform.d").join("plugins")];
    if let Some(cd) = env.config_dir() {
        dirs.push(cd.join("plugins"));
    }
    if cfg!(target_os = "macos") {
        if let Some(h) = &env.home {
            dirs.push(h.join("Library/Application Support/io.terraform/plugins"));
        }
        dirs.push(PathBuf::from(
            "/Library/Application Support/io.terraform/plugins",
        ));
    } else if cfg!(windows) {
        if let Some(d) = env.var("APPDATA") {
            dirs.push(
                Path::new(d)
                    .join("HashiCorp")
                    .join("Terraform")
                    .join("plugins"),
            );
        }
    } else {
        let abs = |p: &str| Path::new(p).is_absolute();
        let data_home = env
            .var("XDG_DATA_HOME")
            .filter(|p| abs(p))
            .map(PathBuf::from)
            .or_else(|| env.home.as_ref().map(|h| h.join(".local/share")));
        if let Some(d) = data_home {
            dirs.push(d.join("terraform/plugins"));
        }
        let others: Vec<PathBuf> = match env.var("XDG_DATA_DIRS") {
            Some(list) => list
                .split(':')
                .filter(|p| abs(p))
                .map(PathBuf::from)
                .collect(),
            None => vec![
                PathBuf::from("/usr/local/share"),
                PathBuf::from("/usr/share"),
            ],
        };
        for d in others {
            dirs.push(d.join("terraform/plugins"));
        }
    }
    dirs
}

/// Makes the sources that need the network: a provider's origin registry
/// (`direct`) and network mirrors.
pub trait RemoteSources {
    fn registry(&self, retries: Option<i64>) -> Box<dyn Source>;
    fn network_mirror(&self, url: &str, retries: Option<i64>) -> Box<dyn Source>;
}

/// The source `init` installs from: the `provider_installation` block's
/// methods in order, or, without one, the implied local mirror
/// directories that exist followed by the origin registries for every
/// provider not found in them.
pub fn provider_source(
    config: &CliConfig,
    env: &CliEnv,
    remote: &dyn RemoteSources,
) -> (MultiSource, Diagnostics) {
    let Some(pi) = config.provider_installation.first() else {
        return (implicit_source(env, remote), Vec::new());
    };
    let mut diags = Vec::new();
    let mut selectors = Vec::new();
    for m in &pi.methods {
        let source: Box<dyn Source> = match &m.location {
            InstallationLocation::Direct => remote.registry(m.download_retry_count),
            InstallationLocation::FilesystemMirror(path) => {
                Box::new(FilesystemMirrorSource::new(path))
            }
            InstallationLocation::NetworkMirror(url) => {
                if let Err(detail) = check_mirror_url(url) {
                    diags.push(Diagnostic::error(
                        "Invalid URL for provider installation source",
                        detail,
                    ));
                    continue;
                }
                remote.network_mirror(url, m.download_retry_count)
            }
        };
        let include = match parse_provider_patterns(&m.include) {
            Ok(p) => p,
            Err(e) => {
                diags.push(Diagnostic::error(
                    "Invalid provider source inclusion patterns",
                    format!("CLI config specifies invalid provider inclusion patterns: {e}."),
                ));
                continue;
            }
        };
        let exclude = match parse_provider_patterns(&m.exclude) {
            Ok(p) => p,
            Err(e) => {
                diags.push(Diagnostic::error(
                    "Invalid provider source exclusion patterns",
                    format!("CLI config specifies invalid provider exclusion patterns: {e}."),
                ));
                continue;
            }
        };
        selectors.push(MultiSourceSelector {
            source,
            include,
            exclude,
        });
    }
    (MultiSource(selectors), diags)
}

fn check_mirror_url(url: &str) -> Result<(), String> {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let host = rest.split(['/', '?', '#']).next().unwrap_or("");
    if !scheme.eq_ignore_ascii_case("https") || host.is_empty() {
        return Err(format!(
            "Cannot use {} as a URL for a network provider mirror: the mirror must be at an https: URL.",
            quote(url)
        ));
    }
    Ok(())
}

fn implicit_source(env: &CliEnv, remote: &dyn RemoteSources) -> MultiSource {
    let mut selectors = Vec::new();
    let mut found_locally: BTreeSet<Provider> = BTreeSet::new();
    for dir in implied_local_mirror_dirs(env) {
        if !dir.is_dir() {
            continue;
        }
        let fs = FilesystemMirrorSource::new(&dir);
        if let Ok(all) = fs.all_packages() {
            found_locally.extend(all.keys().cloned());
        }
        selectors.push(MultiSourceSelector::new(Box::new(fs)));
    }
    selectors.push(MultiSourceSelector {
        source: remote.registry(None),
        include: Vec::new(),
        exclude: found_locally.iter().map(ProviderPattern::exactly).collect(),
    });
    MultiSource(selectors)
}

/// `-plugin-dir`: only the given directories, as filesystem mirrors.
pub fn plugin_dir_source(dirs: &[PathBuf]) -> MultiSource {
    MultiSource(
        dirs.iter()
            .map(|d| MultiSourceSelector::new(Box::new(FilesystemMirrorSource::new(d))))
            .collect(),
    )
}

#[cfg(test)]
mod tests;
