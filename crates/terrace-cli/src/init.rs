//! `terrace init`: prepares the working directory as `terraform init` does,
//! with Terraform 1.11's output (its exact text, with "terrace" where
//! Terraform names itself; the lock file keeps Terraform's header so the
//! two tools write identical files):
//!
//! 1. the backend (only `local` so far): its settings, `-backend-config`
//!    overrides and `-reconfigure`, recorded in `.terraform/terraform.tfstate`
//!    with Terraform's configuration hash;
//! 2. modules (`terrace-getmodules`): local, registry, git and HTTP
//!    sources, recorded in `.terraform/modules/modules.json`;
//! 3. providers (`terrace-getproviders`): every module's and the state's
//!    requirements merged, the lock file's selections kept unless
//!    `-upgrade`, installed from the CLI configuration's installation
//!    methods (or only the `-plugin-dir` directories) into
//!    `.terraform/providers`, and the lock file written (not with
//!    `-lockfile=readonly`).
//!
//! Also the helpers `providers lock` shares: Go-style flag parsing,
//! Terraform's colour markup, diagnostics printing.

use crate::providers::{has_config_files, requirements_by_module, source_map};
use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use terrace_addrs::Provider;
use terrace_config::loader::{load_config, load_module_dir, parse_config_file, LoadOptions};
use terrace_config::model::Module;
use terrace_getmodules::{ModuleInstallHooks, ModuleInstaller};
use terrace_getproviders::auth::{PackageAuthenticationResult, HASHICORP_KEY_ID};
use terrace_getproviders::cliconfig::{self, CliConfig, CliEnv};
use terrace_getproviders::hash::Hash;
use terrace_getproviders::installer::{
    InstallMode, Installer, InstallerEvents, ProviderCacheDir, ProviderError, Requirements,
};
use terrace_getproviders::lockfile::{Locks, LOCK_FILE_NAME};
use terrace_getproviders::registry::{Http, HttpFetcher, HttpRemoteSources, RegistryConfig};
use terrace_getproviders::source::{MultiSource, PackageLocation};
use terrace_getproviders::{Version, VersionConstraints};
use terrace_syntax::render::{render_diagnostic, RenderStyle, SourceMap, DEFAULT_WIDTH};
use terrace_syntax::{Diagnostic, Diagnostics, Severity};
use terrace_value::gostr::quote;

/// The name that stands where Terraform's messages say "Terraform".
pub(crate) const PRODUCT_TITLE: &str = terrace_getproviders::PRODUCT;
/// The command that stands where Terraform's messages say `terraform`.
pub(crate) const PRODUCT_COMMAND: &str = terrace_getproviders::PRODUCT;

const USAGE: &str = "
Usage: terrace [global options] init [options]

  Initialize a new or existing terrace working directory by creating
  initial files, loading any remote state, downloading modules, etc.

  This is the first command that should be run for any new or existing
  terrace configuration per machine. This sets up all the local data
  necessary to run terrace that is typically not committed to version
  control.

  This command is always safe to run multiple times. Though subsequent runs
  may give errors, this command will never delete your configuration or
  state. Even so, if you have important information, please back it up prior
  to running this command, just in case.

Options:

  -backend=false          Disable backend initialization for this
                          configuration and use what was previously
                          initialized instead.

  -backend-config=path    Configuration to be merged with what is in the
                          configuration file's 'backend' block. This can be
                          either a path to an HCL file with key/value
                          assignments (same format as terraform.tfvars) or a
                          'key=value' format, and can be specified multiple
                          times. The backend type must be in the configuration
                          itself.

  -get=false              Disable downloading modules for this configuration.

  -input=false            Disable interactive prompts.

  -lockfile=MODE          Set a dependency lockfile mode.
                          Currently only \"readonly\" is valid.

  -no-color               If specified, output won't contain any color.

  -plugin-dir             Directory containing plugin binaries. This overrides all
                          default search paths for plugins, and prevents the
                          automatic installation of plugins. This flag can be used
                          multiple times.

  -reconfigure            Reconfigure a backend, ignoring any saved
                          configuration.

  -upgrade                Install the latest module and provider versions
                          allowed within configured constraints, overriding the
                          default behavior of selecting exactly the version
                          recorded in the dependency lockfile.
";

// ----- shared with `providers lock` -----

/// Flags in order (name, value) and the arguments after them.
pub(crate) type ParsedFlags = (Vec<(String, String)>, Vec<String>);

/// Go's `flag` package: `-name`, `--name`, `-name=value`, `-name value`
/// for non-boolean flags; parsing stops at the first non-flag argument or
/// after `--`. Returns the flags in order and the remaining arguments, or
/// the `flag` package's error text.
pub(crate) fn parse_go_flags(
    argv: &[String],
    bools: &[&str],
    strings: &[&str],
) -> Result<ParsedFlags, String> {
    let mut flags = Vec::new();
    let mut i = 0;
    while i < argv.len() {
        let arg = &argv[i];
        if arg == "--" {
            i += 1;
            break;
        }
        if !arg.starts_with('-') || arg == "-" {
            break;
        }
        let body = arg.strip_prefix("--").unwrap_or(&arg[1..]);
        if body.is_empty() || body.starts_with('-') || body.starts_with('=') {
            return Err(format!("bad flag syntax: {arg}"));
        }
        let (name, value) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (body, None),
        };
        if bools.contains(&name) {
            let value = value.unwrap_or_else(|| "true".into());
            let parsed = match value.as_str() {
                "1" | "t" | "T" | "TRUE" | "true" | "True" => "true",
                "0" | "f" | "F" | "FALSE" | "false" | "False" => "false",
                _ => {
                    return Err(format!(
                        "invalid boolean value {} for -{name}: parse error",
                        quote(&value)
                    ))
                }
            };
            flags.push((name.to_string(), parsed.to_string()));
        } else if strings.contains(&name) {
            let value = match value {
                Some(v) => v,
                None => {
                    i += 1;
                    match argv.get(i) {
                        Some(v) => v.clone(),
                        None => return Err(format!("flag needs an argument: -{name}")),
                    }
                }
            };
            flags.push((name.to_string(), value));
        } else if name == "help" || name == "h" {
            return Err("help".into());
        } else {
            return Err(format!("flag provided but not defined: -{name}"));
        }
        i += 1;
    }
    Ok((flags, argv[i..].to_vec()))
}

