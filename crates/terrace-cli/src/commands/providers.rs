//! `terrace providers`: the provider requirements of every module of the
//! configuration as a tree, and the providers the state's resources
//! belong to, printed as `terraform providers` prints them. Also what the
//! provider subcommands share: collecting requirements (OpenTofu's
//! `ProviderRequirementsByModule`), reading the local state's providers,
//! and printing diagnostics.
//!
//! Terraform lists a module's providers and child modules in Go map order,
//! which changes from run to run; terrace sorts both (providers by
//! address, modules by name).

use crate::args::{self, Arg};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use terrace_addrs::{AbsProviderConfig, Provider};
use terrace_config::loader::{load_config, Config, LoadOptions};
use terrace_config::model::{Module, VersionConstraint};
use terrace_getproviders::VersionConstraints;
use terrace_syntax::render::{render_diagnostic, RenderStyle, SourceMap, DEFAULT_WIDTH};
use terrace_syntax::PRODUCT;
use terrace_syntax::{Diagnostic, Diagnostics, Severity};

const USAGE: &str = "
Usage: terrace [global options] providers [options] [DIR]

  Prints out a tree of modules in the referenced configuration annotated with
  their provider requirements.

  This provides an overview of all of the provider requirements across all
  referenced modules, as an aid to understanding why particular provider
  plugins are needed and why particular versions are selected.

Subcommands:
    lock      Write out dependency locks for the configured providers
    mirror    Save local copies of all required provider plugins
    schema    Show schemas for the providers used in the configuration
";

/// One module's requirements and its children's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModuleRequirements {
    pub requirements: BTreeMap<Provider, VersionConstraints>,
    pub children: BTreeMap<String, ModuleRequirements>,
}

impl ModuleRequirements {
    /// Every provider of the tree with all its modules' constraints.
    pub fn merged(&self) -> BTreeMap<Provider, VersionConstraints> {
        let mut out = BTreeMap::new();
        self.merge_into(&mut out);
        out
    }

    fn merge_into(&self, out: &mut BTreeMap<Provider, VersionConstraints>) {
        for (provider, constraints) in &self.requirements {
            out.entry(provider.clone()).or_default().merge(constraints);
        }
        for child in self.children.values() {
            child.merge_into(out);
        }
    }
}

/// The requirements of every module of `config`: `required_providers`
/// entries with their constraints, providers implied by resources and
/// `import` blocks, and `provider` blocks with their (deprecated)
/// `version` constraints.
pub fn requirements_by_module(config: &Config) -> (ModuleRequirements, Diagnostics) {
    let mut diags = Vec::new();
    let requirements = module_requirements(&config.module, &mut diags);
    let mut children = BTreeMap::new();
    for (name, child) in &config.children {
        let (reqs, more) = requirements_by_module(child);
        diags.extend(more);
        children.insert(name.clone(), reqs);
    }
    (
        ModuleRequirements {
            requirements,
            children,
        },
        diags,
    )
}

fn module_requirements(
    module: &Module,
    diags: &mut Diagnostics,
) -> BTreeMap<Provider, VersionConstraints> {
    let mut reqs: BTreeMap<Provider, VersionConstraints> = BTreeMap::new();
    for rp in module.required_providers.providers.values() {
        let Some(provider) = &rp.provider else {
            continue;
        };
        let entry = reqs.entry(provider.clone()).or_default();
        if let Some(requirement) = &rp.requirement {
            add_constraints(entry, requirement, diags);
        }
    }
    for resource in module.all_resources() {
        if let Some(provider) = &resource.provider {
            reqs.entry(provider.clone()).or_default();
        }
    }
    for import in &module.imports {
        if let Some(provider) = &import.provider {
            reqs.entry(provider.clone()).or_default();
        }
    }
    for config in module.provider_configs.values() {
        let Some(provider) = module.provider_for_local_name(&config.name) else {
            continue;
        };
        let entry = reqs.entry(provider).or_default();
        if let Some(version) = &config.version {
            add_constraints(entry, version, diags);
        }
    }
    reqs
}

