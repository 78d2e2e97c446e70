//! `terrace providers lock`: records in the lock file the checksums of
//! each required provider's package for every `-platform` given (the
//! current one by default), fetching them from the providers' origin
//! registries, or only from a filesystem mirror (`-fs-mirror`) or a network
//! mirror (`-net-mirror`), never from the CLI configuration's installation
//! methods. Packages are installed into a temporary directory per platform
//! and hashed there. Output and errors are Terraform 1.11's.

use crate::args::{parse_go_flags, FlagError};
use crate::commands::providers::{requirements_by_module, source_map};
use crate::diag_output::{
    colorize, print_cli_config_problems, print_diags, say, PRODUCT_COMMAND, PRODUCT_TITLE,
};
use crate::workdir::{load_locks, registry_config};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use terrace_addrs::Provider;
use terrace_config::loader::{load_config, LoadOptions};
use terrace_getproviders::auth::PackageAuthenticationResult;
use terrace_getproviders::cliconfig::{self, CliEnv};
use terrace_getproviders::hash::Hash;
use terrace_getproviders::installer::{
    InstallMode, Installer, InstallerEvents, ProviderCacheDir, Requirements,
};
use terrace_getproviders::lockfile::{provider_is_lockable, Locks, ProviderLock, LOCK_FILE_NAME};
use terrace_getproviders::registry::{Http, HttpFetcher, HttpMirrorSource, RegistrySource};
use terrace_getproviders::source::{
    FilesystemMirrorSource, MultiSource, MultiSourceSelector, PackageLocation, Platform, Source,
};
use terrace_getproviders::Version;
use terrace_syntax::render::SourceMap;
use terrace_syntax::{Diagnostic, Diagnostics};
use terrace_value::gostr::quote;

fn usage() -> String {
    format!(
        "
Usage: {p} [global options] providers lock [options] [providers...]

  Normally the dependency lock file (.terraform.lock.hcl) is updated
  automatically by \"{p} init\", but the information available to the
  normal provider installer can be constrained when you're installing providers
  from filesystem or network mirrors, and so the generated lock file can end
  up incomplete.

  The \"providers lock\" subcommand addresses that by updating the lock file
  based on the official packages available in the origin registry, ignoring
  the currently-configured installation strategy.

  After this command succeeds, the lock file will contain suitable checksums
  to allow installation of the providers needed by the current configuration
  on all of the selected platforms.

  By default this command updates the lock file for every provider declared
  in the configuration. You can override that behavior by providing one or
  more provider source addresses on the command line.

Options:

  -fs-mirror=dir         Consult the given filesystem mirror directory instead
                         of the origin registry for each of the given providers.

                         This would be necessary to generate lock file entries for
                         a provider that is available only via a mirror, and not
                         published in an upstream registry. In this case, the set
                         of valid checksums will be limited only to what {t}
                         can learn from the data in the mirror directory.

  -net-mirror=url        Consult the given network mirror (given as a base URL)
                         instead of the origin registry for each of the given
                         providers.

                         This would be necessary to generate lock file entries for
                         a provider that is available only via a mirror, and not
                         published in an upstream registry. In this case, the set
                         of valid checksums will be limited only to what {t}
                         can learn from the data in the mirror indices.

  -platform=os_arch      Choose a target platform to request package checksums
                         for.

                         By default {t} will request package checksums
                         suitable only for the platform where you run this
                         command. Use this option multiple times to include
                         checksums for multiple target systems.

                         Target names consist of an operating system and a CPU
                         architecture. For example, \"linux_amd64\" selects the
                         Linux operating system running on an AMD64 or x86_64
                         CPU. Each provider is available only for a limited
                         set of target platforms.

  -enable-plugin-cache   Enable the usage of the globally configured plugin cache.
                         This will speed up the locking process, but the providers
                         wont be loaded from an authoritative source.
",
        p = PRODUCT_COMMAND,
        t = PRODUCT_TITLE
    )
}