/// Terraform's colour markup (`[reset]`, `[bold]`, `[green]`, ...): codes
/// when `color`, none otherwise; coloured text ends with a reset, as the
/// `colorstring` library leaves it.
pub(crate) fn colorize(text: &str, color: bool) -> String {
    const CODES: &[(&str, &str)] = &[
        ("[reset]", "\x1b[0m"),
        ("[bold]", "\x1b[1m"),
        ("[green]", "\x1b[32m"),
        ("[red]", "\x1b[31m"),
        ("[yellow]", "\x1b[33m"),
    ];
    let mut out = text.to_string();
    for (tag, code) in CODES {
        out = out.replace(tag, if color { code } else { "" });
    }
    if color {
        out.push_str("\x1b[0m");
    }
    out
}

/// Terraform's order for showing diagnostics: warnings first, then those
/// without a source location, then by file (fewer path segments first)
/// and position; otherwise as given.
pub(crate) fn sort_diags(diags: &mut [Diagnostic]) {
    use std::cmp::Ordering;
    diags.sort_by(|a, b| {
        let sev = |d: &Diagnostic| u8::from(d.severity == Severity::Error);
        sev(a)
            .cmp(&sev(b))
            .then_with(|| match (&a.subject, &b.subject) {
                (None, None) => Ordering::Equal,
                (None, Some(_)) => Ordering::Less,
                (Some(_), None) => Ordering::Greater,
                (Some(x), Some(y)) if x.filename != y.filename => {
                    let depth = |f: &str| f.matches('/').count();
                    depth(&x.filename)
                        .cmp(&depth(&y.filename))
                        .then_with(|| x.filename.cmp(&y.filename))
                }
                (Some(x), Some(y)) => x
                    .start
                    .byte
                    .cmp(&y.start.byte)
                    .then(x.end.byte.cmp(&y.end.byte)),
            })
    });
}

/// Terraform's consolidation of warnings: those with a source location
/// and the same summary are shown once, the first noting how many more
/// there were.
pub(crate) fn consolidate_warnings(diags: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let mut out: Vec<Diagnostic> = Vec::new();
    // Summary, index of the first in `out`, how many were folded into it.
    let mut groups: Vec<(String, usize, usize)> = Vec::new();
    for d in diags {
        if d.severity != Severity::Warning || d.subject.is_none() {
            out.push(d);
            continue;
        }
        match groups.iter_mut().find(|g| g.0 == d.summary) {
            Some(g) => g.2 += 1,
            None => {
                groups.push((d.summary.clone(), out.len(), 0));
                out.push(d);
            }
        }
    }
    for (_, at, extra) in groups.into_iter().filter(|g| g.2 > 0) {
        let note = if extra == 1 {
            "(and one more similar warning elsewhere)".to_string()
        } else {
            format!("(and {extra} more similar warnings elsewhere)")
        };
        let d = &mut out[at];
        d.detail = if d.detail.is_empty() {
            note
        } else {
            format!("{}\n\n{note}", d.detail)
        };
    }
    out
}

/// Prints diagnostics as Terraform's views do: sorted, similar warnings
/// consolidated, warnings on stdout and errors on stderr, each as rendered
/// (a leading blank line without colour, the box with it).
pub(crate) fn print_diags(diags: &[Diagnostic], mut sources: SourceMap, color: bool) {
    let style = if color {
        RenderStyle::Color
    } else {
        RenderStyle::Plain
    };
    let mut sorted = diags.to_vec();
    sort_diags(&mut sorted);
    // Files that failed to load are in no configuration tree; their text
    // is read again so the snippet can be shown.
    for d in &sorted {
        let Some(subject) = &d.subject else { continue };
        if subject.filename.is_empty() || sources.source(&subject.filename).is_some() {
            continue;
        }
        if let Ok(text) = std::fs::read_to_string(&subject.filename) {
            sources.add_text(&subject.filename, &text);
        }
    }
    for d in &consolidate_warnings(sorted) {
        let text = render_diagnostic(d, &sources, style, DEFAULT_WIDTH);
        match d.severity {
            Severity::Error => {
                let mut err = std::io::stderr();
                let _ = err.write_all(text.as_bytes());
                let _ = err.flush();
            }
            _ => {
                let mut out = std::io::stdout();
                let _ = out.write_all(text.as_bytes());
                let _ = out.flush();
            }
        }
    }
}

/// Prints a line to stdout right away, so it interleaves correctly with
/// the errors on stderr.
pub(crate) fn say(text: &str) {
    let mut out = std::io::stdout();
    let _ = writeln!(out, "{text}");
    let _ = out.flush();
}

/// Problems with the CLI configuration, shown as Terraform shows them at
/// start-up: on stderr, boxed, before anything else.
pub(crate) fn print_cli_config_problems(diags: &Diagnostics) {
    if diags.is_empty() {
        return;
    }
    let mut text = String::from("There are some problems with the CLI configuration:\n");
    for d in diags {
        text.push_str(&render_diagnostic(
            d,
            &SourceMap::new(),
            RenderStyle::Boxed,
            DEFAULT_WIDTH,
        ));
    }
    text.push('\n');
    if diags.iter().any(Diagnostic::is_error) {
        text.push_str(&format!(
            "As a result of the above problems, {} may not behave as intended.\n\n\n",
            PRODUCT_TITLE
        ));
    }
    let mut err = std::io::stderr();
    let _ = err.write_all(text.as_bytes());
    let _ = err.flush();
}

/// The registry settings of the CLI configuration, or the error as a
/// diagnostic.
pub(crate) fn registry_config(
    cli: &CliConfig,
    env: &CliEnv,
) -> Result<RegistryConfig, Diagnostics> {
    terrace_getmodules::remote::registry_config(cli, env).map_err(|e| {
        vec![Diagnostic::error(
            "Invalid TLS configuration",
            format!("Could not read the certificates in SSL_CERT_FILE: {e}."),
        )]
    })
}

