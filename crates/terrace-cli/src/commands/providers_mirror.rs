//! `terrace providers mirror [options] DIR`: downloads, from each
//! provider's origin registry (never the CLI configuration's installation
//! methods, so an existing mirror can be refreshed while it is in use), the
//! packages the configuration needs for each `-platform`, into DIR in the
//! packed layout (`HOSTNAME/NAMESPACE/TYPE/terraform-provider-TYPE_VERSION_OS_ARCH.zip`),
//! then writes the network mirror protocol's indexes beside them
//! (`index.json` listing the versions, `VERSION.json` each platform's
//! archive and hash) for every archive the directory holds, new or not.
//!
//! The version is the lock file's selection when there is a lock file
//! (`-lock-file=false` ignores it), else the newest release the
//! constraints allow. Beyond terraform, which only takes the version from
//! the lock file, a package that matches none of the checksums the lock
//! file records for its provider is refused and left out of the mirror:
//! `init` from that mirror would refuse it anyway. Output and errors are
//! terraform 1.11's.

use crate::args::{parse_go_flags, FlagError};
use crate::commands::providers::{requirements_by_module, source_map};
use crate::commands::providers_lock::target_platforms;
use crate::diag_output::{
    print_cli_config_problems, print_diags, say, PRODUCT_COMMAND, PRODUCT_TITLE,
};
use crate::workdir::{load_locks, registry_config};
use serde_json::{Map, Value as Json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use terrace_addrs::Provider;
use terrace_config::loader::{load_config, LoadOptions};
use terrace_getproviders::auth::package_matches_any_hash;
use terrace_getproviders::cliconfig::{self, CliEnv};
use terrace_getproviders::goerr::{errno_text, path_error};
use terrace_getproviders::hash::h1_zip;
use terrace_getproviders::lockfile::Locks;
use terrace_getproviders::registry::{Http, RegistrySource};
use terrace_getproviders::source::{
    packed_file_path, search_local_directory, PackageLocation, Platform, Source,
};
use terrace_getproviders::{Version, VersionConstraints};
use terrace_syntax::render::SourceMap;
use terrace_syntax::{Diagnostic, Diagnostics};

fn usage() -> String {
    format!(
        "
Usage: {p} [global options] providers mirror [options] <target-dir>

  Populates a local directory with copies of the provider plugins needed for
  the current configuration, so that the directory can be used either directly
  as a filesystem mirror or as the basis for a network mirror and thus obtain
  those providers without access to their origin registries in future.

  The mirror directory will contain JSON index files that can be published
  along with the mirrored packages on a static HTTP file server to produce
  a network mirror. Those index files will be ignored if the directory is
  used instead as a local filesystem mirror.

Options:

  -platform=os_arch  Choose which target platform to build a mirror for.
                     By default {t} will obtain plugin packages
                     suitable for the platform where you run this command.
                     Use this flag multiple times to include packages for
                     multiple target systems.

                     Target names consist of an operating system and a CPU
                     architecture. For example, \"linux_amd64\" selects the
                     Linux operating system running on an AMD64 or x86_64
                     CPU. Each provider is available only for a limited
                     set of target platforms.

  -lock-file=false  Ignore the provider lock file when fetching providers.
                    By default the mirror command will use the version info
                    in the lock file if the configuration directory has been
                    previously initialized.
",
        p = PRODUCT_COMMAND,
        t = PRODUCT_TITLE
    )
}

/// `terrace providers mirror [options] DIR`.
pub fn run(argv: &[String]) -> i32 {
    let env = CliEnv::from_process();
    let (cli, cli_diags) = cliconfig::load(&env);
    print_cli_config_problems(&cli_diags);
    let (flags, positional) = match parse_go_flags(argv, &["lock-file", "no-color"], &["platform"])
    {
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
    let mut use_lock_file = true;
    let mut platform_args: Vec<String> = Vec::new();
    for (name, value) in flags {
        match name.as_str() {
            "platform" => platform_args.push(value),
            "lock-file" => use_lock_file = value == "true",
            "no-color" => color = color && value != "true",
            _ => {}
        }
    }
    let [output_dir] = positional.as_slice() else {
        print_diags(
            &[Diagnostic::error(
                "No output directory specified",
                "The providers mirror command requires an output directory as a command-line argument.",
            )],
            SourceMap::new(),
            color,
        );
        return 1;
    };
    let output_dir = PathBuf::from(output_dir);

    let (platforms, mut diags) = target_platforms(&platform_args);

    let (config, config_diags) = load_config(Path::new("."), &LoadOptions::default());
    diags.extend(config_diags);
    let (reqs_tree, more) = requirements_by_module(&config);
    diags.extend(more);
    let reqs = reqs_tree.merged();
    let locks = if use_lock_file {
        match load_locks() {
            Ok(l) => l,
            Err(d) => {
                diags.extend(d);
                Locks::new()
            }
        }
    } else {
        Locks::new()
    };
    let registry = match registry_config(&cli, &env) {
        Ok(r) => Some(r),
        Err(d) => {
            diags.extend(d);
            None
        }
    };
    let Some(registry) = registry.filter(|_| !diags.iter().any(Diagnostic::is_error)) else {
        print_diags(&diags, source_map(&config), color);
        return 1;
    };
    if !locks.is_empty() {
        let errors =
            crate::commands::providers_schema::dependency_selection_errors(&reqs, &locks, |_| {
                false
            });
        if !errors.is_empty() {
            // Go's rendering of the list of errors, as terraform prints it.
            diags.push(Diagnostic::error(
                "Inconsistent dependency lock file",
                format!(
                    "To update the locked dependency selections to match a changed configuration, run:\n  {PRODUCT_COMMAND} init -upgrade\n got:[{}]",
                    errors.join(" ")
                ),
            ));
            print_diags(&diags, source_map(&config), color);
            return 1;
        }
    }

    let source = RegistrySource::new(registry.clone());
    let http = Http::new(&registry.http);
    for (provider, constraints) in &reqs {
        if provider.is_builtin() {
            say(&format!(
                "- Skipping {} because it is built in to {PRODUCT_TITLE} CLI",
                provider.for_display()
            ));
            continue;
        }
        say(&format!("- Mirroring {}...", provider.for_display()));
        let Some(version) = select_version(&source, provider, constraints, &locks, &mut diags)
        else {
            continue;
        };
        for platform in &platforms {
            mirror_package(
                &source,
                &http,
                &output_dir,
                provider,
                &version,
                platform,
                &locks,
                &mut diags,
            );
        }
    }
    write_indexes(&output_dir, &mut diags);
    print_diags(&diags, source_map(&config), color);
    if diags.iter().any(Diagnostic::is_error) {
        1
    } else {
        0
    }
}

/// The version to mirror, said as terraform says it; `None` (with the
/// error recorded) when the registry has none that fits.
fn select_version(
    source: &RegistrySource,
    provider: &Provider,
    constraints: &VersionConstraints,
    locks: &Locks,
    diags: &mut Diagnostics,
) -> Option<Version> {
    let not_available = |message: String| {
        Diagnostic::error(
            "Provider not available",
            format!("Failed to download {provider} from its origin registry: {message}."),
        )
    };
    let newest = match source.available_versions(provider) {
        Ok((available, _warnings)) => available
            .into_iter()
            .filter(|v| constraints.allows(v))
            .max_by(|a, b| a.precedence_cmp(b)),
        Err(e) => {
            diags.push(not_available(e.to_string()));
            return None;
        }
    };
    let Some(newest) = newest else {
        diags.push(not_available(format!(
            "no releases match the given constraints {constraints}"
        )));
        return None;
    };
    if !locks.is_empty() {
        let Some(lock) = locks.provider(provider) else {
            diags.push(Diagnostic::error(
                "Provider not found in lockfile",
                format!("Failed to find {provider} in the lock file"),
            ));
            return None;
        };
        say(&format!(
            "  - Selected v{} to match dependency lock file",
            lock.version
        ));
        return Some(lock.version.clone());
    }
    if constraints.is_empty() {
        say(&format!("  - Selected v{newest} with no constraints"));
    } else {
        say(&format!(
            "  - Selected v{newest} to meet constraints {constraints}"
        ));
    }
    Some(newest)
}

/// Downloads one package beside its final name, checks it, and only then
/// gives it that name, so a mirror client never sees an unchecked archive.
#[allow(clippy::too_many_arguments)]
fn mirror_package(
    source: &RegistrySource,
    http: &Http,
    output_dir: &Path,
    provider: &Provider,
    version: &Version,
    platform: &Platform,
    locks: &Locks,
    diags: &mut Diagnostics,
) {
    say(&format!("  - Downloading package for {platform}..."));
    let failed = |summary: &str, message: String| {
        Diagnostic::error(
            summary,
            format!("Failed to download {provider} v{version} for {platform}: {message}."),
        )
    };
    let meta = match source.package_meta(provider, version, platform) {
        Ok(meta) => meta,
        Err(e) => {
            diags.push(failed("Provider release not available", e.to_string()));
            return;
        }
    };
    let PackageLocation::HttpArchive(url) = &meta.location else {
        diags.push(failed(
            "Provider release not available",
            format!(
                "{PRODUCT_TITLE}'s provider registry client returned an unexpected location {}",
                meta.location
            ),
        ));
        return;
    };
    let target = packed_file_path(output_dir, provider, version, platform);
    let file_name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let staging = target.with_file_name(format!(".{file_name}"));
    if let Some(parent) = target.parent() {
        if let Err(e) = std::fs::create_dir_all(parent) {
            diags.push(failed(
                "Cannot download provider release",
                path_error("mkdir", parent, &e),
            ));
            return;
        }
    }
    if let Err(e) = http.download(url, &staging) {
        let _ = std::fs::remove_file(&staging);
        diags.push(failed("Cannot download provider release", e));
        return;
    }
    if let Some(auth) = &meta.authentication {
        match auth.authenticate(&staging) {
            Ok(result) => say(&format!("  - Package authenticated: {}", result.describe())),
            Err(e) => {
                let _ = std::fs::remove_file(&staging);
                diags.push(Diagnostic::error(
                    "Invalid provider package",
                    format!("Failed to authenticate {provider} v{version} for {platform}: {e}."),
                ));
                return;
            }
        }
    }
    if let Some(lock) = locks.provider(provider).filter(|l| !l.hashes().is_empty()) {
        let location = PackageLocation::LocalArchive(staging.clone());
        let matched = package_matches_any_hash(&location, lock.hashes());
        if !matches!(matched, Ok(true)) {
            let _ = std::fs::remove_file(&staging);
            let why = match matched {
                Err(e) => format!("failed to calculate its checksum: {e}"),
                Ok(_) => format!(
                    "the current package for {provider} {version} doesn't match any of the checksums previously recorded in the dependency lock file"
                ),
            };
            diags.push(Diagnostic::error(
                "Invalid provider package",
                format!("Failed to authenticate {provider} v{version} for {platform}: {why}."),
            ));
            return;
        }
    }
    let _ = std::fs::remove_file(&target);
    if let Err(e) = std::fs::rename(&staging, &target) {
        let _ = std::fs::remove_file(&staging);
        diags.push(Diagnostic::error(
            "Cannot download provider release",
            format!(
                "Failed to place {provider} package into mirror directory: rename {} {}: {}.",
                staging.display(),
                target.display(),
                errno_text(&e)
            ),
        ));
    }
}

/// The network mirror indexes for every archive under `output_dir`, those
/// already there included: per provider, `index.json` and one
/// `VERSION.json` per version, as Go's indented encoder writes them.
fn write_indexes(output_dir: &Path, diags: &mut Diagnostics) {
    let available = match search_local_directory(output_dir) {
        Ok(found) => found,
        Err(e) => {
            diags.push(Diagnostic::error(
                "Failed to update indexes",
                format!("Could not scan the output directory to get package metadata for the JSON indexes: {e}."),
            ));
            return;
        }
    };
    for (provider, metas) in available {
        let Some(first) = metas.first() else {
            continue;
        };
        let index_dir = match packed_file_path(
            output_dir,
            &provider,
            &first.version,
            &first.target_platform,
        )
        .parent()
        {
            Some(dir) => dir.to_path_buf(),
            None => continue,
        };
        // Keyed by the text Go sorts map keys by.
        let mut versions: BTreeMap<String, ()> = BTreeMap::new();
        let mut archives: BTreeMap<String, BTreeMap<String, Json>> = BTreeMap::new();
        for meta in &metas {
            let PackageLocation::LocalArchive(archive) = &meta.location else {
                continue;
            };
            let hash = match h1_zip(archive) {
                Ok(h) => h,
                Err(e) => {
                    diags.push(Diagnostic::error(
                        "Failed to update indexes",
                        format!(
                            "Failed to determine a hash value for {provider} v{} on {}: {e}.",
                            meta.version, meta.target_platform
                        ),
                    ));
                    continue;
                }
            };
            let file_name = archive
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let mut entry = Map::new();
            entry.insert(
                "hashes".into(),
                Json::Array(vec![Json::String(hash.as_str().to_string())]),
            );
            entry.insert("url".into(), Json::String(file_name));
            versions.insert(meta.version.to_string(), ());
            archives
                .entry(meta.version.to_string())
                .or_default()
                .insert(meta.target_platform.to_string(), Json::Object(entry));
        }
        let main_index = Json::Object(
            [(
                "versions".to_string(),
                Json::Object(
                    versions
                        .into_keys()
                        .map(|v| (v, Json::Object(Map::new())))
                        .collect(),
                ),
            )]
            .into_iter()
            .collect(),
        );
        if let Err(e) = write_index(&index_dir.join("index.json"), &main_index) {
            diags.push(Diagnostic::error(
                "Failed to update indexes",
                format!("Failed to write an updated JSON index for {provider}: {e}."),
            ));
        }
        for (version, by_platform) in archives {
            let doc = Json::Object(
                [(
                    "archives".to_string(),
                    Json::Object(by_platform.into_iter().collect()),
                )]
                .into_iter()
                .collect(),
            );
            if let Err(e) = write_index(&index_dir.join(format!("{version}.json")), &doc) {
                diags.push(Diagnostic::error(
                    "Failed to update indexes",
                    format!(
                        "Failed to write an updated JSON index for {provider} v{version}: {e}."
                    ),
                ));
            }
        }
    }
}

/// Writes an index as Go's `json.MarshalIndent(v, "", "  ")` does, with no
/// newline after it, readable by all (mode 0644 before the umask).
fn write_index(path: &Path, doc: &Json) -> Result<(), String> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let text = crate::jsondiag::to_go_json(doc);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o644)
        .open(path)
        .map_err(|e| path_error("open", path, &e))?;
    file.write_all(text.as_bytes())
        .map_err(|e| path_error("write", path, &e))
}
