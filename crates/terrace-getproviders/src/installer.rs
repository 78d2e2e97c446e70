//! Installing providers into `.terraform/providers` (and the shared plugin
//! cache), laid out as Terraform lays them out:
//! `HOSTNAME/NAMESPACE/TYPE/VERSION/OS_ARCH/`, which is a symbolic link to
//! the package directory when the package came unpacked from a filesystem
//! mirror (or from the plugin cache), and an extracted copy otherwise.
//!
//! Every package is installed atomically: it is linked or extracted under a
//! temporary name next to its final place, checked, and renamed into
//! place; on any failure the temporary entry and any directories created
//! for it are removed, so a failed `init` leaves nothing half-installed.
//!
//! [`Installer::ensure_provider_versions`] is OpenTofu's provider installer
//! with Terraform's messages: it selects the newest version allowed by
//! every module's constraints (or keeps the lock file's selection unless
//! upgrading), installs it, checks it against the lock file's checksums,
//! and returns the updated locks.

use crate::auth::{package_matches_any_hash, PackageAuthenticationResult};
use crate::constraints::VersionConstraints;
use crate::fsutil::{create_dirs, remove_empty_dirs, temp_sibling};
use crate::goerr::path_error;
use crate::hash::{h1_dir, Hash, HashScheme};
use crate::lockfile::{Locks, ProviderLock};
use crate::source::{
    unpacked_directory_path, PackageLocation, PackageMeta, Platform, Source, SourceError,
};
use crate::version::{sort_versions, Version};
use crate::zip::ZipArchive;
use crate::PRODUCT;
use std::collections::BTreeMap;
use std::fmt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use terrace_addrs::Provider;
use terrace_syntax::Diagnostic;

/// Each provider's merged version constraints (empty: any version).
pub type Requirements = BTreeMap<Provider, VersionConstraints>;

/// Merges `other` into `reqs`: a provider's constraints accumulate.
pub fn merge_requirements(reqs: &mut Requirements, other: &Requirements) {
    for (p, c) in other {
        reqs.entry(p.clone()).or_default().merge(c);
    }
}

const CHECKSUM_DOCS: &str =
    "https://developer.hashicorp.com/terraform/language/files/dependency-lock#checksum-verification";

/// Downloads packages that sources offer by URL.
pub trait PackageFetcher: Send + Sync {
    /// Writes the content at `url` to the file `dest` (which exists).
    fn fetch(&self, url: &str, dest: &Path) -> Result<(), String>;
}

/// A provider package already in a cache directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CachedProvider {
    pub provider: Provider,
    pub version: Version,
    pub package_dir: PathBuf,
}

impl CachedProvider {
    /// The package's `h1:` hash.
    pub fn hash(&self) -> Result<Hash, String> {
        h1_dir(&self.package_dir)
    }

    pub fn matches_any_hash(&self, allowed: &[Hash]) -> Result<bool, String> {
        package_matches_any_hash(
            &PackageLocation::LocalDir(self.package_dir.clone()),
            allowed,
        )
    }

    /// The plugin executable: the first file named
    /// `terraform-provider-TYPE` optionally followed by `_...` or `....`.
    pub fn executable_file(&self) -> Result<PathBuf, String> {
        let entries = std::fs::read_dir(&self.package_dir).map_err(|e| {
            format!(
                "could not read package directory: {}",
                path_error("open", &self.package_dir, &e)
            )
        })?;
        let want = format!("terraform-provider-{}", self.provider.type_name());
        let mut names: Vec<(String, bool)> = entries
            .flatten()
            .map(|e| {
                let is_dir = e.file_type().map(|t| t.is_dir()).unwrap_or(false);
                (e.file_name().to_string_lossy().into_owned(), is_dir)
            })
            .collect();
        names.sort();
        for (name, is_dir) in names {
            if is_dir {
                continue;
            }
            if let Some(rest) = name.strip_prefix(&want) {
                if rest.is_empty() || rest.starts_with('_') || rest.starts_with('.') {
                    return Ok(self.package_dir.join(name));
                }
            }
        }
        Err(format!(
            "could not find executable file starting with {want}"
        ))
    }
}

/// A directory of installed packages (`.terraform/providers`, or the
/// shared plugin cache) for one target platform.
#[derive(Clone, Debug)]
pub struct ProviderCacheDir {
    base: PathBuf,
    platform: Platform,
}

impl ProviderCacheDir {
    pub fn new(base: impl Into<PathBuf>) -> ProviderCacheDir {
        ProviderCacheDir::with_platform(base, Platform::current())
    }

    pub fn with_platform(base: impl Into<PathBuf>, platform: Platform) -> ProviderCacheDir {
        ProviderCacheDir {
            base: base.into(),
            platform,
        }
    }

