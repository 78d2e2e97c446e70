//! `terrace providers schema -json`: the schemas of every provider the
//! configuration and the state need, in Terraform's JSON format
//! (`jsonprovider`).
//!
//! Each provider's executable is found by `terrace_schemacache::locate`
//! (the lock file's version, in `.terraform/providers` or a filesystem
//! mirror of the CLI configuration), and its schema comes from the schema
//! cache when the provider allows that, so a warm run starts no provider
//! at all. Providers that must be asked are started in parallel.

use crate::jsonprovider;
use crate::providers::{self, requirements_by_module, source_map};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use terrace_addrs::Provider;
use terrace_getproviders::cliconfig::{self, CliConfig, CliEnv, InstallationLocation};
use terrace_getproviders::lockfile::{Locks, LOCK_FILE_NAME};
use terrace_getproviders::source::parse_provider_patterns;
use terrace_getproviders::VersionConstraints;
use terrace_plugin::LaunchConfig;
use terrace_providers::ProviderSchema;
use terrace_schemacache::{
    current_platform, load_schema, locate, SchemaCache, SearchDirs, VersionWanted,
};
use terrace_syntax::{Diagnostic, Diagnostics};

const USAGE: &str = "
Usage: terrace [global options] providers schema -json

  Prints out a json representation of the schemas for all providers used 
  in the current configuration.
";

pub fn run(dir: &Path, argv: &[String]) -> i32 {
    let mut json = false;
    let mut color = std::env::var_os("NO_COLOR").is_none();
    for arg in crate::args::parse(argv) {
        match arg {
            crate::args::Arg::Flag { name, value } => match (name.as_str(), value) {
                ("json", None) => json = true,
                ("no-color", None) => color = false,
                (other, _) => {
                    eprintln!(
                        "Error parsing command-line flags: flag provided but not defined: -{other}\n{USAGE}"
                    );
                    return 1;
                }
            },
            crate::args::Arg::Positional(p) => {
                eprintln!("Too many command line arguments: {p}\n{USAGE}");
                return 1;
            }
        }
    }
    if !json {
        eprintln!("The `terrace providers schema` command requires the `-json` flag.\n{USAGE}");
        return 1;
    }
    let Some((config, mut diags)) = providers::load(dir, color) else {
        return 1;
    };
    let sources = source_map(&config);
    let (reqs, more) = requirements_by_module(&config);
    diags.extend(more);
    let mut needed = reqs.merged();
    let data_dir = providers::data_dir(dir);
    match providers::state_providers(&providers::local_state_path(dir, &data_dir)) {
        Ok(state) => {
            for provider in state {
                needed.entry(provider).or_default();
            }
        }
        Err(diag) => diags.push(diag),
    }
    let (locks, lock_diags) = Locks::load(&dir.join(LOCK_FILE_NAME));
    diags.extend(lock_diags);
    let env = CliEnv::from_process();
    let (cli, cli_diags) = cliconfig::load(&env);
    providers::print_cli_config_problems(&cli_diags);
    if diags.iter().any(Diagnostic::is_error) {
        providers::print_diagnostics(&diags, &sources, color);
        return 1;
    }

    let schemas = match provider_schemas(&needed, &locks, &cli, &env, &data_dir) {
        Ok(schemas) => schemas,
        Err(errors) => {
            diags.extend(errors);
            providers::print_diagnostics(&diags, &sources, color);
            return 1;
        }
    };
    let text = jsonprovider::render(&schemas);
    let mut stdout = std::io::stdout().lock();
    if stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        .is_err()
    {
        return 1;
    }
    drop(stdout);
    // Warnings go to stdout after the document, as Terraform's do.
    providers::print_diagnostics(&diags, &sources, color);
    0
}

