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
//! Each phase has its module: `backend`, `providers`; modules are
//! installed by `terrace-getmodules` with the lines `ModuleLines` prints.

use crate::commands::providers::{has_config_files, requirements_by_module, source_map};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use terrace_addrs::Provider;
use terrace_config::loader::{
    load_config, load_module_dir, parse_config_file, Config, LoadOptions,
};
use terrace_config::model::Module;
use terrace_getmodules::{ModuleInstallHooks, ModuleInstaller};
use terrace_getproviders::auth::{PackageAuthenticationResult, HASHICORP_KEY_ID};
use terrace_getproviders::cliconfig::{self, CliConfig, CliEnv};
use terrace_getproviders::hash::Hash;
use terrace_getproviders::installer::{
    InstallMode, Installer, InstallerEvents, ProviderCacheDir, ProviderError, Requirements,
};
use terrace_getproviders::lockfile::LOCK_FILE_NAME;
use terrace_getproviders::registry::{Http, HttpFetcher, HttpRemoteSources, RegistryConfig};
use terrace_getproviders::source::{MultiSource, PackageLocation};
use terrace_getproviders::{Version, VersionConstraints};
use terrace_syntax::render::SourceMap;
use terrace_syntax::{Diagnostic, Diagnostics};
use terrace_value::gostr::quote;

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

mod backend;
mod providers;

use crate::args::{parse_go_flags, FlagError};
use crate::diag_output::{
    colorize, print_cli_config_problems, print_diags, say, PRODUCT_COMMAND, PRODUCT_TITLE,
};
use crate::workdir::{data_dir, load_locks, registry_config};
use providers::store_plugin_path;

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
    /// `-test-directory`: where the test files checked with the
    /// configuration are.
    test_directory: String,
}

/// Why `init`'s command line was not taken.
enum OptionsError {
    Help,
    /// A flag the `flag` package refused: the detail of "Failed to parse
    /// command-line flags".
    Flags(String),
    /// Flags that parse but do not make sense: the error's summary.
    Arguments(String),
}

fn parse_options(argv: &[String]) -> Result<Options, OptionsError> {
    let bools = [
        "backend",
        "cloud",
        "get",
        "input",
        "lock",
        "no-color",
        "compact-warnings",
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
    let (flags, rest) = parse_go_flags(argv, &bools, &strings).map_err(|e| match e {
        FlagError::Help => OptionsError::Help,
        FlagError::Invalid(text) => OptionsError::Flags(text),
    })?;
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
        test_directory: terrace_config::testfile::DEFAULT_TEST_DIRECTORY.to_string(),
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
            "test-directory" => o.test_directory = value,
            "var" => match value.split_once('=') {
                Some((name, text)) => o.variables.push(
                    terrace_config::input_variables::VariableArgument::Var {
                        name: name.trim().to_string(),
                        text: text.to_string(),
                    },
                ),
                None => {
                    return Err(OptionsError::Arguments(
                        format!("The given -var option {} is not correctly specified. Must be a variable name and value separated by an equals sign, like -var=\"key=value\".", quote(&value)),
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
        return Err(OptionsError::Arguments(
            "Too many command line arguments. Did you mean to use -chdir?".into(),
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
        Err(OptionsError::Help) => {
            eprint!("{USAGE}");
            return 0;
        }
        Err(OptionsError::Flags(e)) => {
            print_diags(
                &[Diagnostic::error("Failed to parse command-line flags", e)],
                SourceMap::new(),
                color_default,
            );
            return 1;
        }
        Err(OptionsError::Arguments(e)) => {
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

        let (config, mut config_diags) = load_config(root, &load_options);
        // The test files must be valid too: a run's module is installed
        // from them.
        let mut test_sources = Vec::new();
        if !config_diags.iter().any(Diagnostic::is_error) {
            let (tests, test_diags) = terrace_config::testfile::load_test_files(
                root,
                Some(&self.o.test_directory),
                &load_options,
            );
            test_sources.extend(tests.into_iter().filter_map(|t| t.source));
            config_diags.extend(test_diags);
        }
        let source_map = |config: &Config| {
            let mut sources = source_map(config);
            for source in &test_sources {
                sources.add_source(source.clone());
            }
            sources
        };
        // A configuration written for another Terraform version is said
        // alone, without the preamble about invalid configurations.
        let version_diags = terrace_config::loader::check_terraform_versions(&config);
        if !early_failed && version_diags.iter().any(Diagnostic::is_error) {
            return self.fail(version_diags, source_map(&config));
        }
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