    pub fn base_path(&self) -> &Path {
        &self.base
    }

    pub fn platform(&self) -> &Platform {
        &self.platform
    }

    /// The installed package of `version`, if its directory exists.
    pub fn provider_version(
        &self,
        provider: &Provider,
        version: &Version,
    ) -> Option<CachedProvider> {
        let dir = unpacked_directory_path(&self.base, provider, version, &self.platform);
        dir.is_dir().then(|| CachedProvider {
            provider: provider.clone(),
            version: version.clone(),
            package_dir: dir,
        })
    }

    /// Installs one package, checking it against `allowed_hashes` (the lock
    /// file's, when it has any for this version) and the source's own
    /// authentication.
    pub fn install_package(
        &self,
        meta: &PackageMeta,
        allowed_hashes: &[Hash],
        fetcher: Option<&dyn PackageFetcher>,
    ) -> Result<Option<PackageAuthenticationResult>, String> {
        if meta.target_platform != self.platform {
            return Err(format!(
                "can't install {} package into cache directory expecting {}",
                meta.target_platform, self.platform
            ));
        }
        let target =
            unpacked_directory_path(&self.base, &meta.provider, &meta.version, &self.platform);
        match &meta.location {
            PackageLocation::LocalDir(dir) => {
                install_from_local_dir(meta, dir, &target, allowed_hashes).map(|()| None)
            }
            PackageLocation::LocalArchive(zip) => {
                install_from_archive(meta, zip, &target, allowed_hashes)
            }
            PackageLocation::HttpArchive(url) => {
                let Some(fetcher) = fetcher else {
                    return Err(format!("cannot download {url}: no HTTP client configured"));
                };
                let parent = target.parent().unwrap_or(&self.base).to_path_buf();
                let created = create_dirs(&parent)?;
                let tmp = temp_sibling(&target, "download");
                let result = (|| {
                    std::fs::File::create(&tmp).map_err(|e| {
                        format!(
                            "failed to open temporary file to download from {url}: {}",
                            path_error("open", &tmp, &e)
                        )
                    })?;
                    fetcher.fetch(url, &tmp)?;
                    install_from_archive(meta, &tmp, &target, allowed_hashes)
                })();
                let _ = std::fs::remove_file(&tmp);
                if result.is_err() {
                    remove_empty_dirs(&created);
                }
                result
            }
        }
    }

    /// Links a package from another cache directory (the shared plugin
    /// cache) into this one.
    pub fn link_from_other_cache(
        &self,
        entry: &CachedProvider,
        allowed_hashes: &[Hash],
    ) -> Result<(), String> {
        if !allowed_hashes.is_empty() {
            match entry.matches_any_hash(allowed_hashes) {
                Err(e) => {
                    return Err(format!(
                        "failed to calculate checksum for cached copy of {} {} in {}: {e}",
                        entry.provider,
                        entry.version,
                        self.base.display()
                    ))
                }
                Ok(false) => {
                    return Err(format!(
                        "the provider cache at {} has a copy of {} {} that doesn't match any of the checksums recorded in the dependency lock file",
                        self.base.display(),
                        entry.provider,
                        entry.version
                    ))
                }
                Ok(true) => {}
            }
        }
        let target =
            unpacked_directory_path(&self.base, &entry.provider, &entry.version, &self.platform);
        let meta = PackageMeta {
            provider: entry.provider.clone(),
            version: entry.version.clone(),
            protocol_versions: Vec::new(),
            target_platform: self.platform.clone(),
            filename: crate::source::packed_file_path(
                Path::new(""),
                &entry.provider,
                &entry.version,
                &self.platform,
            )
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
            location: PackageLocation::LocalDir(entry.package_dir.clone()),
            authentication: None,
        };
        install_from_local_dir(&meta, &entry.package_dir, &target, &[])
    }
}

fn absolute(p: &Path) -> Result<PathBuf, String> {
    if p.is_absolute() {
        return Ok(p.to_path_buf());
    }
    std::env::current_dir().map(|cwd| cwd.join(p)).map_err(|e| {
        format!(
            "failed to make path {} absolute: {}",
            p.display(),
            crate::goerr::errno_text(&e)
        )
    })
}

