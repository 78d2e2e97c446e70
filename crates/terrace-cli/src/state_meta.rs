//! What the state-facing commands (`output`, `show`, `state ...`,
//! `taint`, `untaint`, `workspace ...`) share:
//!
//! - Terraform's two output conventions: most of these commands still use
//!   its older `Ui` (`Output` lines on stdout; `Error`/`Warn` messages
//!   wrapped in red or yellow, one extra newline after each diagnostic),
//!   while `output` and `show` use the newer views (diagnostics printed
//!   as rendered). [`Ui`] does both.
//! - Go `flag`-style parsing on top of [`crate::args`], with the state
//!   flags (`-state`, `-state-out`, `-backup`, `-lock`, `-lock-timeout`).
//! - Opening the local backend on the current workspace and reading its
//!   state with an interrupted apply's journal folded in.
//! - Resolving addresses against a state as Terraform's `StateMeta`
//!   does, and loading the provider schemas needed to render objects.

use crate::args::Arg;
use crate::journal::{self, Journal, Recoverer, Recovery};
use crate::provider_factory::CliProviderFactory;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use terrace_addrs::{AbsResourceInstance, Provider, ResourceMode, Target, Targetable};
use terrace_engine::ProviderFactory;
use terrace_getproviders::cliconfig::{self, CliEnv};
use terrace_getproviders::lockfile::{Locks, LOCK_FILE_NAME};
use terrace_getproviders::VersionConstraints;
use terrace_providers::{ProviderSchema, Schema};
use terrace_states::backend::local::{LocalBackendOptions, StateError};
use terrace_states::backend::Backend;
use terrace_states::model::State;
use terrace_syntax::render::{render_diagnostic, RenderStyle, SourceMap, DEFAULT_WIDTH};
use terrace_syntax::PRODUCT;
use terrace_syntax::{Diagnostic, Diagnostics, Severity};

/// Terraform's "No state file was found!" message (`Ui.Error`).
pub fn no_state_file() -> String {
    format!("No state file was found!\n\nState management commands require a state file. Run this command\nin a directory where {PRODUCT} has been run or use the -state flag\nto point the command to a specific state location.")
}

/// The shared body of terraform's "wrong address" messages.
pub fn specific_instance_help() -> String {
    format!("This command requires that the address references one specific instance.\nTo view the available instances, use \"{PRODUCT} state list\". Please modify \nthe address to reference a specific instance.")
}

/// Where and how a command prints.
#[derive(Clone, Copy, Debug)]
pub struct Ui {
    pub color: bool,
}

impl Ui {
    /// Colour unless `NO_COLOR` is set; `-no-color` turns it off later.
    pub fn new() -> Ui {
        Ui {
            color: std::env::var_os("NO_COLOR").is_none(),
        }
    }

    /// `Ui.Output`: a line on stdout.
    pub fn output(&self, msg: &str) {
        outln!("{msg}");
    }

    /// `Ui.Error`: a line on stderr, red when colouring.
    pub fn error(&self, msg: &str) {
        if self.color {
            eprintln!("\x1b[31m{msg}\x1b[0m\x1b[0m");
        } else {
            eprintln!("{msg}");
        }
    }

    /// `Ui.Warn`: a line on stdout, yellow when colouring.
    pub fn warn(&self, msg: &str) {
        if self.color {
            outln!("\x1b[33m{msg}\x1b[0m\x1b[0m");
        } else {
            outln!("{msg}");
        }
    }

    fn render(&self, diag: &Diagnostic) -> String {
        let style = if self.color {
            RenderStyle::Color
        } else {
            RenderStyle::Plain
        };
        render_diagnostic(diag, &SourceMap::new(), style, DEFAULT_WIDTH)
    }

    /// Diagnostics as the older commands print them: each through
    /// `Ui.Error` or `Ui.Warn`.
    pub fn legacy_diagnostics(&self, diags: &[Diagnostic]) {
        for diag in diags {
            let text = self.render(diag);
            match diag.severity {
                Severity::Error => self.error(&text),
                Severity::Warning => self.warn(&text),
            }
        }
    }