/// The data directory: `TF_DATA_DIR`, or `.terraform`.
pub(crate) fn data_dir() -> PathBuf {
    match std::env::var_os("TF_DATA_DIR").filter(|d| !d.is_empty()) {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(".terraform"),
    }
}

/// tfdiags' error form of several diagnostics (`N problems:` and a list).
pub(crate) fn diags_as_error(diags: &[Diagnostic]) -> String {
    let one = |d: &Diagnostic| {
        if d.detail.is_empty() {
            d.summary.clone()
        } else {
            format!("{}: {}", d.summary, d.detail)
        }
    };
    match diags {
        [] => "no errors".into(),
        [d] => one(d),
        many => {
            let mut s = format!("{} problems:\n", many.len());
            for d in many {
                s.push_str(&format!("\n- {}", one(d)));
            }
            s
        }
    }
}

/// The lock file, or the error Terraform reports for it.
pub(crate) fn load_locks() -> Result<Locks, Diagnostics> {
    let (locks, diags) = Locks::load(Path::new(LOCK_FILE_NAME));
    if diags.iter().any(Diagnostic::is_error) {
        return Err(vec![Diagnostic::error(
            format!(
                "failed to read dependency lock file: {}",
                diags_as_error(&diags)
            ),
            "",
        )]);
    }
    Ok(locks)
}

// ----- init -----

struct Options {
    backend: bool,
    backend_configs: Vec<String>,
    get: bool,
    upgrade: bool,
    reconfigure: bool,
    migrate_state: bool,
    force_copy: bool,
    input: bool,
    plugin_dirs: Vec<PathBuf>,
    lockfile_readonly: bool,
    color: bool,
    /// `-json`: the machine-readable stream instead of text.
    json: bool,
    /// `-var` and `-var-file`, in order: with `terraform.tfvars`,
    /// `*.auto.tfvars` and `TF_VAR_`, what static evaluation (module
    /// sources, provider `for_each`) reads, as a plan would.
    variables: Vec<terrace_config::input_variables::VariableArgument>,
}

fn parse_options(argv: &[String]) -> Result<Options, (String, bool)> {
    let bools = [
        "backend",
        "cloud",
        "get",
        "input",
        "lock",
        "no-color",
        "reconfigure",
        "migrate-state",
        "force-copy",
        "upgrade",
        "ignore-remote-version",
        "json",
    ];
    let strings = [
        "backend-config",
        "plugin-dir",
        "lockfile",
        "lock-timeout",
        "test-directory",
        "var",
        "var-file",
    ];
    let (flags, rest) = parse_go_flags(argv, &bools, &strings).map_err(|e| (e, true))?;
    let mut o = Options {
        backend: true,
        backend_configs: Vec::new(),
        get: true,
        upgrade: false,
        reconfigure: false,
        migrate_state: false,
        force_copy: false,
        input: true,
        plugin_dirs: Vec::new(),
        lockfile_readonly: false,
        color: std::env::var_os("NO_COLOR").is_none(),
        json: false,
        variables: Vec::new(),
    };
    for (name, value) in flags {
        let on = value == "true";
        match name.as_str() {
            "backend" | "cloud" => o.backend = on,
            "get" => o.get = on,
            "upgrade" => o.upgrade = on,
            "reconfigure" => o.reconfigure = on,
            "migrate-state" => o.migrate_state = on,
            "force-copy" => o.force_copy = on,
            "input" => o.input = on,
            "no-color" => o.color = !on && o.color,
            "json" => o.json = on,
            "backend-config" => o.backend_configs.push(value),
            "plugin-dir" => o.plugin_dirs.push(PathBuf::from(value)),
            "lockfile" => o.lockfile_readonly = value == "readonly",
            "var" => match value.split_once('=') {
                Some((name, text)) => o.variables.push(
                    terrace_config::input_variables::VariableArgument::Var {
                        name: name.trim().to_string(),
                        text: text.to_string(),
                    },
                ),
                None => {
                    return Err((
                        format!("The given -var option {} is not correctly specified. Must be a variable name and value separated by an equals sign, like -var=\"key=value\".", quote(&value)),
                        false,
                    ))
                }
            },
            "var-file" => o
                .variables
                .push(terrace_config::input_variables::VariableArgument::File(value)),
            // Accepted for compatibility; nothing here prompts or locks.
            _ => {}
        }
    }
    if !rest.is_empty() {
        return Err((
            "Too many command line arguments. Did you mean to use -chdir?".into(),
            false,
        ));
    }
    if o.json {
        o.color = false;
        o.input = false;
    }
    Ok(o)
}

/// The workspace selected in the working directory (`TF_WORKSPACE`, else
/// `.terraform/environment`), for `terraform.workspace` in static
/// evaluation.
fn selected_workspace() -> String {
    terrace_states::backend::LocalBackend::new(
        Path::new("."),
        terrace_states::backend::LocalBackendOptions::default(),
    )
    .with_data_dir(data_dir())
    .current_workspace()
    .unwrap_or_else(|_| "default".to_string())
}

/// `terrace init [options]` in the current directory.
pub fn run(argv: &[String]) -> i32 {
    let env = CliEnv::from_process();
    let (cli, cli_diags) = cliconfig::load(&env);
    print_cli_config_problems(&cli_diags);
    let color_default = std::env::var_os("NO_COLOR").is_none()
        && !argv.iter().any(|a| a == "-no-color" || a == "--no-color");
    let o = match parse_options(argv) {
        Ok(o) => o,
        Err((e, _)) if e == "help" => {
            eprint!("{USAGE}");
            return 0;
        }
        Err((e, true)) => {
            print_diags(
                &[Diagnostic::error("Failed to parse command-line flags", e)],
                SourceMap::new(),
                color_default,
            );
            return 1;
        }
        Err((e, false)) => {
            print_diags(&[Diagnostic::error(e, "")], SourceMap::new(), color_default);
            return 1;
        }
    };
    if o.json {
        crate::json_ui::version();
    }
    Init {
        o,
        cli,
        env,
        diags: Vec::new(),
    }
    .run()
}