/// `terrace providers lock [options] [providers...]`.
pub fn run(argv: &[String]) -> i32 {
    let env = CliEnv::from_process();
    let (cli, cli_diags) = cliconfig::load(&env);
    print_cli_config_problems(&cli_diags);
    let (flags, provider_args) = match parse_go_flags(
        argv,
        &["enable-plugin-cache", "no-color"],
        &["fs-mirror", "net-mirror", "platform"],
    ) {
        Ok(r) => r,
        Err(FlagError::Help) => {
            // Asked-for help goes to standard output, as terraform's does.
            outln!("{}", usage());
            return 0;
        }
        Err(e) => {
            eprintln!("{}\nError parsing command-line flags: {e}\n", usage());
            return 1;
        }
    };
    let mut color = std::env::var_os("NO_COLOR").is_none();
    let mut fs_mirror: Option<PathBuf> = None;
    let mut net_mirror: Option<String> = None;
    let mut platform_args: Vec<String> = Vec::new();
    let mut plugin_cache = false;
    for (name, value) in flags {
        match name.as_str() {
            "fs-mirror" => fs_mirror = Some(PathBuf::from(value)),
            "net-mirror" => net_mirror = Some(value),
            "platform" => platform_args.push(value),
            "enable-plugin-cache" => plugin_cache = value == "true",
            "no-color" => color = color && value != "true",
            _ => {}
        }
    }

    let (platforms, mut diags) = target_platforms(&platform_args);

    let registry = match registry_config(&cli, &env) {
        Ok(r) => r,
        Err(d) => {
            print_diags(&d, SourceMap::new(), color);
            return 1;
        }
    };
    let make_source = || -> Result<Box<dyn Source>, Box<Diagnostic>> {
        match (&fs_mirror, &net_mirror) {
            (Some(_), Some(_)) => Err(Box::new(Diagnostic::error(
                "Invalid installation method options",
                "The -fs-mirror and -net-mirror command line options are mutually-exclusive.",
            ))),
            (Some(dir), None) => Ok(Box::new(FilesystemMirrorSource::new(dir))),
            (None, Some(url)) => {
                let scheme_ok = url
                    .split_once("://")
                    .is_some_and(|(s, rest)| s.eq_ignore_ascii_case("https") && !rest.is_empty());
                if !scheme_ok {
                    return Err(Box::new(Diagnostic::error(
                        "Invalid network mirror URL",
                        "The -net-mirror option requires a valid https: URL as the mirror base URL.",
                    )));
                }
                Ok(Box::new(HttpMirrorSource::new(url, &registry)))
            }
            (None, None) => Ok(Box::new(RegistrySource::new(registry.clone()))),
        }
    };
    if let Err(d) = make_source() {
        diags.push(*d);
        print_diags(&diags, SourceMap::new(), color);
        return 1;
    }

    let (config, config_diags) = load_config(Path::new("."), &LoadOptions::default());
    diags.extend(config_diags);
    let (reqs_tree, more) = requirements_by_module(&config);
    diags.extend(more);
    let mut reqs: Requirements = reqs_tree.merged();
    if !provider_args.is_empty() {
        let mut wanted = Vec::new();
        for raw in &provider_args {
            match Provider::parse_source_str(raw) {
                Ok(p) => {
                    if !reqs.contains_key(&p) {
                        diags.push(Diagnostic::error(
                            "Invalid provider argument",
                            format!(
                                "The provider {p} is not required by the current configuration."
                            ),
                        ));
                    }
                    wanted.push(p);
                }
                Err(more) => diags.extend(more),
            }
        }
        reqs.retain(|p, _| wanted.contains(p));
    }
    reqs.retain(|p, _| provider_is_lockable(p));
    let old_locks = match load_locks() {
        Ok(l) => l,
        Err(d) => {
            diags.extend(d);
            Locks::new()
        }
    };
    if diags.iter().any(Diagnostic::is_error) {
        print_diags(&diags, source_map(&config), color);
        return 1;
    }

    let mut updated: Vec<(Platform, Locks)> = Vec::new();
    let mut selected: BTreeMap<Provider, Version> = BTreeMap::new();
    for platform in &platforms {
        let tmp = match terrace_getproviders::fresh_temp_dir("terrace-providers-lock") {
            Ok(t) => t,
            Err(e) => {
                diags.push(Diagnostic::error(
                    "Could not create temporary directory",
                    format!("Failed to create a temporary directory for staging the requested provider packages: {e}."),
                ));
                break;
            }
        };
        let source = match make_source() {
            Ok(s) => s,
            Err(d) => {
                diags.push(*d);
                break;
            }
        };
        let mut installer = Installer::new(
            ProviderCacheDir::with_platform(&tmp, platform.clone()),
            Box::new(MultiSource(vec![MultiSourceSelector::new(source)])),
        );
        installer.set_fetcher(Box::new(HttpFetcher(Http::new(&registry.http))));
        if plugin_cache {
            if let Some(dir) = cli.plugin_cache_dir.as_deref().filter(|d| !d.is_empty()) {
                installer.set_global_cache_dir(
                    ProviderCacheDir::with_platform(dir, platform.clone()),
                    cli.plugin_cache_may_break_dependency_lock_file,
                );
            }
        }
        let mut events = LockEvents {
            platform: platform.clone(),
            color,
            selected: &mut selected,
            diags: Vec::new(),
        };
        let (locks, errors) = installer.ensure_provider_versions(
            &old_locks,
            &reqs,
            InstallMode::NewProvidersForce,
            &mut events,
        );
        diags.extend(events.diags);
        let _ = std::fs::remove_dir_all(&tmp);
        if !errors.is_empty() {
            let lines: Vec<String> = errors
                .iter()
                .map(|(p, e)| format!("- {p}: {}", e.message(p)))
                .collect();
            diags.push(Diagnostic::error(
                "Could not retrieve providers for locking",
                format!(
                    "{PRODUCT_TITLE} failed to fetch the requested providers for {platform} in order to calculate their checksums: some providers could not be installed:\n{}.",
                    lines.join("\n")
                ),
            ));
            break;
        }
        // One result per platform, however often it was named.
        updated.retain(|(p, _)| p != platform);
        updated.push((platform.clone(), locks));
    }
    if diags.iter().any(Diagnostic::is_error) {
        print_diags(&diags, source_map(&config), color);
        return 1;
    }

    let mut made_change = false;
    let mut new_locks = old_locks.clone();
    for provider in reqs.keys() {
        let old = old_locks.provider(provider);
        let mut version = old.map(|l| l.version.clone());
        let mut constraints = old.map(|l| l.constraints.clone()).unwrap_or_default();
        let mut hashes: Vec<Hash> = old.map(|l| l.hashes().to_vec()).unwrap_or_default();
        let p = provider.for_display();
        for (platform, locks) in &updated {
            let Some(lock) = locks.provider(provider) else {
                continue;
            };
            version = Some(lock.version.clone());
            constraints = lock.constraints.clone();
            hashes.extend(lock.hashes().iter().cloned());
            match old {
                None => {
                    made_change = true;
                    say(&format!("- Obtained {p} checksums for {platform}; This was a new provider and the checksums for this platform are now tracked in the lock file"));
                }
                Some(o) if lock.hashes().iter().all(|h| o.hashes().contains(h)) => {
                    say(&format!("- Obtained {p} checksums for {platform}; All checksums for this platform were already tracked in the lock file"));
                }
                Some(_) => {
                    made_change = true;
                    say(&format!("- Obtained {p} checksums for {platform}; Additional checksums for this platform are now tracked in the lock file"));
                }
            }
        }
        if let Some(version) = version {
            new_locks.set_provider(ProviderLock::new(
                provider.clone(),
                version,
                constraints,
                hashes,
            ));
        }
    }
    let saved = new_locks.save(Path::new(LOCK_FILE_NAME));
    diags.extend(saved);
    print_diags(&diags, source_map(&config), color);
    if diags.iter().any(Diagnostic::is_error) {
        return 1;
    }
    if made_change {
        say(&colorize(
            &format!("\n[bold][green]Success![reset] [bold]{PRODUCT_TITLE} has updated the lock file.[reset]"),
            color,
        ));
        say("\nReview the changes in .terraform.lock.hcl and then commit to your\nversion control system to retain the new checksums.\n");
    } else {
        say(&colorize(
            &format!("\n[bold][green]Success![reset] [bold]{PRODUCT_TITLE} has validated the lock file and found no need for changes.[reset]"),
            color,
        ));
    }
    0
}