    /// Diagnostics as the view-based commands print them: errors on
    /// stderr, warnings on stdout, nothing added.
    pub fn diagnostics(&self, diags: &[Diagnostic]) {
        for diag in diags {
            let text = self.render(diag);
            match diag.severity {
                Severity::Error => eprint!("{text}"),
                Severity::Warning => out!("{text}"),
            }
        }
    }
}

/// Arguments parsed in Terraform's style. `value_flags` are flags (beyond
/// [`crate::args`]'s own list) whose value may be the next argument.
pub fn parse_args(
    argv: &[String],
    value_flags: &[&str],
) -> (Vec<(String, Option<String>)>, Vec<String>) {
    let mut joined = Vec::with_capacity(argv.len());
    let mut iter = argv.iter();
    while let Some(arg) = iter.next() {
        let name = arg.trim_start_matches('-');
        if arg.starts_with('-') && !arg.contains('=') && value_flags.contains(&name) {
            if let Some(value) = iter.next() {
                joined.push(format!("-{name}={value}"));
                continue;
            }
        }
        joined.push(arg.clone());
    }
    let mut flags = Vec::new();
    let mut positionals = Vec::new();
    for arg in crate::args::parse(&joined) {
        match arg {
            Arg::Flag { name, value } => flags.push((name, value)),
            Arg::Positional(p) => positionals.push(p),
        }
    }
    (flags, positionals)
}

/// Go's `strconv.ParseBool` for a boolean flag (`-force`, `-lock=false`).
pub fn parse_bool(name: &str, value: Option<&str>) -> Result<bool, String> {
    match value {
        None | Some("1" | "t" | "T" | "TRUE" | "true" | "True") => Ok(true),
        Some("0" | "f" | "F" | "FALSE" | "false" | "False") => Ok(false),
        Some(other) => Err(format!(
            "invalid boolean value {other:?} for -{name}: parse error"
        )),
    }
}

/// The state flags: `-state`, `-state-out`, `-backup`, `-lock`,
/// `-lock-timeout`.
#[derive(Clone, Debug)]
pub struct StateFlags {
    pub state: Option<PathBuf>,
    pub state_out: Option<PathBuf>,
    pub backup: Option<String>,
    pub lock: bool,
    pub lock_timeout: Duration,
}

impl Default for StateFlags {
    fn default() -> StateFlags {
        StateFlags {
            state: None,
            state_out: None,
            backup: None,
            lock: true,
            lock_timeout: Duration::ZERO,
        }
    }
}

impl StateFlags {
    /// Takes flag `name` if it is one of `accepted`; `None` when it is not
    /// a state flag this command takes.
    pub fn take(
        &mut self,
        accepted: &[&str],
        name: &str,
        value: Option<&str>,
    ) -> Option<Result<(), String>> {
        if !accepted.contains(&name) {
            return None;
        }
        let missing = || Err(format!("flag needs an argument: -{name}"));
        Some(match (name, value) {
            ("lock", v) => parse_bool(name, v).map(|b| self.lock = b),
            ("lock-timeout", Some(v)) => match crate::operation_args::parse_duration(v) {
                Some(d) => {
                    self.lock_timeout = d;
                    Ok(())
                }
                None => Err(format!(
                    "invalid value {v:?} for flag -lock-timeout: parse error"
                )),
            },
            ("state", Some(v)) => {
                self.state = (!v.is_empty()).then(|| PathBuf::from(v));
                Ok(())
            }
            ("state-out", Some(v)) => {
                self.state_out = (!v.is_empty()).then(|| PathBuf::from(v));
                Ok(())
            }
            ("backup", Some(v)) => {
                self.backup = Some(v.to_string());
                Ok(())
            }
            _ => missing(),
        })
    }

    /// The backend options these flags ask for.
    pub fn backend_options(&self) -> LocalBackendOptions {
        LocalBackendOptions {
            state: self.state.clone(),
            state_out: self.state_out.clone(),
            backup: self.backup.clone(),
            ..LocalBackendOptions::default()
        }
    }
}