struct Init {
    o: Options,
    cli: CliConfig,
    env: CliEnv,
    /// Warnings kept for the end, as Terraform shows them just before the
    /// success message.
    diags: Diagnostics,
}

impl Init {
    fn c(&self, markup: &str) -> String {
        colorize(markup, self.o.color)
    }

    fn fail(&self, more: Diagnostics, sources: SourceMap) -> i32 {
        let mut all = self.diags.clone();
        all.extend(more);
        self.show_diags(&all, sources);
        1
    }

    /// Diagnostics as text (sorted, similar warnings folded), or as stream
    /// lines in the order they arose.
    fn show_diags(&self, diags: &[Diagnostic], sources: SourceMap) {
        if self.o.json {
            crate::json_ui::diagnostics(diags, &sources);
        } else {
            print_diags(diags, sources, self.o.color);
        }
    }

    /// One of init's own messages: `markup` as a text line, or in the
    /// stream under `code` (without the colour markup).
    fn message(&self, code: &str, markup: &str) {
        if self.o.json {
            crate::json_ui::init_output(code, &colorize(markup, false));
        } else {
            say(&self.c(markup));
        }
    }

    fn run(mut self) -> i32 {
        let root = Path::new(".");
        if !has_config_files(root) {
            self.message(
                "output_init_empty_message",
                &format!(
                "[reset][bold]{t} initialized in an empty directory![reset]\n\nThe directory has no {t} configuration files. You may begin working\nwith {t} immediately by creating {t} configuration files.",
                t = PRODUCT_TITLE
            ),
            );
            return 0;
        }
        if let Err(e) = store_plugin_path(&self.o.plugin_dirs) {
            return self.fail(
                vec![Diagnostic::error("Error saving -plugin-path values", e)],
                SourceMap::new(),
            );
        }
        let (early, early_diags) = load_module_dir(root);
        let early_failed = early_diags.iter().any(Diagnostic::is_error);
        // Root variables from every source a plan reads: what provider
        // `for_each` and module sources are evaluated from. One that is
        // needed and has no value is named, not guessed.
        let (inputs, input_diags) = terrace_config::input_variables::collect_input_values(
            root,
            &self.o.variables,
            std::env::vars(),
        );
        if input_diags.iter().any(Diagnostic::is_error) {
            return self.fail(input_diags, SourceMap::new());
        }
        self.keep_warnings(input_diags);
        let load_options = LoadOptions {
            input_values: std::sync::Arc::new(inputs),
            missing_root_variable: terrace_config::static_eval::MissingRootVariable::Error,
            workspace: selected_workspace(),
            ..LoadOptions::default()
        };

        if self.o.backend {
            self.message(
                "initializing_backend_message",
                "[reset][bold]Initializing the backend...",
            );
            if let Some(module) = &early {
                match self.init_backend(module) {
                    Ok(Some(message)) if self.o.json => crate::json_ui::log(message.trim()),
                    Ok(Some(message)) => say(&message),
                    Ok(None) => {}
                    Err(diags) => {
                        return self.fail(diags, early_sources(module));
                    }
                }
            }
        }

        let has_calls = early.as_ref().is_some_and(|m| !m.module_calls.is_empty());
        if self.o.get && has_calls {
            if self.o.upgrade {
                self.message(
                    "upgrading_modules_message",
                    "[reset][bold]Upgrading modules...",
                );
            } else {
                self.message(
                    "initializing_modules_message",
                    "[reset][bold]Initializing modules...",
                );
            }
            let registry = match registry_config(&self.cli, &self.env) {
                Ok(r) => r,
                Err(d) => return self.fail(d, SourceMap::new()),
            };
            let mut installer = ModuleInstaller::new(&data_dir().join("modules"), registry);
            installer.set_root_variables(
                load_options.input_values.clone(),
                load_options.missing_root_variable,
            );
            let mut hooks = ModuleLines { json: self.o.json };
            let diags = installer.install_modules(root, self.o.upgrade, &mut hooks);
            if diags.iter().any(Diagnostic::is_error) {
                let (config, _) = load_config(root, &load_options);
                return self.fail(diags, source_map(&config));
            }
            self.keep_warnings(diags);
        }

        let (config, config_diags) = load_config(root, &load_options);
        if early_failed || config_diags.iter().any(Diagnostic::is_error) {
            // The text sorts the preamble first; the stream has it after
            // the problems it introduces.
            let all = if self.o.json {
                let mut all = config_diags;
                all.push(config_error_preamble());
                all
            } else {
                let mut all = vec![config_error_preamble()];
                all.extend(config_diags);
                all
            };
            return self.fail(all, source_map(&config));
        }
        self.keep_warnings(config_diags);

        match self.get_providers(&config) {
            Ok(()) => {}
            Err(diags) => return self.fail(diags, source_map(&config)),
        }

        if !self.o.json {
            say("");
        }
        self.show_diags(&self.diags, source_map(&config));
        self.message(
            "output_init_success_message",
            &format!(
                "[reset][bold][green]{} has been successfully initialized![reset][green]",
                PRODUCT_TITLE
            ),
        );
        if !crate::in_automation() {
            self.message("output_init_success_cli_message", &format!(
            "[reset][green]\nYou may now begin working with {t}. Try running \"{p} plan\" to see\nany changes that are required for your infrastructure. All {t} commands\nshould now work.\n\nIf you ever set or change modules or backend configuration for {t},\nrerun this command to reinitialize your working directory. If you forget, other\ncommands will detect it and remind you to do so if necessary.",
            t = PRODUCT_TITLE,
            p = PRODUCT_COMMAND
        ));
        }
        0
    }

    /// Adds warnings not already kept (module installation and the later
    /// full load report some of the same ones).
    fn keep_warnings(&mut self, diags: Diagnostics) {
        for d in diags {
            let dup = self
                .diags
                .iter()
                .any(|k| k.summary == d.summary && k.detail == d.detail && k.subject == d.subject);
            if !dup {
                self.diags.push(d);
            }
        }
    }