/// Adds a `version` argument's constraints, re-read with the provider
/// installer's constraint syntax (which is stricter than go-version's).
fn add_constraints(
    into: &mut VersionConstraints,
    requirement: &VersionConstraint,
    diags: &mut Diagnostics,
) {
    let text = requirement.required.to_string();
    match VersionConstraints::parse(&text) {
        Ok(constraints) => into.merge(&constraints),
        Err(e) => diags.push(
            Diagnostic::error(
                "Invalid version constraint",
                format!("Incorrect version constraint syntax: {e}."),
            )
            .with_subject(requirement.decl_range.clone()),
        ),
    }
}

/// The state file of the current workspace (`TF_WORKSPACE`, else the one
/// `.terraform/environment` records) in the working directory's backend:
/// the local backend's `path` and `workspace_dir` as `init` configured
/// them. A backend terrace does not implement is an error, never a
/// default local path.
#[allow(clippy::result_large_err)]
pub fn local_state_path(dir: &Path, data_dir: &Path) -> Result<PathBuf, Diagnostic> {
    let settings = crate::backend_config::working_backend_of_dir(dir, data_dir).map_err(|d| {
        d.into_iter()
            .next()
            .unwrap_or_else(|| Diagnostic::error("Failed to select the backend", String::new()))
    })?;
    let local = match settings {
        crate::backend_config::WorkingBackend::Local(local) => local,
        crate::backend_config::WorkingBackend::Remote { .. } => Default::default(),
    };
    let backend =
        terrace_states::backend::LocalBackend::new(dir, local.options()).with_data_dir(data_dir);
    let workspace = backend
        .current_workspace()
        .unwrap_or_else(|_| "default".to_string());
    Ok(dir.join(backend.state_paths(&workspace).read))
}

/// The providers of the resources in the working directory's state (see
/// [`local_state_path`]).
#[allow(clippy::result_large_err)]
pub fn working_state_providers(
    dir: &Path,
    data_dir: &Path,
) -> Result<BTreeSet<Provider>, Diagnostic> {
    let first = |d: Diagnostics| {
        d.into_iter()
            .next()
            .unwrap_or_else(|| Diagnostic::error("Failed to select the backend", String::new()))
    };
    let working = crate::backend_config::working_backend_of_dir(dir, data_dir).map_err(first)?;
    let (encryption, _) = crate::encryption_config::load_of_dir(dir).map_err(first)?;
    let codec = encryption.state();
    if let (crate::backend_config::WorkingBackend::Local(_), false) = (&working, codec.is_enabled())
    {
        return state_providers(&local_state_path(dir, data_dir)?);
    }
    // A remote or encrypted state is read through its backend, then
    // looked at as the same document a local file holds.
    let mut backend = working
        .open(dir, data_dir, Default::default(), &codec)
        .map_err(first)?;
    let state = match backend.read_state() {
        Ok((Some(state), _)) => state,
        Ok((None, _)) => return Ok(BTreeSet::new()),
        Err(e) => return Err(state_error(format!("Failed to load state: {e}"))),
    };
    let (bytes, _) = terrace_states::statefile::write_with_diagnostics(&state);
    state_providers_in(&bytes)
}

/// The providers the resources in the state file at `path` belong to;
/// none when there is no state. Only state format 4 (Terraform 0.12 and
/// later) is read.
// One diagnostic, returned by value: callers push it onto their list, and
// this runs once per command, so its size does not matter.
#[allow(clippy::result_large_err)]
pub fn state_providers(path: &Path) -> Result<BTreeSet<Provider>, Diagnostic> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeSet::new()),
        Err(e) => return Err(state_error(format!("Failed to load state: {e}"))),
    };
    state_providers_in(&bytes)
}