struct LockEvents<'a> {
    platform: Platform,
    color: bool,
    selected: &'a mut BTreeMap<Provider, Version>,
    diags: Diagnostics,
}

impl InstallerEvents for LockEvents<'_> {
    fn fetch_package_begin(
        &mut self,
        provider: &Provider,
        version: &Version,
        _location: &PackageLocation,
        _in_cache: bool,
    ) {
        say(&format!(
            "- Fetching {} {version} for {}...",
            provider.for_display(),
            self.platform
        ));
        if let Some(prev) = self.selected.get(provider) {
            if prev != version {
                self.diags.push(Diagnostic::error(
                    "Inconsistent provider versions",
                    format!("The version constraint for {provider} selected inconsistent versions for different platforms, which is unexpected.\n\nThe upstream registry may have changed its available versions during {PRODUCT_TITLE}'s work. If so, re-running this command may produce a successful result."),
                ));
            }
        }
        self.selected.insert(provider.clone(), version.clone());
    }

    fn fetch_package_success(
        &mut self,
        provider: &Provider,
        version: &Version,
        _dir: &Path,
        auth: Option<&PackageAuthenticationResult>,
    ) {
        let (describe, key) = match auth {
            Some(a) => (
                a.describe(),
                match (&a.key_id, a.signed()) {
                    (Some(k), true) => {
                        colorize(&format!(", key ID [reset][bold]{k}[reset]"), self.color)
                    }
                    _ => String::new(),
                },
            ),
            None => ("unauthenticated", String::new()),
        };
        say(&format!(
            "- Retrieved {} {version} for {} ({describe}{key})",
            provider.for_display(),
            self.platform
        ));
    }
}

/// The `-platform` options of `providers lock` and `providers mirror`
/// (this machine's platform when none is given), and the errors for those
/// that name no valid platform.
pub(crate) fn target_platforms(args: &[String]) -> (Vec<Platform>, Diagnostics) {
    let mut diags: Diagnostics = Vec::new();
    let mut platforms: Vec<Platform> = Vec::new();
    if args.is_empty() {
        platforms.push(Platform::current());
    }
    for raw in args {
        match Platform::parse(raw) {
            Ok(p) => platforms.push(p),
            Err(e) => diags.push(Diagnostic::error(
                "Invalid target platform",
                format!(
                    "The string {} given in the -platform option is not a valid target platform: {e}.",
                    quote(raw)
                ),
            )),
        }
    }
    (platforms, diags)
}