    // ----- backend -----

    /// The backend: `Ok(Some(message))` when it was (re)configured. A
    /// change of the backend configuration moves the state as terraform
    /// moves it (asking first, unless `-force-copy`), or with
    /// `-reconfigure` leaves it where it is; a backend type terrace does
    /// not implement is refused by name.
    fn init_backend(&mut self, module: &Module) -> Result<Option<String>, Diagnostics> {
        use crate::backend_config::{
            block_config, migrate_state, read_saved_backend, setting_from_cli, unsupported_backend,
            with_settings, write_saved_backend, MigrateOptions, WorkingBackend,
        };
        use terrace_states::backend::schema;
        let (encryption, encryption_warnings) =
            crate::encryption_config::load_in_dir(Path::new("."), module, &self.o.variables)?;
        self.keep_warnings(encryption_warnings);
        let codec = encryption.state();
        let state_file = data_dir().join("terraform.tfstate");
        let saved = read_saved_backend(&state_file)?;
        if module.cloud.is_some() {
            return Err(vec![unsupported_backend("cloud")]);
        }
        let migrate = MigrateOptions {
            force_copy: self.o.force_copy,
            input: self.o.input,
        };
        let root = Path::new(".");
        // Where the state is now: the recorded backend, or the default
        // local one. A recorded backend of a type terrace does not
        // implement cannot be read, so nothing can be migrated from it.
        let current: Result<WorkingBackend, Diagnostics> = match &saved {
            None => Ok(WorkingBackend::default()),
            Some(s) => s.working(),
        };
        let Some(backend) = &module.backend else {
            if !self.o.backend_configs.is_empty() {
                self.diags.push(Diagnostic::warning(
                    "Missing backend configuration",
                    "-backend-config was used without a \"backend\" block in the configuration.\n\nIf you intended to override the default local backend configuration,\nno action is required, but you may add an explicit backend block to your\nconfiguration to clear this warning:\n\nterraform {\n  backend \"local\" {}\n}\n\nHowever, if you intended to override a defined backend, please verify that\nthe backend configuration is present and valid.\n",
                ));
            }
            let Some(saved) = saved else {
                return Ok(None);
            };
            if !self.o.reconfigure && !self.o.migrate_state {
                return Err(vec![backend_changed()]);
            }
            say(&format!(
                "{PRODUCT_TITLE} has detected you're unconfiguring your previously set {} backend.",
                quote(&saved.type_name)
            ));
            if self.o.migrate_state {
                let from = current?;
                migrate_state(
                    root,
                    &data_dir(),
                    &from,
                    &WorkingBackend::default(),
                    &migrate,
                    &codec,
                )?;
            }
            std::fs::remove_file(&state_file).map_err(|e| {
                vec![Diagnostic::error(
                    "Failed to clear the backend configuration",
                    format!("Error removing {}: {e}.", state_file.display()),
                )]
            })?;
            return Ok(Some(self.c(&format!(
                "[reset][green]\n\nSuccessfully unset the backend {}. {PRODUCT_TITLE} will now operate locally.",
                quote(&saved.type_name)
            ))));
        };
        let type_name = backend.type_name.clone();
        if !schema::IMPLEMENTED.contains(&type_name.as_str()) {
            return Err(vec![
                unsupported_backend(&type_name).with_subject(backend.type_range.clone())
            ]);
        }
        let (block, mut diags) = block_config(backend);
        let block_hash = schema::config_hash(&type_name, &block);
        let mut overrides = Vec::new();
        for item in &self.o.backend_configs {
            match item.split_once('=') {
                Some((name, value)) => match setting_from_cli(&type_name, name, value) {
                    Ok(setting) => overrides.push(setting),
                    Err(d) => diags.push(*d),
                },
                None => match backend_config_file(&type_name, item) {
                    Ok(values) => overrides.extend(values),
                    Err(more) => diags.extend(more),
                },
            }
        }
        if diags.iter().any(Diagnostic::is_error) {
            return Err(diags);
        }
        let config = with_settings(&type_name, Some(&block), &overrides);
        let effective = if type_name == "local" {
            WorkingBackend::Local(crate::backend_config::LocalSettings::from_value(&config))
        } else {
            WorkingBackend::Remote {
                type_name: type_name.clone(),
                config,
            }
        };
        // The new backend must configure (a missing bucket, a bad URL)
        // before anything is recorded or moved.
        effective.open(root, &data_dir(), Default::default(), &codec)?;
        let unchanged = saved.as_ref().is_some_and(|s| {
            s.type_name == type_name
                && s.hash == u64::from(block_hash)
                && s.working()
                    .is_ok_and(|w| w.config_value().raw_equals(&effective.config_value()))
        });
        if unchanged && !self.o.reconfigure {
            return Ok(None);
        }
        if !self.o.reconfigure {
            match (&saved, current) {
                // First configuration: the default local state moves in.
                (None, Ok(from)) => {
                    let copied =
                        migrate_state(root, &data_dir(), &from, &effective, &migrate, &codec)?;
                    if copied {
                        empty_default_state()?;
                    }
                }
                (Some(_), Ok(from)) if self.o.migrate_state => {
                    say(&self.c(&format!("[reset][bold]Backend configuration changed![reset]\n\n{PRODUCT_TITLE} has detected that the configuration specified for the backend\nhas changed. {PRODUCT_TITLE} will now check for existing state in the backends.\n")));
                    migrate_state(root, &data_dir(), &from, &effective, &migrate, &codec)?;
                }
                (Some(_), Err(diags)) if self.o.migrate_state => return Err(diags),
                _ => return Err(vec![backend_changed()]),
            }
        }
        write_saved_backend(&state_file, &effective, block_hash).map_err(|e| {
            vec![Diagnostic::error(
                "Failed to save the backend configuration",
                format!("Error writing {}: {e}.", state_file.display()),
            )]
        })?;
        Ok(Some(self.c(&format!(
            "[reset][green]\nSuccessfully configured the backend {}! {} will automatically\nuse this backend unless the backend configuration changes.",
            quote(&type_name),
            PRODUCT_TITLE
        ))))
    }