/// [`state_providers`] of a state document's bytes.
#[allow(clippy::result_large_err)]
fn state_providers_in(bytes: &[u8]) -> Result<BTreeSet<Provider>, Diagnostic> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(BTreeSet::new());
    }
    let state: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| {
        state_error(format!(
            "Failed to load state: Unsupported state file format: The state file could not \
             be parsed as JSON: {e}."
        ))
    })?;
    match state.get("version").and_then(serde_json::Value::as_u64) {
        Some(4) => {}
        Some(v) => {
            return Err(state_error(format!(
                "Failed to load state: Unsupported state file format: terrace reads state \
                 format version 4 only; this state file has version {v}."
            )))
        }
        None => {
            return Err(state_error(
                "Failed to load state: Unsupported state file format: The state file does not \
                 have a \"version\" attribute, which is required to identify the format \
                 version.",
            ))
        }
    }
    let mut providers = BTreeSet::new();
    let resources = state
        .get("resources")
        .and_then(serde_json::Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    for resource in resources {
        let Some(text) = resource.get("provider").and_then(serde_json::Value::as_str) else {
            continue;
        };
        match AbsProviderConfig::parse_str(text) {
            Ok(config) => {
                providers.insert(config.provider);
            }
            Err(_) => {
                return Err(state_error(format!(
                    "Failed to load state: Invalid provider config address {text:?} in the \
                     state."
                )))
            }
        }
    }
    Ok(providers)
}

fn state_error(detail: impl Into<String>) -> Diagnostic {
    Diagnostic::error("Failed to load state", detail)
}

/// The tree as `terraform providers` prints it: `.` for the root, then
/// the providers with their constraints and the child modules, drawn as
/// the `treeprint` Go package draws trees (ending with a newline).
pub fn render_tree(reqs: &ModuleRequirements) -> String {
    let mut out = String::from(".\n");
    render_children(reqs, "", &mut out);
    out
}

fn render_children(reqs: &ModuleRequirements, prefix: &str, out: &mut String) {
    let mut items: Vec<(String, Option<&ModuleRequirements>)> = reqs
        .requirements
        .iter()
        .map(|(provider, constraints)| {
            let label = if constraints.is_empty() {
                format!("provider[{provider}]")
            } else {
                format!("provider[{provider}] {constraints}")
            };
            (label, None)
        })
        .collect();
    items.extend(
        reqs.children
            .iter()
            .map(|(name, child)| (format!("module.{name}"), Some(child))),
    );
    let count = items.len();
    for (i, (label, child)) in items.into_iter().enumerate() {
        let last = i + 1 == count;
        out.push_str(prefix);
        out.push_str(if last { "└── " } else { "├── " });
        out.push_str(&label);
        out.push('\n');
        if let Some(child) = child {
            // treeprint indents below a continuing branch with a bar and
            // two no-break spaces.
            let indent = if last { "    " } else { "│\u{a0}\u{a0} " };
            render_children(child, &format!("{prefix}{indent}"), out);
        }
    }
}

/// The state section: each provider indented, with a blank line after
/// each; nothing when the state has no resources.
pub fn render_state(providers: &BTreeSet<Provider>) -> String {
    if providers.is_empty() {
        return String::new();
    }
    let mut out = String::from("Providers required by state:\n\n");
    for provider in providers {
        out.push_str(&format!("    provider[{provider}]\n\n"));
    }
    out
}

/// Prints diagnostics as Terraform's UI does: errors on stderr, warnings
/// on stdout, each followed by a blank line.
pub fn print_diagnostics(diags: &[Diagnostic], sources: &SourceMap, color: bool) {
    let style = if color {
        RenderStyle::Color
    } else {
        RenderStyle::Plain
    };
    // Each rendered diagnostic ends its own last line; what follows (the
    // next diagnostic, a summary) brings its own leading blank line.
    for diag in diags {
        let text = render_diagnostic(diag, sources, style, DEFAULT_WIDTH);
        match diag.severity {
            Severity::Error => eprint!("{text}"),
            _ => out!("{text}"),
        }
    }
}

pub(crate) use crate::diag_output::print_cli_config_problems;

/// The configuration's source files, for rendering diagnostics.
pub fn source_map(config: &Config) -> SourceMap {
    let mut sources = SourceMap::new();
    for file in config.files() {
        sources.add_source(file);
    }
    sources
}

/// The directory Terraform keeps its working data in: `TF_DATA_DIR`, or
/// `.terraform`.
pub fn data_dir(dir: &Path) -> PathBuf {
    match std::env::var_os("TF_DATA_DIR").filter(|d| !d.is_empty()) {
        Some(d) => dir.join(d),
        None => dir.join(".terraform"),
    }
}