/// The working directory's backend on the current workspace
/// (`TF_WORKSPACE`, else the selected one); `opts` are the command line's
/// local-state flags, which only the local backend uses. The error is the
/// message to print.
pub fn open_backend(opts: LocalBackendOptions) -> Result<Box<dyn Backend>, String> {
    // An empty directory keeps the paths in messages relative, as
    // Terraform prints them (`.terraform.tfstate.lock.info`, not
    // `./.terraform.tfstate.lock.info`).
    let dir = Path::new("");
    let data_dir = crate::commands::providers::data_dir(Path::new("."));
    let as_text = |diags: Diagnostics| {
        diags
            .iter()
            .map(|d| format!("Error: {}\n\n{}", d.summary, d.detail))
            .collect::<Vec<_>>()
            .join("\n\n")
    };
    // The backend `init` configured, or an error for one terrace does not
    // implement.
    let working = crate::backend_config::working_backend_of_dir(Path::new("."), &data_dir)
        .map_err(as_text)?;
    // Warnings of the encryption configuration are not repeated by every
    // state command; its errors stop them.
    let (encryption, _) = crate::encryption_config::load_of_dir(Path::new(".")).map_err(as_text)?;
    let codec = encryption.state();
    // `-state PATH` names a local state file whatever the backend is.
    if let (crate::backend_config::WorkingBackend::Remote { .. }, Some(_)) = (&working, &opts.state)
    {
        return crate::backend_config::WorkingBackend::default()
            .open(dir, &data_dir, opts, &codec)
            .map_err(as_text);
    }
    working.open(dir, &data_dir, opts, &codec).map_err(as_text)
}

/// Where an interrupted apply on this backend's state left its journal.
pub fn journal_path(backend: &dyn Backend) -> PathBuf {
    match backend.local() {
        Some(local) => {
            let paths = local.state_paths(local.workspace());
            Journal::path_for(&paths.write, Path::new("."))
        }
        None => backend.journal_path(),
    }
}

/// A state as read, with what an interrupted apply recorded folded in.
pub struct Loaded {
    /// `None` when there is no state (no file, or an empty one).
    pub state: Option<State>,
    /// Objects recovered from the journal: the state must be written (and
    /// the journal removed) by a command that writes.
    pub recovered: usize,
    /// The journal has nothing the state will not hold once written: a
    /// command that writes the state removes it.
    pub journal_done: bool,
    pub warnings: Diagnostics,
}

/// Reads the backend's state and folds in an interrupted apply's journal.
pub fn read_state(backend: &mut dyn Backend) -> Result<Loaded, Diagnostics> {
    let (state, warnings) = backend.read_state().map_err(|e| e.to_diagnostics())?;
    let path = journal_path(backend);
    let recovery =
        journal::recover(&path, state.as_ref(), Recoverer::Unchecked).map_err(|d| vec![*d])?;
    Ok(match recovery {
        Recovery::None => Loaded {
            state,
            recovered: 0,
            journal_done: false,
            warnings,
        },
        Recovery::AlreadyFolded => Loaded {
            state,
            recovered: 0,
            journal_done: true,
            warnings,
        },
        Recovery::Replayed { state, applied } => Loaded {
            state: Some(state),
            recovered: applied,
            journal_done: true,
            warnings,
        },
    })
}

/// Removes the journal once the state holding what it recorded is saved.
pub fn journal_saved(backend: &dyn Backend, loaded: &Loaded) {
    if loaded.journal_done {
        journal::remove(&journal_path(backend));
    }
}

/// Takes the state lock for `operation`; on failure prints Terraform's
/// "Error acquiring the state lock" and returns false.
pub fn lock(backend: &mut dyn Backend, flags: &StateFlags, operation: &str, ui: &Ui) -> bool {
    if !flags.lock {
        return true;
    }
    match backend.lock(operation, "", flags.lock_timeout) {
        Ok(_) => true,
        Err(e) => {
            ui.legacy_diagnostics(&[e.acquire_diagnostic()]);
            false
        }
    }
}