    // ----- providers -----

    fn get_providers(
        &mut self,
        config: &terrace_config::loader::Config,
    ) -> Result<(), Diagnostics> {
        let mut diags: Diagnostics = Vec::new();
        let dev = self.cli.dev_overrides();
        if !dev.is_empty() {
            let lines: Vec<String> = dev
                .iter()
                .map(|(p, dir)| format!(" - {} in {}", p.for_display(), dir.display()))
                .collect();
            self.diags.push(Diagnostic::warning(
                "Provider development overrides are in effect",
                format!(
                    "The following provider development overrides are set in the CLI configuration:\n{}\n\nSkip {} init when using provider development overrides. It is not necessary and may error unexpectedly.",
                    lines.join("\n"),
                    PRODUCT_COMMAND
                ),
            ));
        }
        let (reqs_tree, more) = requirements_by_module(config);
        diags.extend(more);
        let mut reqs: Requirements = reqs_tree.merged();
        match crate::providers::working_state_providers(Path::new("."), &data_dir()) {
            Ok(state) => {
                for p in state {
                    reqs.entry(p).or_default();
                }
            }
            Err(d) => diags.push(d),
        }
        for p in reqs.keys() {
            if p.is_legacy() {
                diags.push(Diagnostic::error(
                    "Invalid legacy provider address",
                    format!("This configuration or its associated state refers to the unqualified provider {}.\n\nYou must complete the Terraform 0.13 upgrade process before upgrading to later versions.", quote(p.type_name())),
                ));
            }
        }
        let previous = match load_locks() {
            Ok(l) => l,
            Err(d) => {
                diags.extend(d);
                return Err(diags);
            }
        };
        if diags.iter().any(Diagnostic::is_error) {
            return Err(diags);
        }
        self.keep_warnings(diags);
        if self.o.upgrade && self.o.lockfile_readonly {
            // Terraform 1.11 reports this conflict twice.
            let conflict =
                Diagnostic::error("The -upgrade flag conflicts with -lockfile=readonly.", "");
            return Err(vec![conflict.clone(), conflict]);
        }

        let registry = registry_config(&self.cli, &self.env)?;
        let (source, source_diags) = if self.o.plugin_dirs.is_empty() {
            cliconfig::provider_source(&self.cli, &self.env, &HttpRemoteSources(registry.clone()))
        } else {
            (
                cliconfig::plugin_dir_source(&self.o.plugin_dirs),
                Vec::new(),
            )
        };
        if source_diags.iter().any(Diagnostic::is_error) {
            return Err(source_diags);
        }
        let installer = provider_installer(&self.cli, source, &registry);
        let mut events = InitEvents {
            color: self.o.color,
            json: self.o.json,
            failures: Vec::new(),
            warnings: Vec::new(),
            incomplete: BTreeSet::new(),
            third_party_signed: false,
        };
        let mode = if self.o.upgrade {
            InstallMode::Upgrade
        } else {
            InstallMode::NewProvidersOnly
        };
        let (new_locks, errors) =
            installer.ensure_provider_versions(&previous, &reqs, mode, &mut events);
        self.keep_warnings(events.warnings.clone());
        if !errors.is_empty() {
            return Err(events.failures);
        }
        if events.third_party_signed && !self.o.json {
            say("Partner and community providers are signed by their developers.\nIf you'd like to know more about provider signing, you can read about it here:\nhttps://developer.hashicorp.com/terraform/cli/plugins/signing");
        }
        if new_locks.same_selections(&previous) {
            return Ok(());
        }
        if self.o.lockfile_readonly {
            let old: BTreeSet<&Provider> = previous.providers().map(|l| &l.provider).collect();
            let new: BTreeSet<&Provider> = new_locks.providers().map(|l| &l.provider).collect();
            if old != new {
                return Err(vec![Diagnostic::error(
                    "Provider dependency changes detected",
                    format!("Changes to the required provider dependencies were detected, but the lock file is read-only. To use and record these requirements, run \"{} init\" without the \"-lockfile=readonly\" flag.", PRODUCT_COMMAND),
                )]);
            }
            self.diags.push(Diagnostic::warning(
                "Provider lock file not updated",
                format!("Changes to the provider selections were detected, but not saved in the .terraform.lock.hcl file. To record these selections, run \"{} init\" without the \"-lockfile=readonly\" flag.", PRODUCT_COMMAND),
            ));
            return Ok(());
        }
        if !events.incomplete.is_empty() {
            let list: Vec<String> = events.incomplete.iter().cloned().collect();
            self.diags.push(Diagnostic::warning(
                "Incomplete lock file information for providers",
                format!(
                    "Due to your customized provider installation methods, {t} was forced to calculate lock file checksums locally for the following providers:\n  - {}\n\nThe current .terraform.lock.hcl file only includes checksums for {}, so {t} running on another platform will fail to install these providers.\n\nTo calculate additional checksums for another platform, run:\n  {p} providers lock -platform=linux_amd64\n(where linux_amd64 is the platform to generate)",
                    list.join("\n  - "),
                    terrace_getproviders::source::Platform::current(),
                    t = PRODUCT_TITLE,
                    p = PRODUCT_COMMAND
                ),
            ));
        }
        if previous.is_empty() {
            self.message("lock_info", &format!(
                "{t} has created a lock file [bold].terraform.lock.hcl[reset] to record the provider\nselections it made above. Include this file in your version control repository\nso that {t} can guarantee to make the same selections by default when\nyou run \"{p} init\" in the future.",
                t = PRODUCT_TITLE,
                p = PRODUCT_COMMAND
            ));
        } else {
            self.message("dependencies_lock_changes_info", &format!(
                "{} has made some changes to the provider dependency selections recorded\nin the .terraform.lock.hcl file. Review those changes and commit them to your\nversion control system if they represent changes you intended to make.",
                PRODUCT_TITLE
            ));
        }
        let save = new_locks.save(Path::new(LOCK_FILE_NAME));
        if save.iter().any(Diagnostic::is_error) {
            return Err(save);
        }
        Ok(())
    }
}