/// Puts `new` (a finished temporary entry) in place of `target`, keeping
/// whatever was there until the rename succeeded.
fn replace_with(new: &Path, target: &Path) -> Result<(), String> {
    let old = temp_sibling(target, "old");
    let had_old = std::fs::symlink_metadata(target).is_ok();
    if had_old {
        std::fs::rename(target, &old).map_err(|e| {
            format!(
                "failed to remove existing {}: {}",
                target.display(),
                crate::goerr::errno_text(&e)
            )
        })?;
    }
    if let Err(e) = std::fs::rename(new, target) {
        if had_old {
            let _ = std::fs::rename(&old, target);
        }
        return Err(format!(
            "rename {} {}: {}",
            new.display(),
            target.display(),
            crate::goerr::errno_text(&e)
        ));
    }
    if had_old {
        remove_entry(&old);
    }
    Ok(())
}

/// Whether two paths name the same directory entry (device and inode of
/// the entries themselves, a final link not followed); `false` when
/// either is missing.
fn same_entry(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    if a == b {
        return true;
    }
    match (std::fs::symlink_metadata(a), std::fs::symlink_metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Removes a file, link or directory tree (a link's target is untouched).
fn remove_entry(p: &Path) {
    match std::fs::symlink_metadata(p) {
        Ok(m) if m.is_dir() => {
            let _ = std::fs::remove_dir_all(p);
        }
        Ok(_) => {
            let _ = std::fs::remove_file(p);
        }
        Err(_) => {}
    }
}

fn install_from_local_dir(
    meta: &PackageMeta,
    source_dir: &Path,
    target: &Path,
    allowed_hashes: &[Hash],
) -> Result<(), String> {
    let abs_target = absolute(target)?;
    let abs_source = absolute(source_dir)?;
    // The same directory entry, not the same place a link leads to: a
    // cache entry that is a link to this very mirror directory is
    // replaced by a new link, as terraform replaces it.
    if same_entry(&abs_target, &abs_source) {
        return Err(format!(
            "cannot install existing provider directory {} to itself",
            target.display()
        ));
    }
    if allowed_hashes.iter().any(|h| h.scheme() != HashScheme::Zip) {
        match package_matches_any_hash(&PackageLocation::LocalDir(source_dir.to_path_buf()), allowed_hashes) {
            Err(e) => {
                return Err(format!(
                    "failed to calculate checksum for {} {} package at {}: {e}",
                    meta.provider, meta.version, meta.location
                ))
            }
            Ok(false) => {
                return Err(format!(
                    "the local package for {} {} doesn't match any of the checksums previously recorded in the dependency lock file (this might be because the available checksums are for packages targeting different platforms); for more information: {CHECKSUM_DOCS}",
                    meta.provider, meta.version
                ))
            }
            Ok(true) => {}
        }
    }
    let parent = abs_target.parent().ok_or_else(|| {
        format!(
            "failed to create parent directories leading to {}",
            target.display()
        )
    })?;
    let created = create_dirs(parent).map_err(|e| {
        format!(
            "failed to create parent directories leading to {}: {e}",
            target.display()
        )
    })?;
    let tmp = temp_sibling(&abs_target, "tmp");
    let staged = match std::os::unix::fs::symlink(&abs_source, &tmp) {
        Ok(()) => Ok(()),
        // Where links cannot be made, a copy will do.
        Err(_) => copy_dir(&abs_source, &tmp).map_err(|e| {
            format!(
                "failed to either symlink or copy {} to {}: {e}",
                abs_source.display(),
                abs_target.display()
            )
        }),
    };
    let result = staged.and_then(|()| replace_with(&tmp, &abs_target));
    if result.is_err() {
        remove_entry(&tmp);
        remove_empty_dirs(&created);
    }
    result
}

fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::create_dir(to).map_err(|e| path_error("mkdir", to, &e))?;
    let entries = std::fs::read_dir(from).map_err(|e| path_error("open", from, &e))?;
    for entry in entries {
        let entry = entry.map_err(|e| path_error("readdirent", from, &e))?;
        let src = entry.path();
        let dst = to.join(entry.file_name());
        let meta = std::fs::metadata(&src).map_err(|e| path_error("stat", &src, &e))?;
        if meta.is_dir() {
            copy_dir(&src, &dst)?;
        } else {
            std::fs::copy(&src, &dst).map_err(|e| path_error("open", &dst, &e))?;
        }
    }
    Ok(())
}

fn install_from_archive(
    meta: &PackageMeta,
    archive: &Path,
    target: &Path,
    allowed_hashes: &[Hash],
) -> Result<Option<PackageAuthenticationResult>, String> {
    let auth = match &meta.authentication {
        Some(a) => Some(a.authenticate(archive)?),
        None => None,
    };
    if !allowed_hashes.is_empty() {
        match package_matches_any_hash(&PackageLocation::LocalArchive(archive.to_path_buf()), allowed_hashes) {
            Err(e) => {
                return Err(format!(
                    "failed to calculate checksum for {} {} package at {}: {e}",
                    meta.provider, meta.version, meta.location
                ))
            }
            Ok(false) => {
                return Err(format!(
                    "the current package for {} {} doesn't match any of the checksums previously recorded in the dependency lock file; for more information: {CHECKSUM_DOCS}",
                    meta.provider, meta.version
                ))
            }
            Ok(true) => {}
        }
    }
    if std::fs::symlink_metadata(target).is_ok() {
        let existing = h1_dir(target);
        let empty = std::fs::read_dir(target)
            .map(|mut d| d.next().is_none())
            .unwrap_or(false);
        if !empty {
            let incoming = crate::hash::h1_zip(archive);
            return match (incoming, existing) {
                (Err(e), _) => Err(format!(
                    "failed to calculate checksum for temporary copy of provider package at {}: {e}",
                    meta.location
                )),
                (_, Err(e)) => Err(format!(
                    "failed to calculate checksum for existing cached provider package at {}: {e}",
                    target.display()
                )),
                (Ok(a), Ok(b)) if a != b => Err(format!(
                    "existing cached package at {} does not match the content of the downloaded package; does it contain local modifications?",
                    target.display()
                )),
                _ => Ok(auth),
            };
        }
    }
    let parent = target.parent().ok_or_else(|| {
        format!(
            "failed to create parent directories leading to {}",
            target.display()
        )
    })?;
    let created = create_dirs(parent)?;
    let tmp = temp_sibling(target, "tmp");
    let result = extract_zip(archive, &tmp).and_then(|()| replace_with(&tmp, target));
    if result.is_err() {
        remove_entry(&tmp);
        remove_empty_dirs(&created);
    }
    result.map(|()| auth)
}

/// go-getter's zip decompression into a new directory `dst`: entries with
/// a `..` path element are refused, directories made 0755, files given
/// their archived permission bits.
fn extract_zip(src: &Path, dst: &Path) -> Result<(), String> {
    let mut archive = ZipArchive::open(src).map_err(|e| e.0)?;
    std::fs::create_dir(dst).map_err(|e| path_error("mkdir", dst, &e))?;
    if archive.entries.is_empty() {
        return Err(format!("empty archive: {}", src.display()));
    }
    let entries = archive.entries.clone();
    for entry in &entries {
        let name = entry.name_lossy();
        if name.split(['/', '\\']).any(|part| part == "..") {
            return Err(format!("entry contains '..': {name}"));
        }
        let rel: PathBuf = name.split('/').filter(|p| !p.is_empty()).collect();
        let path = dst.join(&rel);
        if entry.is_dir() {
            std::fs::create_dir_all(&path).map_err(|e| path_error("mkdir", &path, &e))?;
            continue;
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| path_error("mkdir", parent, &e))?;
        }
        let mut out = std::fs::File::create(&path).map_err(|e| path_error("open", &path, &e))?;
        archive.copy_entry(entry, &mut out).map_err(|e| e.0)?;
        drop(out);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(entry.permissions()))
            .map_err(|e| path_error("chmod", &path, &e))?;
    }
    Ok(())
}