/// Releases the lock if held; prints Terraform's "Error releasing the
/// state lock" when that fails and returns false.
pub fn unlock(backend: &mut dyn Backend, ui: &Ui) -> bool {
    if !backend.is_locked() {
        return true;
    }
    match backend.unlock() {
        Ok(()) => true,
        Err(StateError::Lock(e)) => {
            ui.legacy_diagnostics(&[e.release_diagnostic()]);
            false
        }
        Err(e) => {
            ui.legacy_diagnostics(&[Diagnostic::error(
                "Error releasing the state lock",
                e.to_string(),
            )]);
            false
        }
    }
}

/// The backup path the state commands use unless `-backup` names one:
/// the state path with the current Unix time, as Terraform's
/// `PATH.1700000000.backup`.
pub fn timestamped_backup(state_out: &Path) -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    format!("{}.{secs}.backup", state_out.display())
}

/// The frame of the `state` subcommands that change the state: a
/// timestamped backup, the working directory's backend, and the state
/// lock for `operation` held around `edit`; the exit status.
pub fn with_locked_state(
    flags: &StateFlags,
    operation: &str,
    ui: &Ui,
    edit: impl FnOnce(&mut dyn Backend) -> i32,
) -> i32 {
    let backup = match state_command_backup(flags) {
        Ok(b) => b,
        Err(e) => {
            ui.error(&e);
            return 1;
        }
    };
    let mut opts = flags.backend_options();
    opts.backup = backup;
    let mut backend = match open_backend(opts) {
        Ok(b) => b,
        Err(e) => {
            ui.error(&e);
            return 1;
        }
    };
    if !lock(backend.as_mut(), flags, operation, ui) {
        return 1;
    }
    let code = edit(backend.as_mut());
    if !unlock(backend.as_mut(), ui) {
        return 1;
    }
    code
}

/// The backup a state-modifying `state` subcommand writes: `-backup`
/// when given (and not `-`, since these backups cannot be disabled), else
/// the timestamped one next to the state written. A remote backend keeps
/// no local backups (`None`).
pub fn state_command_backup(flags: &StateFlags) -> Result<Option<String>, String> {
    if let Some(b) = flags
        .backup
        .as_deref()
        .filter(|b| !b.is_empty() && *b != "-")
    {
        return Ok(Some(b.to_string()));
    }
    let probe = open_backend(LocalBackendOptions {
        state: flags.state.clone(),
        ..LocalBackendOptions::default()
    })?;
    let Some(local) = probe.local() else {
        return Ok(None);
    };
    let write = local.state_paths(local.workspace()).write;
    Ok(Some(timestamped_backup(&write)))
}

/// Terraform's `lookupResourceInstanceAddr`: the instances in `state` a
/// target address selects (a module instance, a whole resource or one
/// instance), sorted. Unless `allow_missing`, selecting nothing is an
/// error.
pub fn lookup_instances(
    state: &State,
    raw: &str,
    allow_missing: bool,
) -> (Vec<AbsResourceInstance>, Diagnostics) {
    let target = match Target::parse_str(raw) {
        Ok(t) => t,
        Err(diags) => return (Vec::new(), diags),
    };
    let mut found = Vec::new();
    let mut diags = Vec::new();
    match &target.subject {
        Targetable::ModuleInstance(module) => {
            let mut any = false;
            for (addr, rs) in &state.resources {
                if target
                    .subject
                    .target_contains(&Targetable::ModuleInstance(addr.module.clone()))
                {
                    any = true;
                    found.extend(rs.instances.keys().map(|k| addr.instance(k.clone())));
                }
            }
            if !any && !allow_missing {
                diags.push(Diagnostic::error(
                    "Unknown module",
                    format!(
                        "The current state contains no module at {module}. If you've just added \
                         this module to the configuration, you must run \"{PRODUCT} apply\" \
                         first to create the module's entry in the state."
                    ),
                ));
            }
        }
        Targetable::AbsResource(addr) => match state.resources.get(addr) {
            Some(rs) => found.extend(rs.instances.keys().map(|k| addr.instance(k.clone()))),
            None if !allow_missing => diags.push(Diagnostic::error(
                "Unknown resource",
                format!(
                    "The current state contains no resource {addr}. If you've just added this \
                     resource to the configuration, you must run \"{PRODUCT} apply\" first to \
                     create the resource's entry in the state."
                ),
            )),
            None => {}
        },
        Targetable::AbsResourceInstance(addr) => {
            if state.instance(addr).is_some() {
                found.push(addr.clone());
            } else if !allow_missing {
                diags.push(Diagnostic::error(
                    "Unknown resource instance",
                    format!(
                        "The current state contains no resource instance {addr}. If you've just \
                         added its resource to the configuration or have changed the count or \
                         for_each arguments, you must run \"{PRODUCT} apply\" first to update \
                         the resource's entry in the state."
                    ),
                ));
            }
        }
        // Target parsing yields only the three forms above.
        Targetable::Module(_) | Targetable::ConfigResource(_) => {}
    }
    found.sort();
    (found, diags)
}