/// The installer `init` uses: into the data directory, through the shared
/// plugin cache when one is configured.
pub(crate) fn provider_installer(
    cli: &CliConfig,
    source: MultiSource,
    registry: &RegistryConfig,
) -> Installer {
    let mut installer = Installer::new(
        ProviderCacheDir::new(data_dir().join("providers")),
        Box::new(source),
    );
    if let Some(dir) = cli.plugin_cache_dir.as_deref().filter(|d| !d.is_empty()) {
        installer.set_global_cache_dir(
            ProviderCacheDir::new(dir),
            cli.plugin_cache_may_break_dependency_lock_file,
        );
    }
    installer.set_builtin_provider_types(vec!["terraform".to_string()]);
    installer.set_fetcher(Box::new(HttpFetcher(Http::new(&registry.http))));
    installer
}

/// `.terraform/plugin_path`: the `-plugin-dir` directories as a JSON list
/// (Go's indented form). Without `-plugin-dir` an earlier list is left in
/// place (and, as in Terraform, not used by `init`).
fn store_plugin_path(dirs: &[PathBuf]) -> Result<(), String> {
    if dirs.is_empty() {
        return Ok(());
    }
    let path = data_dir().join("plugin_path");
    let items: Vec<String> = dirs
        .iter()
        .map(|d| format!("  {}", serde_json::Value::String(d.display().to_string())))
        .collect();
    let text = format!("[\n{}\n]", items.join(",\n"));
    std::fs::create_dir_all(data_dir()).map_err(|e| e.to_string())?;
    std::fs::write(&path, text).map_err(|e| e.to_string())
}

fn early_sources(module: &Module) -> SourceMap {
    let mut sources = SourceMap::new();
    for f in &module.files {
        sources.add_source(f.clone());
    }
    sources
}

fn config_error_preamble() -> Diagnostic {
    Diagnostic::error(
        format!(
            "{t} encountered problems during initialisation, including problems\nwith the configuration, described below.\n\nThe {t} configuration must be valid before initialization so that\n{t} can determine which modules and providers need to be installed.",
            t = PRODUCT_TITLE
        ),
        "",
    )
}

/// After the default local state moved into a newly configured backend:
/// `terraform.tfstate` is emptied and its content kept beside it as
/// `terraform.tfstate.backup`, as terraform leaves them.
fn empty_default_state() -> Result<(), Diagnostics> {
    let path = Path::new("terraform.tfstate");
    let failed = |e: std::io::Error| {
        vec![Diagnostic::error(
            "Failed to clear the previous local state",
            format!("Error emptying {}: {e}.", path.display()),
        )]
    };
    let bytes = std::fs::read(path).map_err(failed)?;
    std::fs::write("terraform.tfstate.backup", bytes).map_err(failed)?;
    std::fs::write(path, b"").map_err(failed)
}

fn backend_changed() -> Diagnostic {
    Diagnostic::error(
        "Backend configuration changed",
        format!(
            "A change in the backend configuration has been detected, which may require migrating existing state.\n\nIf you wish to attempt automatic migration of the state, use \"{p} init -migrate-state\".\nIf you wish to store the current configuration with no changes to the state, use \"{p} init -reconfigure\".",
            p = PRODUCT_COMMAND
        ),
    )
}

/// A `-backend-config` file: HCL attributes for the backend's settings.
fn backend_config_file(
    type_name: &str,
    path: &str,
) -> Result<Vec<(String, terrace_value::Value)>, Diagnostics> {
    let (file, mut diags) = parse_config_file(Path::new(path), path);
    let Some(file) = file else {
        return Err(diags);
    };
    let body = terrace_config::body::Body::from_file(&file);
    let (out, more) = crate::backend_config::decode_backend_body(type_name, &body);
    diags.extend(more);
    if diags.iter().any(Diagnostic::is_error) {
        return Err(diags);
    }
    Ok(out)
}

/// Module installation lines: "Downloading ..." and "- KEY in DIR", as
/// text or as the stream's log lines.
pub(crate) struct ModuleLines {
    pub json: bool,
}

impl ModuleLines {
    fn line(&self, text: &str) {
        if self.json {
            crate::json_ui::log(text);
        } else {
            say(text);
        }
    }
}

impl ModuleInstallHooks for ModuleLines {
    fn download(&mut self, key: &str, package: &str, version: Option<&str>) {
        match version {
            Some(v) => self.line(&format!("Downloading {package} {v} for {key}...")),
            None => self.line(&format!("Downloading {package} for {key}...")),
        }
    }
    fn install(&mut self, key: &str, _version: Option<&str>, dir: &str) {
        self.line(&format!("- {key} in {dir}"));
    }
}

/// Provider installation lines and the diagnostics of failures.
struct InitEvents {
    color: bool,
    /// `-json`: the stream's wording, which differs from the text's.
    json: bool,
    failures: Diagnostics,
    warnings: Diagnostics,
    /// Providers whose lock entries only have locally computed hashes.
    incomplete: BTreeSet<String>,
    third_party_signed: bool,
}

impl InitEvents {
    /// A provider installation step: `text` for the terminal, `stream`
    /// for `-json` (worded differently there).
    fn line(&self, text: &str, stream: &str) {
        if self.json {
            crate::json_ui::log(stream);
        } else {
            say(text);
        }
    }
}