/// How `ensure_provider_versions` treats providers already selected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InstallMode {
    /// Keep the lock file's selections; install only what is missing.
    NewProvidersOnly,
    /// As `NewProvidersOnly`, but reinstall without checking recorded
    /// checksums (`providers lock`'s refresh).
    NewProvidersForce,
    /// `init -upgrade`: select again within the constraints.
    Upgrade,
}

/// Why a provider's version could not be chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum QueryError {
    Source(SourceError),
    LockedMismatch {
        version: Version,
        constraints: String,
    },
    LockedUnavailable(Version),
    NoMatch(String),
}

/// One provider's failure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProviderError {
    BuiltIn(String),
    Query(QueryError),
    Fetch {
        version: Version,
        error: Box<FetchError>,
    },
    LinkFromCache {
        version: Version,
        message: String,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FetchError {
    Source(SourceError),
    Other(String),
}

impl fmt::Display for FetchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FetchError::Source(e) => write!(f, "{e}"),
            FetchError::Other(m) => f.write_str(m),
        }
    }
}

impl ProviderError {
    /// The error as the installer's own message says it.
    pub fn message(&self, provider: &Provider) -> String {
        match self {
            ProviderError::BuiltIn(m) => m.clone(),
            ProviderError::Query(QueryError::Source(e)) => e.to_string(),
            ProviderError::Query(QueryError::LockedMismatch { version, constraints }) => format!(
                "locked provider {provider} {version} does not match configured version constraint {constraints}; must use {PRODUCT} init -upgrade to allow selection of new versions"
            ),
            ProviderError::Query(QueryError::LockedUnavailable(v)) => {
                format!("the previously-selected version {v} is no longer available")
            }
            ProviderError::Query(QueryError::NoMatch(c)) => {
                format!("no available releases match the given constraints {c}")
            }
            ProviderError::Fetch { error, .. } => error.to_string(),
            ProviderError::LinkFromCache { message, .. } => message.clone(),
        }
    }