/// Provider schemas, fetched once per command.
pub struct Schemas(HashMap<Provider, Arc<ProviderSchema>>);

impl Schemas {
    /// The schemas of `providers`: the built-in provider in process,
    /// others from the schema cache or their plugin (found as `plan`
    /// finds them: lock file, `.terraform/providers`, mirrors,
    /// development overrides).
    pub fn load(providers: BTreeSet<Provider>) -> Result<Schemas, Diagnostics> {
        let dir = Path::new(".");
        let needed: BTreeMap<Provider, VersionConstraints> = providers
            .iter()
            .map(|p| (p.clone(), VersionConstraints::default()))
            .collect();
        let mut executables = Vec::new();
        if needed.keys().any(|p| !p.is_builtin()) {
            let (locks, lock_diags) = Locks::load(&dir.join(LOCK_FILE_NAME));
            if lock_diags.iter().any(Diagnostic::is_error) {
                return Err(lock_diags);
            }
            let env = CliEnv::from_process();
            let (cli, cli_diags) = cliconfig::load(&env);
            crate::commands::providers::print_cli_config_problems(&cli_diags);
            for (provider, constraints) in needed.iter().filter(|(p, _)| !p.is_builtin()) {
                let one = BTreeMap::from([(provider.clone(), constraints.clone())]);
                match crate::commands::providers_schema::locate_executables(
                    &one,
                    &locks,
                    &cli,
                    &env,
                    &crate::commands::providers::data_dir(dir),
                ) {
                    Ok(found) => executables.extend(found),
                    Err(_) => {
                        return Err(vec![schema_failure(
                            provider,
                            &format!(
                                "failed to instantiate provider \"{provider}\" to obtain schema: \
                                 unavailable provider \"{provider}\"."
                            ),
                        )])
                    }
                }
            }
        }
        let working_dir = std::env::current_dir().unwrap_or_else(|_| dir.to_path_buf());
        let factory = CliProviderFactory::new(executables, &working_dir);
        let mut schemas = HashMap::new();
        for provider in providers {
            let schema = factory.schema(&provider).map_err(|diags| {
                let detail: Vec<String> = diags
                    .iter()
                    .filter(|d| d.is_error())
                    .map(|d| format!("{}: {}", d.summary, d.detail))
                    .collect();
                vec![schema_failure(&provider, &detail.join("; "))]
            })?;
            schemas.insert(provider, schema);
        }
        Ok(Schemas(schemas))
    }

    /// The whole schema of `provider`, if it was loaded.
    pub fn provider(&self, provider: &Provider) -> Option<Arc<ProviderSchema>> {
        self.0.get(provider).cloned()
    }

    /// The schema of a resource type, as the renderer asks for it.
    pub fn resource(
        &self,
        provider: &Provider,
        mode: ResourceMode,
        ty: &str,
    ) -> Option<Arc<Schema>> {
        let schema = self.0.get(provider)?;
        let found = match mode {
            ResourceMode::Managed => schema.resource_types.get(ty),
            ResourceMode::Data => schema.data_sources.get(ty),
            ResourceMode::Ephemeral => schema.ephemeral_resources.get(ty),
        }?;
        Some(Arc::new(found.clone()))
    }
}