impl InstallerEvents for InitEvents {
    fn pending_providers(&mut self, _reqs: &Requirements) {
        if self.json {
            crate::json_ui::init_output(
                "initializing_provider_plugin_message",
                "Initializing provider plugins...",
            );
            return;
        }
        say(&colorize(
            "[reset][bold]Initializing provider plugins...",
            self.color,
        ));
    }
    fn builtin_provider_available(&mut self, provider: &Provider) {
        self.line(
            &format!(
                "- {} is built in to {}",
                provider.for_display(),
                PRODUCT_TITLE
            ),
            &format!(
                "{} is built in to {}",
                provider.for_display(),
                PRODUCT_TITLE
            ),
        );
    }
    fn query_packages_begin(
        &mut self,
        provider: &Provider,
        constraints: &VersionConstraints,
        locked: bool,
    ) {
        let p = provider.for_display();
        if locked {
            self.line(
                &format!("- Reusing previous version of {p} from the dependency lock file"),
                &format!("{p}: Reusing previous version from the dependency lock file"),
            );
        } else if constraints.is_empty() {
            self.line(
                &format!("- Finding latest version of {p}..."),
                &format!("{p}: Finding latest version..."),
            );
        } else {
            let wanted = quote(&constraints.to_string());
            self.line(
                &format!("- Finding {p} versions matching {wanted}..."),
                &format!(
                    "Finding matching versions for provider: {p}, version_constraint: {wanted}"
                ),
            );
        }
    }
    fn query_packages_warning(&mut self, provider: &Provider, warnings: &[String]) {
        let lines: Vec<String> = warnings.iter().map(|w| format!("- {w}")).collect();
        self.warnings.push(Diagnostic::warning(
            "Additional provider information from registry",
            format!(
                "The remote registry returned warnings for {provider}:\n{}",
                lines.join("\n")
            ),
        ));
    }
    fn provider_already_installed(&mut self, provider: &Provider, version: &Version) {
        let p = provider.for_display();
        self.line(
            &format!("- Using previously-installed {p} v{version}"),
            &format!("{p} v{version}: Using previously-installed provider version"),
        );
    }
    fn fetch_package_begin(
        &mut self,
        provider: &Provider,
        version: &Version,
        _location: &PackageLocation,
        _in_cache: bool,
    ) {
        let p = provider.for_display();
        // Neither the text nor the stream says whether the package goes
        // to the shared cache (terraform 1.11 does not).
        self.line(
            &format!("- Installing {p} v{version}..."),
            &format!("Installing provider version: {p} v{version}..."),
        );
    }
    fn fetch_package_success(
        &mut self,
        provider: &Provider,
        version: &Version,
        _dir: &Path,
        auth: Option<&PackageAuthenticationResult>,
    ) {
        let (describe, key) = match auth {
            Some(a) => {
                if a.signed() && a.key_id.as_deref() != Some(HASHICORP_KEY_ID) {
                    self.third_party_signed = true;
                }
                let key = match (&a.key_id, a.signed()) {
                    (Some(k), true) => colorize(
                        &format!(", key ID [reset][bold]{k}[reset]"),
                        self.color && !self.json,
                    ),
                    _ => String::new(),
                };
                (a.describe(), key)
            }
            None => ("unauthenticated", String::new()),
        };
        let p = provider.for_display();
        self.line(
            &format!("- Installed {p} v{version} ({describe}{key})"),
            &format!("Installed provider version: {p} v{version} ({describe}{key})"),
        );
    }
    fn link_from_cache_begin(&mut self, provider: &Provider, version: &Version, _cache: &Path) {
        let p = provider.for_display();
        self.line(
            &format!("- Using {p} v{version} from the shared cache directory"),
            &format!("{p} v{version}: Using from the shared cache directory"),
        );
    }
    fn providers_lock_updated(
        &mut self,
        provider: &Provider,
        _version: &Version,
        local: &[Hash],
        signed: &[Hash],
        prior: &[Hash],
    ) {
        // Only locally computed checksums (and nothing different recorded
        // before): other platforms will not be able to install it.
        if !signed.is_empty() {
            return;
        }
        if !prior.is_empty() && local != prior {
            return;
        }
        self.incomplete.insert(provider.for_display());
    }
    fn failure(&mut self, provider: &Provider, error: &ProviderError) {
        self.failures.push(error.to_diagnostic(provider));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn go_flag_parsing() {
        let bools = ["upgrade", "no-color", "backend"];
        let strings = ["plugin-dir", "backend-config"];
        assert_eq!(
            parse_go_flags(
                &args(&[
                    "-upgrade",
                    "--backend=false",
                    "-plugin-dir",
                    "/a",
                    "-plugin-dir=/b",
                    "-backend-config=path=x",
                    "rest",
                    "-no-color"
                ]),
                &bools,
                &strings
            ),
            Ok((
                vec![
                    ("upgrade".into(), "true".into()),
                    ("backend".into(), "false".into()),
                    ("plugin-dir".into(), "/a".into()),
                    ("plugin-dir".into(), "/b".into()),
                    ("backend-config".into(), "path=x".into()),
                ],
                args(&["rest", "-no-color"])
            ))
        );
        assert_eq!(
            parse_go_flags(&args(&["-bogus"]), &bools, &strings),
            Err("flag provided but not defined: -bogus".into())
        );
        assert_eq!(
            parse_go_flags(&args(&["-upgrade=maybe"]), &bools, &strings),
            Err("invalid boolean value \"maybe\" for -upgrade: parse error".into())
        );
        assert_eq!(
            parse_go_flags(&args(&["-plugin-dir"]), &bools, &strings),
            Err("flag needs an argument: -plugin-dir".into())
        );
    }

    #[test]
    fn colour_markup() {
        assert_eq!(
            colorize("[reset][bold]Initializing the backend...", true),
            "\x1b[0m\x1b[1mInitializing the backend...\x1b[0m"
        );
        assert_eq!(
            colorize("[reset][bold]Initializing the backend...", false),
            "Initializing the backend..."
        );
    }

    /// The hash terraform 1.11.4 recorded for `backend "local" {}`.
    #[test]
    fn backend_hash_is_terraforms() {
        assert_eq!(
            terrace_states::backend::schema::config_hash(
                "local",
                &crate::backend_config::LocalSettings::default().to_value()
            ),
            666019178
        );
    }

    #[test]
    fn diagnostics_as_one_error() {
        let a = Diagnostic::error("Missing expression", "Expected the start of an expression.");
        let b = Diagnostic::error("Unsuitable value type", "");
        assert_eq!(
            diags_as_error(std::slice::from_ref(&a)),
            "Missing expression: Expected the start of an expression."
        );
        assert_eq!(
            diags_as_error(&[a, b]),
            "2 problems:\n\n- Missing expression: Expected the start of an expression.\n- Unsuitable value type"
        );
    }
}
