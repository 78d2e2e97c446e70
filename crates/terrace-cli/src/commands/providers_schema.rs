//! `terrace providers schema -json`: the schemas of every provider the
//! configuration and the state need, in Terraform's JSON format
//! (`jsonprovider`).
//!
//! Each provider's executable is found by `terrace_schemacache::locate`
//! (the lock file's version, in `.terraform/providers` or a filesystem
//! mirror of the CLI configuration), and its schema comes from the schema
//! cache when the provider allows that, so a warm run starts no provider
//! at all. Providers that must be asked are started in parallel.

use crate::commands::providers::{self, requirements_by_module, source_map};
use crate::jsonprovider;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use terrace_addrs::Provider;
use terrace_getproviders::cliconfig::{self, CliConfig, CliEnv};
use terrace_getproviders::lockfile::{Locks, LOCK_FILE_NAME};
use terrace_getproviders::VersionConstraints;
use terrace_plugin::LaunchConfig;
use terrace_providers::ProviderSchema;
use terrace_schemacache::{load_schema, SchemaCache};
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
    match providers::working_state_providers(dir, &data_dir) {
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
    diags.extend(verify_dependency_selections(&reqs.merged(), &locks, &cli));
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

/// Terraform's check of the lock file against the configuration before
/// any provider is started: every provider the configuration requires
/// (development overrides aside) has a selected version, and that version
/// meets the configuration's constraints.
pub fn verify_dependency_selections(
    required: &BTreeMap<Provider, VersionConstraints>,
    locks: &Locks,
    cli: &CliConfig,
) -> Option<Diagnostic> {
    let overrides = cli.dev_overrides();
    let errors = dependency_selection_errors(required, locks, |p| overrides.contains_key(p));
    if errors.is_empty() {
        return None;
    }
    let suggestion = if locks.is_empty() {
        format!("To make the initial dependency selections that will initialize the dependency lock file, run:\n  {} init", crate::PRODUCT)
    } else {
        format!("To update the locked dependency selections to match a changed configuration, run:\n  {} init -upgrade", crate::PRODUCT)
    };
    Some(Diagnostic::error(
        "Inconsistent dependency lock file",
        format!(
            "The following dependency selections recorded in the lock file are inconsistent with the current configuration:{}\n\n{suggestion}",
            errors.iter().map(|e| format!("\n  - {e}")).collect::<String>()
        ),
    ))
}

/// What is wrong with the lock file's selections for `required`, one
/// sentence per provider, sorted: a provider with no selection, or one
/// whose selection the constraints no longer allow. Providers `exempt`
/// accepts (development overrides) and those never locked are left out.
pub fn dependency_selection_errors(
    required: &BTreeMap<Provider, VersionConstraints>,
    locks: &Locks,
    exempt: impl Fn(&Provider) -> bool,
) -> Vec<String> {
    let mut errors = Vec::new();
    for (provider, constraints) in required {
        if !terrace_getproviders::lockfile::provider_is_lockable(provider) || exempt(provider) {
            continue;
        }
        let Some(lock) = locks.provider(provider) else {
            errors.push(format!(
                "provider {provider}: required by this configuration but no version is selected"
            ));
            continue;
        };
        if !constraints.allows(&lock.version) {
            let current = constraints.to_string();
            if current != lock.constraints.to_string() {
                errors.push(format!(
                    "provider {provider}: locked version selection {} doesn't match the updated version constraints {}",
                    lock.version,
                    terrace_value::gostr::quote(&current)
                ));
            } else {
                errors.push(format!(
                    "provider {provider}: version constraints {} don't match the locked version selection {}",
                    terrace_value::gostr::quote(&current),
                    lock.version
                ));
            }
        }
    }
    errors.sort();
    errors
}

/// The executable of each provider in `needed` (built-in providers are
/// left out), as terraform allows them to run: a development override's
/// (exempt from the lock file, with terraform's warning printed by the
/// caller), else the locked version's package in `.terraform/providers`,
/// which must match one of the lock file's checksums. Nothing else is
/// ever run: not a mirror's copy, not a version the lock file does not
/// name. Fails with terraform's "Required plugins are not installed"
/// listing every problem.
pub fn locate_executables(
    needed: &BTreeMap<Provider, VersionConstraints>,
    locks: &Locks,
    cli: &CliConfig,
    _env: &CliEnv,
    data_dir: &Path,
) -> Result<Vec<(Provider, PathBuf)>, Diagnostics> {
    let overrides = cli.dev_overrides();
    let cache_base = data_dir.join("providers");
    let cache = terrace_getproviders::installer::ProviderCacheDir::new(&cache_base);
    // Named as terraform names it: relative, without a leading `./`.
    let cache_name = cache_base.to_string_lossy();
    let cache_name = cache_name
        .strip_prefix("./")
        .unwrap_or(&cache_name)
        .to_string();
    let schema_cache = SchemaCache::from_env();
    let mut executables: Vec<(Provider, PathBuf)> = Vec::new();
    let mut problems: Vec<String> = Vec::new();
    for provider in needed.keys() {
        if provider.is_builtin() {
            continue;
        }
        if let Some(dir) = overrides.get(provider) {
            match terrace_schemacache::locate::find_executable(dir, provider.type_name()) {
                Some(executable) => executables.push((provider.clone(), executable)),
                None => problems.push(format!(
                    "  - {provider}: the development override directory {} has no \
                     executable file starting with terraform-provider-{}",
                    dir.display(),
                    provider.type_name()
                )),
            }
            continue;
        }
        let Some(lock) = locks.provider(provider) else {
            problems.push(format!(
                "  - {provider}: required by this configuration but no version is selected"
            ));
            continue;
        };
        let version = &lock.version;
        let Some(cached) = cache.provider_version(provider, version) else {
            problems.push(format!(
                "  - {provider}: there is no package for {provider} {version} cached in {cache_name}"
            ));
            continue;
        };
        let hashes = lock.preferred_hashes();
        if !hashes.is_empty() {
            match schema_cache.package_h1(&cached.package_dir) {
                Ok(h1) if hashes.contains(&h1) => {}
                Ok(_) => {
                    problems.push(format!(
                        "  - {provider}: the cached package for {provider} {version} (in {cache_name}) does not match any of the checksums recorded in the dependency lock file"
                    ));
                    continue;
                }
                Err(e) => {
                    problems.push(format!(
                        "  - {provider}: failed to verify checksum of {provider} {version} package cached in in {cache_name}: {e}"
                    ));
                    continue;
                }
            }
        }
        match cached.executable_file() {
            Ok(executable) => executables.push((provider.clone(), executable)),
            Err(e) => problems.push(format!("  - {provider}: {e}")),
        }
    }
    if !problems.is_empty() {
        let product = crate::PRODUCT;
        // In automation the advice names no command: a pipeline installs
        // the plugins its own way.
        let remedy = if crate::in_automation() {
            format!("You must install the required plugins before running {product} operations.")
        } else {
            format!(
                "To download the plugins required for this configuration, run:\n  {product} init"
            )
        };
        return Err(vec![Diagnostic::error(
            "Required plugins are not installed",
            format!(
                "The installed provider plugins are not consistent with the packages selected \
                 in the dependency lock file:\n{}\n\n{product} uses external plugins to \
                 integrate with a variety of different infrastructure services. {remedy}",
                problems.join("\n"),
            ),
        )]);
    }
    Ok(executables)
}

/// The executables of `needed` as the working directory `dir` selects
/// them: its lock file, the CLI configuration's overrides and its
/// provider cache (see [`locate_executables`]).
pub fn installed_executables(
    dir: &Path,
    needed: &BTreeMap<Provider, VersionConstraints>,
) -> Result<Vec<(Provider, PathBuf)>, Diagnostics> {
    let (locks, _) = Locks::load(&dir.join(LOCK_FILE_NAME));
    let env = CliEnv::from_process();
    let (cli, _) = cliconfig::load(&env);
    locate_executables(needed, &locks, &cli, &env, &providers::data_dir(dir))
}

/// The schema of each provider, keyed by its address; the built-in
/// `terraform.io/builtin/terraform` when the configuration uses it, as
/// terraform lists it.
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
    for provider in needed.keys() {
        if provider.is_builtin() && provider.type_name() == "terraform" {
            schemas.insert(
                provider.to_string(),
                Arc::new(terrace_builtin::TerraformProvider::schema()),
            );
        }
    }
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

/// A provider's diagnostic in the configuration's diagnostic model.
pub fn provider_diagnostic(diag: terrace_providers::Diagnostic) -> Diagnostic {
    match diag.severity {
        terrace_providers::Severity::Error => Diagnostic::error(diag.summary, diag.detail),
        terrace_providers::Severity::Warning => Diagnostic::warning(diag.summary, diag.detail),
    }
}