/// The executable of each provider in `needed` (built-in providers are
/// left out): a development override's, else the locked version's in
/// `.terraform/providers` or a filesystem mirror. Fails with terraform's
/// "Required plugins are not installed" listing every missing one.
pub fn locate_executables(
    needed: &BTreeMap<Provider, VersionConstraints>,
    locks: &Locks,
    cli: &CliConfig,
    env: &CliEnv,
    data_dir: &Path,
) -> Result<Vec<(Provider, PathBuf)>, Diagnostics> {
    let platform = current_platform();
    let overrides = cli.dev_overrides();
    let mut executables: Vec<(Provider, PathBuf)> = Vec::new();
    let mut missing: Vec<String> = Vec::new();
    for (provider, constraints) in needed {
        if provider.is_builtin() {
            continue;
        }
        if let Some(dir) = overrides.get(provider) {
            match terrace_schemacache::locate::find_executable(dir, provider.type_name()) {
                Some(executable) => executables.push((provider.clone(), executable)),
                None => missing.push(format!(
                    "  - {provider}: the development override directory {} has no \
                     executable file starting with terraform-provider-{}",
                    dir.display(),
                    provider.type_name()
                )),
            }
            continue;
        }
        let locked = locks.provider(provider).map(|lock| &lock.version);
        let wanted = match locked {
            Some(version) => VersionWanted::Exactly(version),
            None => VersionWanted::Matching(constraints),
        };
        let dirs = SearchDirs::new(data_dir, mirror_dirs(cli, env, provider));
        match locate(provider, wanted, &dirs, &platform) {
            Ok(found) => executables.push((provider.clone(), found.executable)),
            Err(e) => missing.push(format!("  - {provider}: {e}")),
        }
    }
    if !missing.is_empty() {
        return Err(vec![Diagnostic::error(
            "Required plugins are not installed",
            format!(
                "The installed provider plugins are not consistent with the packages selected \
                 in the dependency lock file:\n{}\n\nterrace uses external plugins to \
                 integrate with a variety of different infrastructure services. To download \
                 the plugins required for this configuration, run:\n  terraform init",
                missing.join("\n")
            ),
        )]);
    }
    Ok(executables)
}

/// The schema of each provider, keyed by its address. Built-in providers
/// (`terraform.io/builtin/*`) are left out: terrace has none yet.
fn provider_schemas(
    needed: &BTreeMap<Provider, VersionConstraints>,
    locks: &Locks,
    cli: &CliConfig,
    env: &CliEnv,
    data_dir: &Path,
) -> Result<BTreeMap<String, Arc<ProviderSchema>>, Diagnostics> {
    let executables = locate_executables(needed, locks, cli, env, data_dir)?;
    let cache = SchemaCache::from_env();
    let results: Vec<(
        Provider,
        Result<Arc<ProviderSchema>, terrace_providers::Diagnostics>,
    )> = std::thread::scope(|scope| {
        let handles: Vec<_> = executables
            .iter()
            .map(|(provider, executable)| {
                let cache = &cache;
                scope.spawn(move || {
                    let config = LaunchConfig::new(provider.to_string(), executable.clone());
                    load_schema(cache, config).map(|loaded| loaded.schema)
                })
            })
            .collect();
        executables
            .iter()
            .zip(handles)
            .map(|((provider, _), handle)| {
                let result = handle.join().unwrap_or_else(|_| {
                    Err(terrace_providers::Diagnostic::error(
                        "Failed to load plugin schemas",
                        format!("Loading the schema of provider {provider} failed unexpectedly."),
                    )
                    .into())
                });
                (provider.clone(), result)
            })
            .collect()
    });
    let mut schemas = BTreeMap::new();
    let mut errors = Vec::new();
    for (provider, result) in results {
        match result {
            Ok(schema) => {
                schemas.insert(provider.to_string(), schema);
            }
            Err(diags) => errors.extend(diags.0.into_iter().map(provider_diagnostic)),
        }
    }
    if errors.iter().any(Diagnostic::is_error) {
        return Err(errors);
    }
    Ok(schemas)
}

/// The filesystem mirrors that may hold `provider`: the CLI
/// configuration's `filesystem_mirror` methods whose `include` and
/// `exclude` patterns admit it, or, without a `provider_installation`
/// block, the implied local mirror directories.
fn mirror_dirs(cli: &CliConfig, env: &CliEnv, provider: &Provider) -> Vec<PathBuf> {
    let Some(installation) = cli.provider_installation.first() else {
        return cliconfig::implied_local_mirror_dirs(env);
    };
    installation
        .methods
        .iter()
        .filter_map(|method| {
            let InstallationLocation::FilesystemMirror(path) = &method.location else {
                return None;
            };
            let included = method.include.is_empty()
                || parse_provider_patterns(&method.include)
                    .is_ok_and(|patterns| patterns.iter().any(|p| p.matches(provider)));
            let excluded = parse_provider_patterns(&method.exclude)
                .is_ok_and(|patterns| patterns.iter().any(|p| p.matches(provider)));
            (included && !excluded).then(|| PathBuf::from(path))
        })
        .collect()
}

/// A provider's diagnostic in the configuration's diagnostic model.
pub fn provider_diagnostic(diag: terrace_providers::Diagnostic) -> Diagnostic {
    match diag.severity {
        terrace_providers::Severity::Error => Diagnostic::error(diag.summary, diag.detail),
        terrace_providers::Severity::Warning => Diagnostic::warning(diag.summary, diag.detail),
    }
}