    /// The diagnostic `init` shows for this failure, in Terraform's words.
    pub fn to_diagnostic(&self, provider: &Provider) -> Diagnostic {
        let disp = provider.for_display();
        let err = self.message(provider);
        let providers_cmd = format!(
            "To see which modules are currently depending on {disp} and what versions are specified, run the following command:\n    {PRODUCT} providers"
        );
        match self {
            ProviderError::BuiltIn(_) => Diagnostic::error(
                "Invalid dependency on built-in provider",
                format!("Cannot use {disp}: {err}."),
            ),
            ProviderError::Query(QueryError::Source(SourceError::ProviderNotFound { sources, .. })) => {
                let list: Vec<String> = sources.iter().map(|s| format!("  - {s}")).collect();
                Diagnostic::error(
                    "Failed to query available provider packages",
                    format!(
                        "Could not retrieve the list of available versions for provider {disp}: {err}\n\n{}",
                        list.join("\n")
                    ),
                )
            }
            ProviderError::Query(QueryError::Source(SourceError::RegistryProviderNotKnown { .. })) => {
                Diagnostic::error(
                    "Failed to query available provider packages",
                    format!(
                        "Could not retrieve the list of available versions for provider {disp}: {err}\n\nAll modules should specify their required_providers so that external consumers will get the correct providers when using a module. To see which modules are currently depending on {disp}, run the following command:\n    {PRODUCT} providers"
                    ),
                )
            }
            ProviderError::Query(QueryError::Source(SourceError::HostNoProviders {
                hostname,
                has_other_version,
            })) => {
                let host = hostname.for_display();
                let detail = if host == "github.com" && !has_other_version {
                    format!(
                        "The given source address {} specifies a GitHub repository rather than a {PRODUCT} provider. Refer to the documentation of the provider to find the correct source address to use.",
                        terrace_value::gostr::quote(&provider.to_string())
                    )
                } else if *has_other_version {
                    format!(
                        "The host {} given in provider source address {} does not offer a {PRODUCT} provider registry that is compatible with this {PRODUCT} version, but it may be compatible with a different {PRODUCT} version.",
                        terrace_value::gostr::quote(&host),
                        terrace_value::gostr::quote(&provider.to_string())
                    )
                } else {
                    format!(
                        "The host {} given in provider source address {} does not offer a {PRODUCT} provider registry.",
                        terrace_value::gostr::quote(&host),
                        terrace_value::gostr::quote(&provider.to_string())
                    )
                };
                Diagnostic::error("Invalid provider registry host", detail)
            }
            ProviderError::Query(_) => Diagnostic::error(
                "Failed to query available provider packages",
                format!(
                    "Could not retrieve the list of available versions for provider {disp}: {err}\n\n{providers_cmd}"
                ),
            ),
            ProviderError::Fetch { version, error } => match &**error {
                FetchError::Source(SourceError::PlatformNotSupported(e)) => {
                    let (p, platform) = (&e.provider, &e.platform);
                    Diagnostic::error(
                        "Incompatible provider version",
                        match &e.mirror_url {
                            Some(url) => format!(
                                "Your chosen provider mirror at {url} does not have a {p} v{version} package available for your current platform, {platform}.\n\nProvider releases are separate from {PRODUCT} CLI releases, so this provider might not support your current platform. Alternatively, the mirror itself might have only a subset of the plugin packages available in the origin registry, at {}.",
                                p.hostname().for_display()
                            ),
                            None => format!(
                                "Provider {p} v{version} does not have a package available for your current platform, {platform}.\n\nProvider releases are separate from {PRODUCT} CLI releases, so not all providers are available for all platforms. Other versions of this provider may have different platforms supported."
                            ),
                        },
                    )
                }
                _ => Diagnostic::error(
                    "Failed to install provider",
                    format!("Error while installing {disp} v{version}: {err}"),
                ),
            },
            ProviderError::LinkFromCache { version, .. } => Diagnostic::error(
                "Failed to install provider from shared cache",
                format!("Error while importing {disp} v{version} from the shared cache directory: {err}."),
            ),
        }
    }
}