/// Terraform's "Failed to load plugin schemas" for one provider.
fn schema_failure(provider: &Provider, why: &str) -> Diagnostic {
    Diagnostic::error(
        "Failed to load plugin schemas",
        format!(
            "Error while loading schemas for plugin components: Failed to obtain provider schema: \
             Could not load the schema for provider {provider}: {why}."
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use terrace_states::statefile;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn value_flags_take_the_next_argument() {
        let (flags, positionals) = parse_args(
            &strings(&[
                "-id",
                "abc",
                "-state=x",
                "-dry-run",
                "a.b",
                "-",
                "-backup-out",
                "y",
            ]),
            &["id", "backup-out"],
        );
        assert_eq!(
            flags,
            vec![
                ("id".to_string(), Some("abc".to_string())),
                ("state".to_string(), Some("x".to_string())),
                ("dry-run".to_string(), None),
                ("backup-out".to_string(), Some("y".to_string())),
            ]
        );
        assert_eq!(positionals, strings(&["a.b", "-"]));
    }

    #[test]
    fn booleans_parse_as_go_does() {
        let cases: &[(Option<&str>, bool)] =
            &[(None, true), (Some("false"), false), (Some("T"), true)];
        for (value, want) in cases {
            assert_eq!(parse_bool("force", *value), Ok(*want), "{value:?}");
        }
        assert_eq!(
            parse_bool("lock", Some("maybe")),
            Err("invalid boolean value \"maybe\" for -lock: parse error".to_string())
        );
    }

    fn fixture() -> State {
        let resource = |module: &str, name: &str, keys: &[&str]| {
            let instances: Vec<String> = keys
                .iter()
                .map(|k| {
                    format!(
                        r#"{{{k} "schema_version": 0, "attributes": {{"id": "x"}}, "sensitive_attributes": []}}"#
                    )
                })
                .collect();
            let module = if module.is_empty() {
                String::new()
            } else {
                format!("\"module\": \"{module}\",")
            };
            format!(
                r#"{{{module} "mode": "managed", "type": "terraform_data", "name": "{name}",
                   "provider": "provider[\"terraform.io/builtin/terraform\"]",
                   "instances": [{}]}}"#,
                instances.join(",")
            )
        };
        let text = format!(
            r#"{{"version": 4, "terraform_version": "1.11.4", "serial": 1, "lineage": "l",
                "outputs": {{}}, "resources": [{}, {}, {}, {}], "check_results": null}}"#,
            resource("", "a", &[""]),
            resource("", "c", &["\"index_key\": 1,", "\"index_key\": 0,"]),
            resource(r#"module.m[\"k\"]"#, "b", &[""]),
            resource(r#"module.m[\"k\"].module.n"#, "b", &[""]),
        );
        match statefile::read(text.as_bytes()) {
            Ok((state, _)) => state,
            Err(d) => panic!("fixture: {d:?}"),
        }
    }

    #[test]
    fn lookup_selects_modules_resources_and_instances() {
        let state = fixture();
        let cases: &[(&str, &[&str], Option<&str>)] = &[
            (
                "terraform_data.c",
                &["terraform_data.c[0]", "terraform_data.c[1]"],
                None,
            ),
            ("terraform_data.c[1]", &["terraform_data.c[1]"], None),
            (
                "module.m",
                &[
                    "module.m[\"k\"].terraform_data.b",
                    "module.m[\"k\"].module.n.terraform_data.b",
                ],
                None,
            ),
            (
                "module.m[\"k\"].module.n",
                &["module.m[\"k\"].module.n.terraform_data.b"],
                None,
            ),
            ("module.zz", &[], Some("Unknown module")),
            ("terraform_data.zz", &[], Some("Unknown resource")),
            (
                "terraform_data.c[7]",
                &[],
                Some("Unknown resource instance"),
            ),
            ("not an address", &[], Some("Invalid character")),
        ];
        for (raw, want, error) in cases {
            let (found, diags) = lookup_instances(&state, raw, false);
            let found: Vec<String> = found.iter().map(|a| a.to_string()).collect();
            assert_eq!(found, *want, "{raw}");
            assert_eq!(diags.first().map(|d| d.summary.as_str()), *error, "{raw}");
            let (_, diags) = lookup_instances(&state, raw, true);
            if *raw != "not an address" {
                assert!(diags.is_empty(), "{raw}: allow_missing still errs");
            }
        }
    }
}