/// Loads the configuration in `dir`; `None` (after printing the errors)
/// when it has errors.
pub fn load(dir: &Path, color: bool) -> Option<(Config, Diagnostics)> {
    let (config, diags) = load_config(dir, &LoadOptions::default());
    if diags.iter().any(Diagnostic::is_error) {
        print_diagnostics(&diags, &source_map(&config), color);
        return None;
    }
    Some((config, diags))
}

/// `terrace providers [DIR]`, and its subcommands.
pub fn run(dir: &Path, argv: &[String]) -> i32 {
    if argv.first().map(String::as_str) == Some("schema") {
        return crate::commands::providers_schema::run(dir, &argv[1..]);
    }
    let mut color = std::env::var_os("NO_COLOR").is_none();
    let mut config_dir = dir.to_path_buf();
    let mut positional = 0;
    for arg in args::parse(argv) {
        match arg {
            Arg::Flag { name, value } => match (name.as_str(), value) {
                ("no-color", None) => color = false,
                ("help" | "h", None) => {
                    eprint!("{USAGE}");
                    return 0;
                }
                (other, _) => {
                    eprintln!(
                        "Error parsing command-line flags: flag provided but not defined: -{other}\n{USAGE}"
                    );
                    return 1;
                }
            },
            Arg::Positional(p) => {
                positional += 1;
                if positional > 1 {
                    eprintln!("Too many command line arguments. Did you mean to use -chdir?");
                    return 1;
                }
                config_dir = dir.join(p);
            }
        }
    }
    if !has_config_files(&config_dir) {
        let shown = std::fs::canonicalize(&config_dir).unwrap_or(config_dir);
        let diag = Diagnostic::error(
            "No configuration files",
            format!(
                "The directory {} contains no {PRODUCT} configuration files.",
                shown.display()
            ),
        );
        print_diagnostics(&[diag], &SourceMap::new(), color);
        return 1;
    }
    let Some((config, mut diags)) = load(&config_dir, color) else {
        return 1;
    };
    let (reqs, more) = requirements_by_module(&config);
    diags.extend(more);
    let sources = source_map(&config);
    if diags.iter().any(Diagnostic::is_error) {
        print_diagnostics(&diags, &sources, color);
        return 1;
    }
    let state = match working_state_providers(dir, &data_dir(dir)) {
        Ok(state) => state,
        Err(diag) => {
            diags.push(diag);
            print_diagnostics(&diags, &sources, color);
            return 1;
        }
    };
    // With a lock file, the selected packages must be installed, as for
    // any command that would start the providers.
    let lock_path = dir.join(terrace_getproviders::lockfile::LOCK_FILE_NAME);
    if lock_path.exists() {
        let (locks, lock_diags) = terrace_getproviders::lockfile::Locks::load(&lock_path);
        diags.extend(lock_diags);
        let env = terrace_getproviders::cliconfig::CliEnv::from_process();
        let (cli, _) = terrace_getproviders::cliconfig::load(&env);
        let mut needed = reqs.merged();
        for provider in &state {
            needed.entry(provider.clone()).or_default();
        }
        if let Err(problems) = crate::commands::providers_schema::locate_executables(
            &needed,
            &locks,
            &cli,
            &env,
            &data_dir(dir),
        ) {
            diags.extend(problems);
        }
        if diags.iter().any(Diagnostic::is_error) {
            print_diagnostics(&diags, &sources, color);
            return 1;
        }
    }
    out!(
        "\nProviders required by configuration:\n{}\n{}",
        render_tree(&reqs),
        render_state(&state)
    );
    print_diagnostics(&diags, &sources, color);
    0
}