/// Progress notifications, for `init`'s output. Every method does nothing
/// unless overridden.
#[allow(unused_variables)]
pub trait InstallerEvents {
    fn pending_providers(&mut self, reqs: &Requirements) {}
    fn builtin_provider_available(&mut self, provider: &Provider) {}
    /// Before a version is chosen; `locked` when the lock file's selection
    /// is being confirmed.
    fn query_packages_begin(
        &mut self,
        provider: &Provider,
        constraints: &VersionConstraints,
        locked: bool,
    ) {
    }
    fn query_packages_success(&mut self, provider: &Provider, version: &Version) {}
    fn query_packages_warning(&mut self, provider: &Provider, warnings: &[String]) {}
    /// The target directory already has the version the lock file
    /// selects, with a matching checksum.
    fn provider_already_installed(&mut self, provider: &Provider, version: &Version) {}
    fn fetch_package_begin(
        &mut self,
        provider: &Provider,
        version: &Version,
        location: &PackageLocation,
        in_cache: bool,
    ) {
    }
    fn fetch_package_success(
        &mut self,
        provider: &Provider,
        version: &Version,
        dir: &Path,
        auth: Option<&PackageAuthenticationResult>,
    ) {
    }
    /// The shared cache already had the version and it is linked from
    /// there (not said after installing it into the cache).
    fn link_from_cache_begin(&mut self, provider: &Provider, version: &Version, cache_dir: &Path) {}
    /// The hashes that will be recorded: computed locally, covered by a
    /// signature, and recorded before.
    fn providers_lock_updated(
        &mut self,
        provider: &Provider,
        version: &Version,
        local: &[Hash],
        signed: &[Hash],
        prior: &[Hash],
    ) {
    }
    fn failure(&mut self, provider: &Provider, error: &ProviderError) {}
}

/// Events that are not wanted.
pub struct NoEvents;
impl InstallerEvents for NoEvents {}

/// The provider installer.
pub struct Installer {
    target: ProviderCacheDir,
    source: Box<dyn Source>,
    global_cache: Option<ProviderCacheDir>,
    global_cache_may_break_lock_file: bool,
    builtin_provider_types: Vec<String>,
    unmanaged: Vec<Provider>,
    fetcher: Option<Box<dyn PackageFetcher>>,
}

/// The versions a provider may be installed at.
enum Acceptable<'a> {
    Constraints(&'a VersionConstraints),
    Only(Version),
}

impl Acceptable<'_> {
    fn has(&self, v: &Version) -> bool {
        match self {
            Acceptable::Constraints(c) => c.allows(v),
            Acceptable::Only(only) => !v.is_unspecified() && v == only,
        }
    }
}

impl Installer {
    pub fn new(target: ProviderCacheDir, source: Box<dyn Source>) -> Installer {
        Installer {
            target,
            source,
            global_cache: None,
            global_cache_may_break_lock_file: false,
            builtin_provider_types: Vec::new(),
            unmanaged: Vec::new(),
            fetcher: None,
        }
    }

    /// The shared plugin cache (`plugin_cache_dir`): packages are
    /// installed there and linked into the target.
    pub fn set_global_cache_dir(&mut self, dir: ProviderCacheDir, may_break_lock_file: bool) {
        self.global_cache = Some(dir);
        self.global_cache_may_break_lock_file = may_break_lock_file;
    }

    /// The built-in provider types (`terraform.io/builtin/TYPE`).
    pub fn set_builtin_provider_types(&mut self, types: Vec<String>) {
        self.builtin_provider_types = types;
    }

    /// Providers whose processes are managed elsewhere (`TF_REATTACH_PROVIDERS`).
    pub fn set_unmanaged_providers(&mut self, providers: Vec<Provider>) {
        self.unmanaged = providers;
    }

    pub fn set_fetcher(&mut self, fetcher: Box<dyn PackageFetcher>) {
        self.fetcher = Some(fetcher);
    }

    pub fn source(&self) -> &dyn Source {
        self.source.as_ref()
    }

    /// Chooses, installs and locks every required provider. Returns the
    /// new locks (providers no longer required are dropped) and each
    /// failed provider's error; the locks are only safe to save when there
    /// are no errors.
    pub fn ensure_provider_versions(
        &self,
        locks: &Locks,
        reqs: &Requirements,
        mode: InstallMode,
        events: &mut dyn InstallerEvents,
    ) -> (Locks, BTreeMap<Provider, ProviderError>) {
        let mut locks = locks.clone();
        let mut errors: BTreeMap<Provider, ProviderError> = BTreeMap::new();
        events.pending_providers(reqs);

        let fail = |errors: &mut BTreeMap<Provider, ProviderError>,
                    events: &mut dyn InstallerEvents,
                    p: &Provider,
                    e: ProviderError| {
            events.failure(p, &e);
            errors.insert(p.clone(), e);
        };

        // Which providers might need a new version, and which versions.
        let mut might_need: Vec<(Provider, Acceptable<'_>, bool)> = Vec::new();
        for (provider, constraints) in reqs {
            if provider.is_builtin() {
                let valid = self
                    .builtin_provider_types
                    .iter()
                    .any(|t| t == provider.type_name());
                if !valid {
                    fail(
                        &mut errors,
                        events,
                        provider,
                        ProviderError::BuiltIn(format!(
                            "this {PRODUCT} release has no built-in provider named {}",
                            terrace_value::gostr::quote(provider.type_name())
                        )),
                    );
                } else if !constraints.is_empty() {
                    fail(
                        &mut errors,
                        events,
                        provider,
                        ProviderError::BuiltIn(
                            "built-in providers do not support explicit version constraints".into(),
                        ),
                    );
                } else {
                    events.builtin_provider_available(provider);
                }
                continue;
            }
            if self.unmanaged.contains(provider) {
                continue;
            }
            let mut acceptable = Acceptable::Constraints(constraints);
            let mut locked = false;
            if mode != InstallMode::Upgrade {
                if let Some(lock) = locks.provider(provider) {
                    if !constraints.allows(&lock.version) {
                        events.query_packages_begin(provider, constraints, true);
                        fail(
                            &mut errors,
                            events,
                            provider,
                            ProviderError::Query(QueryError::LockedMismatch {
                                version: lock.version.clone(),
                                constraints: constraints.to_string(),
                            }),
                        );
                        continue;
                    }
                    acceptable = Acceptable::Only(lock.version.clone());
                    locked = true;
                }
            }
            might_need.push((provider.clone(), acceptable, locked));
        }

        // Choose a version for each.
        let mut need: Vec<(Provider, Version)> = Vec::new();
        for (provider, acceptable, locked) in &might_need {
            let constraints = &reqs[provider];
            events.query_packages_begin(provider, constraints, *locked);
            if *locked {
                if let (Some(cache), Some(lock)) = (&self.global_cache, locks.provider(provider)) {
                    if cache.provider_version(provider, &lock.version).is_some() {
                        events.query_packages_success(provider, &lock.version);
                        need.push((provider.clone(), lock.version.clone()));
                        continue;
                    }
                }
            }
            let (mut available, warnings) = match self.source.available_versions(provider) {
                Ok(r) => r,
                Err(e) => {
                    fail(
                        &mut errors,
                        events,
                        provider,
                        ProviderError::Query(QueryError::Source(e)),
                    );
                    continue;
                }
            };
            if !warnings.is_empty() {
                events.query_packages_warning(provider, &warnings);
            }
            sort_versions(&mut available);
            match available.iter().rev().find(|v| acceptable.has(v)) {
                Some(v) => {
                    events.query_packages_success(provider, v);
                    need.push((provider.clone(), v.clone()));
                }
                None => {
                    let err = match (locked, locks.provider(provider)) {
                        (true, Some(lock)) => QueryError::LockedUnavailable(lock.version.clone()),
                        _ => QueryError::NoMatch(constraints.to_string()),
                    };
                    fail(&mut errors, events, provider, ProviderError::Query(err));
                }
            }
        }

        // Install each.
        for (provider, version) in need {
            let lock = locks.provider(&provider).cloned();
            match self.ensure_installed(lock.as_ref(), mode, &provider, &version, events) {
                // Already installed as the lock file says: Terraform leaves
                // that entry alone, even when the constraints have changed.
                Ok(None) => {}
                Ok(Some(hashes)) => {
                    if !hashes.is_empty() {
                        locks.set_provider(ProviderLock::new(
                            provider.clone(),
                            version,
                            reqs[&provider].clone(),
                            hashes,
                        ));
                    }
                }
                Err(e) => fail(&mut errors, events, &provider, e),
            }
        }

        let stale: Vec<Provider> = locks
            .providers()
            .map(|l| l.provider.clone())
            .filter(|p| !reqs.contains_key(p))
            .collect();
        for p in stale {
            locks.remove_provider(&p);
        }
        (locks, errors)
    }

    fn ensure_installed(
        &self,
        lock: Option<&ProviderLock>,
        mode: InstallMode,
        provider: &Provider,
        version: &Version,
        events: &mut dyn InstallerEvents,
    ) -> Result<Option<Vec<Hash>>, ProviderError> {
        let preferred: Vec<Hash> = match lock {
            Some(l) if l.version == *version => l.preferred_hashes(),
            _ => Vec::new(),
        };
        if let Some(installed) = self.target.provider_version(provider, version) {
            if !preferred.is_empty() && installed.matches_any_hash(&preferred).unwrap_or(false) {
                events.provider_already_installed(provider, version);
                return Ok(None);
            }
        }
        let (install_to, link_to) = match &self.global_cache {
            Some(cache) => (cache, Some(&self.target)),
            None => (&self.target, None),
        };
        let (hashes, fetched) =
            self.ensure_in_directory(lock, mode, provider, version, install_to, events)?;
        if let Some(link_to) = link_to {
            if !fetched {
                events.link_from_cache_begin(provider, version, install_to.base_path());
            }
            let link_err = |message: String| ProviderError::LinkFromCache {
                version: version.clone(),
                message,
            };
            let entry = install_to.provider_version(provider, version).ok_or_else(|| {
                link_err(format!(
                    "after installing {provider} it is still not detected in {}; this is a bug in {PRODUCT}",
                    install_to.base_path().display()
                ))
            })?;
            link_to
                .link_from_other_cache(&entry, &[])
                .map_err(link_err)?;
            let linked = link_to.provider_version(provider, version).ok_or_else(|| {
                link_err(format!(
                    "after installing {provider} it is still not detected in {}; this is a bug in {PRODUCT}",
                    link_to.base_path().display()
                ))
            })?;
            linked
                .executable_file()
                .map_err(|e| link_err(format!("provider binary not found: {e}")))?;
        }
        // Linked from the cache as the lock file says: its entry stays as
        // it is, as for a version already installed.
        if !fetched && !preferred.is_empty() {
            return Ok(None);
        }
        Ok(Some(hashes))
    }

    fn ensure_in_directory(
        &self,
        lock: Option<&ProviderLock>,
        mode: InstallMode,
        provider: &Provider,
        version: &Version,
        install_to: &ProviderCacheDir,
        events: &mut dyn InstallerEvents,
    ) -> Result<(Vec<Hash>, bool), ProviderError> {
        let fetch_err = |error: FetchError| ProviderError::Fetch {
            version: version.clone(),
            error: Box::new(error),
        };
        let preferred: Vec<Hash> = match lock {
            Some(l) if l.version == *version => l.preferred_hashes(),
            _ => Vec::new(),
        };
        let is_global = self
            .global_cache
            .as_ref()
            .is_some_and(|g| g.base_path() == install_to.base_path());
        if let Some(installed) = install_to.provider_version(provider, version) {
            // Found in the shared cache, the link from it is what is said.
            if !preferred.is_empty() && installed.matches_any_hash(&preferred).unwrap_or(false) {
                if !is_global {
                    events.provider_already_installed(provider, version);
                }
                return Ok((lock.map(|l| l.hashes().to_vec()).unwrap_or_default(), false));
            }
            if is_global
                && self.global_cache_may_break_lock_file
                && preferred.is_empty()
                && installed.executable_file().is_ok()
            {
                let h = installed
                    .hash()
                    .map_err(|e| fetch_err(FetchError::Other(e)))?;
                return Ok((vec![h], false));
            }
        }
        let meta = self
            .source
            .package_meta(provider, version, install_to.platform())
            .map_err(|e| fetch_err(FetchError::Source(e)))?;
        events.fetch_package_begin(provider, version, &meta.location, is_global);
        let allowed: &[Hash] = if mode == InstallMode::NewProvidersForce {
            &[]
        } else {
            &preferred
        };
        let auth = install_to
            .install_package(&meta, allowed, self.fetcher.as_deref())
            .map_err(|e| fetch_err(FetchError::Other(e)))?;
        let installed = install_to.provider_version(provider, version).ok_or_else(|| {
            fetch_err(FetchError::Other(format!(
                "after installing {provider} it is still not detected in {}; this is a bug in {PRODUCT}",
                install_to.base_path().display()
            )))
        })?;
        installed
            .executable_file()
            .map_err(|e| fetch_err(FetchError::Other(format!("provider binary not found: {e}"))))?;
        let new_hash = installed.hash().map_err(|e| {
            fetch_err(FetchError::Other(format!(
                "after installing {provider}, failed to compute a checksum for it: {e}"
            )))
        })?;
        let prior = preferred.clone();
        let mut local = auth.as_ref().map(|a| a.local_hashes()).unwrap_or_default();
        local.push(new_hash.clone());
        local.sort();
        local.dedup();
        let mut signed = auth.as_ref().map(|a| a.signed_hashes()).unwrap_or_default();
        signed.sort();
        signed.dedup();
        events.providers_lock_updated(provider, version, &local, &signed, &prior);
        events.fetch_package_success(provider, version, &installed.package_dir, auth.as_ref());
        let mut hashes = vec![new_hash];
        hashes.extend(prior);
        hashes.extend(local);
        hashes.extend(signed);
        Ok((hashes, true))
    }
}

#[cfg(test)]
mod tests;