/// Whether `dir` has any configuration file (`.tf`, `.tf.json`, `.tofu`,
/// `.tofu.json`).
pub fn has_config_files(dir: &Path) -> bool {
    match terrace_config::loader::config_dir_files(dir) {
        Ok((primary, overrides)) => !primary.is_empty() || !overrides.is_empty(),
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn provider(source: &str) -> Provider {
        Provider::parse_source_str(source).unwrap()
    }

    fn reqs(
        providers: &[(&str, &str)],
        children: Vec<(&str, ModuleRequirements)>,
    ) -> ModuleRequirements {
        ModuleRequirements {
            requirements: providers
                .iter()
                .map(|(p, c)| (provider(p), VersionConstraints::parse(c).unwrap()))
                .collect(),
            children: children
                .into_iter()
                .map(|(n, r)| (n.to_string(), r))
                .collect(),
        }
    }

    #[test]
    fn tree_is_drawn_like_treeprint() {
        let grand = reqs(&[("hashicorp/http", "")], vec![]);
        let child = reqs(
            &[("hashicorp/aws", "5.100.0"), ("hashicorp/random", "")],
            vec![("grand", grand)],
        );
        let root = reqs(
            &[("hashicorp/aws", ">= 5.0, < 6.0, ~> 5.1")],
            vec![("child", child.clone()), ("child2", child)],
        );
        let want = "\
.
├── provider[registry.terraform.io/hashicorp/aws] >= 5.0.0, ~> 5.1, < 6.0.0
├── module.child
│\u{a0}\u{a0} ├── provider[registry.terraform.io/hashicorp/aws] 5.100.0
│\u{a0}\u{a0} ├── provider[registry.terraform.io/hashicorp/random]
│\u{a0}\u{a0} └── module.grand
│\u{a0}\u{a0}     └── provider[registry.terraform.io/hashicorp/http]
└── module.child2
    ├── provider[registry.terraform.io/hashicorp/aws] 5.100.0
    ├── provider[registry.terraform.io/hashicorp/random]
    └── module.grand
        └── provider[registry.terraform.io/hashicorp/http]
";
        assert_eq!(render_tree(&root), want);
        assert_eq!(render_tree(&ModuleRequirements::default()), ".\n");
        let merged = root.merged();
        assert_eq!(merged.len(), 3);
        assert_eq!(
            merged[&provider("hashicorp/aws")].to_string(),
            ">= 5.0.0, ~> 5.1, 5.100.0, < 6.0.0"
        );
    }

    #[test]
    fn state_sections() {
        assert_eq!(render_state(&BTreeSet::new()), "");
        let set: BTreeSet<Provider> = [provider("hashicorp/null"), provider("hashicorp/aws")]
            .into_iter()
            .collect();
        assert_eq!(
            render_state(&set),
            "Providers required by state:\n\n    provider[registry.terraform.io/hashicorp/aws]\n\n    provider[registry.terraform.io/hashicorp/null]\n\n"
        );
    }

    #[test]
    fn state_files() {
        let dir = std::env::temp_dir().join(format!("terrace-cli-state-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("terraform.tfstate");
        let cases: Vec<(&str, Result<Vec<&str>, &str>)> = vec![
            ("", Ok(vec![])),
            (
                r#"{"version":4,"resources":[
                    {"provider":"provider[\"registry.terraform.io/hashicorp/null\"]"},
                    {"provider":"module.a.provider[\"registry.terraform.io/hashicorp/aws\"].west"},
                    {"provider":"provider[\"registry.terraform.io/hashicorp/null\"]"}]}"#,
                Ok(vec![
                    "registry.terraform.io/hashicorp/aws",
                    "registry.terraform.io/hashicorp/null",
                ]),
            ),
            (r#"{"version":4}"#, Ok(vec![])),
            (r#"{"version":3}"#, Err("version 3")),
            (r#"{"resources":[]}"#, Err("does not have a \"version\"")),
            ("{", Err("could not be parsed as JSON")),
            (
                r#"{"version":4,"resources":[{"provider":"nonsense["}]}"#,
                Err("Invalid provider config address"),
            ),
        ];
        for (text, want) in cases {
            std::fs::write(&path, text).unwrap();
            match (state_providers(&path), want) {
                (Ok(got), Ok(want)) => {
                    let got: Vec<String> = got.iter().map(ToString::to_string).collect();
                    assert_eq!(got, want, "{text}");
                }
                (Err(diag), Err(want)) => {
                    assert!(diag.detail.contains(want), "{text}: {}", diag.detail)
                }
                (got, want) => panic!("{text}: got {got:?}, want {want:?}"),
            }
        }
        std::fs::remove_file(&path).unwrap();
        assert_eq!(state_providers(&path), Ok(BTreeSet::new()));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
