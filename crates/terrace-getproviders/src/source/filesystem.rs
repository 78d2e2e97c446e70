//! Local filesystem mirrors (the CLI configuration's `filesystem_mirror`,
//! the implied local directories and `-plugin-dir`), in both layouts:
//!
//! - unpacked: `HOSTNAME/NAMESPACE/TYPE/VERSION/OS_ARCH/` holding the
//!   package's files;
//! - packed: `HOSTNAME/NAMESPACE/TYPE/terraform-provider-TYPE_VERSION_OS_ARCH.zip`.
//!
//! Entries that do not fit (bad names, versions, platforms) are skipped
//! silently, as Terraform does. Only the base directory itself may be a
//! symbolic link to a directory; below it, links are followed only for
//! the version-platform directories and the archives themselves.

use super::{PackageLocation, PackageMeta, Platform, Source, SourceError};
use crate::goerr::path_error;
use crate::version::{sort_versions, Version};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use terrace_addrs::{Hostname, Provider};

/// Where the unpacked layout keeps a package under `base`.
pub fn unpacked_directory_path(
    base: &Path,
    provider: &Provider,
    version: &Version,
    platform: &Platform,
) -> PathBuf {
    base.join(provider.hostname().for_display())
        .join(provider.namespace())
        .join(provider.type_name())
        .join(version.to_string())
        .join(platform.to_string())
}

/// Where the packed layout keeps a package under `base`.
pub fn packed_file_path(
    base: &Path,
    provider: &Provider,
    version: &Version,
    platform: &Platform,
) -> PathBuf {
    base.join(provider.hostname().for_display())
        .join(provider.namespace())
        .join(provider.type_name())
        .join(package_filename(provider, version, platform))
}

pub(crate) fn package_filename(
    provider: &Provider,
    version: &Version,
    platform: &Platform,
) -> String {
    format!(
        "terraform-provider-{}_{version}_{platform}.zip",
        provider.type_name()
    )
}

/// OpenTofu's `SearchLocalDirectory`: every package under `base`, per
/// provider, sorted by platform then version. A missing or unreadable
/// directory is an error (`cannot search DIR: lstat DIR: ...`).
pub fn search_local_directory(base: &Path) -> Result<BTreeMap<Provider, Vec<PackageMeta>>, String> {
    let root = base.canonicalize().unwrap_or_else(|_| base.to_path_buf());
    let mut found: BTreeMap<Provider, Vec<PackageMeta>> = BTreeMap::new();
    let meta = std::fs::symlink_metadata(&root).map_err(|e| {
        format!(
            "cannot search {}: {}",
            root.display(),
            path_error("lstat", &root, &e)
        )
    })?;
    if meta.is_dir() {
        walk(&root, &mut Vec::new(), &mut found)?;
    }
    for list in found.values_mut() {
        list.sort_by(|a, b| {
            a.target_platform
                .cmp(&b.target_platform)
                .then_with(|| a.version.precedence_cmp(&b.version))
        });
    }
    Ok(found)
}

fn walk(
    dir: &Path,
    rel: &mut Vec<String>,
    found: &mut BTreeMap<Provider, Vec<PackageMeta>>,
) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| {
        format!(
            "cannot search {}: {}",
            dir.display(),
            path_error("open", dir, &e)
        )
    })?;
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| {
            format!(
                "cannot search {}: {}",
                dir.display(),
                path_error("readdirent", dir, &e)
            )
        })?;
        names.push(entry.file_name());
    }
    names.sort();
    for name in names {
        let full = dir.join(&name);
        let lmeta = std::fs::symlink_metadata(&full).map_err(|e| {
            format!(
                "cannot search {}: {}",
                full.display(),
                path_error("lstat", &full, &e)
            )
        })?;
        rel.push(name.to_string_lossy().into_owned());
        consider(&full, rel, found);
        if lmeta.is_dir() && rel.len() < 5 {
            walk(&full, rel, found)?;
        }
        rel.pop();
    }
    Ok(())
}

/// Records `full` if it is a package at the place the layouts expect.
fn consider(full: &Path, parts: &[String], found: &mut BTreeMap<Provider, Vec<PackageMeta>>) {
    if parts.len() < 3 || parts.len() > 5 {
        return;
    }
    let (host, namespace, type_name) = (&parts[0], &parts[1], &parts[2]);
    if namespace != "-" && terrace_addrs::parse_provider_part(namespace).is_err() {
        return;
    }
    if terrace_addrs::parse_provider_part(type_name).is_err() {
        return;
    }
    let Ok(hostname) = Hostname::for_comparison(host) else {
        return;
    };
    let provider = if namespace == "-" {
        if hostname != Hostname::default_registry() {
            return;
        }
        Provider::new_legacy(type_name)
    } else {
        match Provider::new(hostname, namespace, type_name) {
            Ok(p) => p,
            Err(_) => return,
        }
    };
    let Ok(info) = std::fs::metadata(full) else {
        return;
    };
    let meta = match parts.len() {
        5 if info.is_dir() => {
            let Ok(version) = Version::parse(&parts[3]) else {
                return;
            };
            let Ok(platform) = Platform::parse(&parts[4]) else {
                return;
            };
            PackageMeta {
                filename: super::filesystem::package_filename(&provider, &version, &platform),
                provider: provider.clone(),
                version,
                protocol_versions: Vec::new(),
                target_platform: platform,
                location: PackageLocation::LocalDir(full.to_path_buf()),
                authentication: None,
            }
        }
        4 if !info.is_dir() => {
            let filename = parts[3].to_lowercase();
            let prefix = format!("terraform-provider-{}_", provider.type_name());
            let Some(info_part) = filename
                .strip_prefix(&prefix)
                .and_then(|r| r.strip_suffix(".zip"))
            else {
                return;
            };
            let info_parts: Vec<&str> = info_part.split('_').collect();
            if info_parts.len() < 3 {
                return;
            }
            let Ok(version) = Version::parse(info_parts[0]) else {
                return;
            };
            let Ok(platform) = Platform::parse(&format!("{}_{}", info_parts[1], info_parts[2]))
            else {
                return;
            };
            PackageMeta {
                provider: provider.clone(),
                version,
                protocol_versions: Vec::new(),
                target_platform: platform,
                filename,
                location: PackageLocation::LocalArchive(full.to_path_buf()),
                authentication: None,
            }
        }
        _ => return,
    };
    found.entry(provider).or_default().push(meta);
}

/// A filesystem mirror directory, scanned once on first use.
pub struct FilesystemMirrorSource {
    base: PathBuf,
    scanned: OnceLock<Result<BTreeMap<Provider, Vec<PackageMeta>>, String>>,
}

impl FilesystemMirrorSource {
    pub fn new(base: impl Into<PathBuf>) -> FilesystemMirrorSource {
        FilesystemMirrorSource {
            base: base.into(),
            scanned: OnceLock::new(),
        }
    }

    pub fn base_dir(&self) -> &Path {
        &self.base
    }

    /// Every package in the mirror.
    pub fn all_packages(&self) -> Result<&BTreeMap<Provider, Vec<PackageMeta>>, SourceError> {
        match self
            .scanned
            .get_or_init(|| search_local_directory(&self.base))
        {
            Ok(m) => Ok(m),
            Err(e) => Err(SourceError::Other(e.clone())),
        }
    }
}

impl Source for FilesystemMirrorSource {
    fn available_versions(
        &self,
        provider: &Provider,
    ) -> Result<(Vec<Version>, Vec<String>), SourceError> {
        let all = self.all_packages()?;
        let mut versions: Vec<Version> = Vec::new();
        for m in all.get(provider).into_iter().flatten() {
            if !versions.contains(&m.version) {
                versions.push(m.version.clone());
            }
        }
        sort_versions(&mut versions);
        Ok((versions, Vec::new()))
    }

    fn package_meta(
        &self,
        provider: &Provider,
        version: &Version,
        platform: &Platform,
    ) -> Result<PackageMeta, SourceError> {
        let all = self.all_packages()?;
        all.get(provider)
            .into_iter()
            .flatten()
            .find(|m| m.version == *version && m.target_platform == *platform)
            .cloned()
            .ok_or_else(|| SourceError::platform_not_supported(provider, version, platform, None))
    }

    fn for_display(&self, _provider: &Provider) -> String {
        self.base.display().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::TempDir;

    fn p(s: &str) -> Provider {
        match Provider::parse_source_str(s) {
            Ok(p) => p,
            Err(d) => panic!("{d:?}"),
        }
    }

    fn v(s: &str) -> Version {
        match Version::parse(s) {
            Ok(v) => v,
            Err(e) => panic!("{e}"),
        }
    }

    fn mirror() -> TempDir {
        let d = TempDir::new("fsmirror");
        let exe = b"#!/bin/sh\n";
        d.write_mode(
            "registry.terraform.io/hashicorp/null/1.0.0/linux_amd64/terraform-provider-null_v1.0.0",
            exe,
            0o755,
        );
        d.write_mode(
            "registry.terraform.io/hashicorp/null/1.1.0/linux_arm64/terraform-provider-null_v1.1.0",
            exe,
            0o755,
        );
        d.write_mode(
            "registry.terraform.io/hashicorp/null/1.2.0-beta/linux_amd64/terraform-provider-null",
            exe,
            0o755,
        );
        d.write_mode(
            "registry.terraform.io/hashicorp/null/terraform-provider-null_1.3.0_linux_amd64.zip",
            b"zip",
            0o644,
        );
        d.write_mode("registry.terraform.io/hashicorp/null/Terraform-Provider-NULL_1.4.0_darwin_arm64_extra.ZIP", b"zip", 0o644);
        d.write_mode(
            "example.com/Acme/Widget/2.0.0/linux_amd64/terraform-provider-widget",
            exe,
            0o755,
        );
        d.write_mode(
            "registry.terraform.io/-/legacy/1.0.0/linux_amd64/terraform-provider-legacy",
            exe,
            0o755,
        );
        // Misfits, all ignored.
        d.write_mode(
            "registry.terraform.io/hashicorp/null/notaversion/linux_amd64/x",
            exe,
            0o755,
        );
        d.write_mode(
            "registry.terraform.io/hashicorp/null/1.5.0/linux/x",
            exe,
            0o755,
        );
        d.write_mode(
            "registry.terraform.io/hashicorp/null/1.6.0/linux_amd64",
            b"not a dir",
            0o644,
        );
        d.write_mode(
            "registry.terraform.io/hashicorp/null/terraform-provider-other_1.7.0_linux_amd64.zip",
            b"",
            0o644,
        );
        d.write_mode(
            "registry.terraform.io/hashicorp/null/terraform-provider-null_1.8.0.zip",
            b"",
            0o644,
        );
        d.write_mode("bad host!/hashicorp/x/1.0.0/linux_amd64/f", exe, 0o755);
        d.write_mode("example.com/-/legacy/1.0.0/linux_amd64/f", exe, 0o755);
        d.write_mode("README", b"", 0o644);
        d
    }

    #[test]
    fn finds_both_layouts() {
        let d = mirror();
        let found = match search_local_directory(d.path()) {
            Ok(f) => f,
            Err(e) => panic!("{e}"),
        };
        let keys: Vec<String> = found.keys().map(|k| k.to_string()).collect();
        assert_eq!(
            keys,
            [
                "example.com/acme/widget",
                "registry.terraform.io/-/legacy",
                "registry.terraform.io/hashicorp/null"
            ]
        );
        let null: Vec<(String, String, String)> = found[&p("hashicorp/null")]
            .iter()
            .map(|m| {
                let loc = match &m.location {
                    PackageLocation::LocalDir(_) => "dir",
                    PackageLocation::LocalArchive(_) => "zip",
                    PackageLocation::HttpArchive(_) => "http",
                };
                (
                    m.target_platform.to_string(),
                    m.version.to_string(),
                    format!("{loc} {}", m.filename),
                )
            })
            .collect();
        let row = |a: &str, b: &str, c: &str| (a.to_string(), b.to_string(), c.to_string());
        assert_eq!(
            null,
            [
                row(
                    "darwin_arm64",
                    "1.4.0",
                    "zip terraform-provider-null_1.4.0_darwin_arm64_extra.zip"
                ),
                row(
                    "linux_amd64",
                    "1.0.0",
                    "dir terraform-provider-null_1.0.0_linux_amd64.zip"
                ),
                row(
                    "linux_amd64",
                    "1.2.0-beta",
                    "dir terraform-provider-null_1.2.0-beta_linux_amd64.zip"
                ),
                row(
                    "linux_amd64",
                    "1.3.0",
                    "zip terraform-provider-null_1.3.0_linux_amd64.zip"
                ),
                row(
                    "linux_arm64",
                    "1.1.0",
                    "dir terraform-provider-null_1.1.0_linux_arm64.zip"
                ),
            ]
        );
        let Some(widget) = found[&p("example.com/acme/widget")].first() else {
            panic!()
        };
        assert_eq!(
            widget.location,
            PackageLocation::LocalDir(d.path().join("example.com/Acme/Widget/2.0.0/linux_amd64"))
        );
    }

    #[test]
    fn source_answers() {
        let d = mirror();
        let src = FilesystemMirrorSource::new(d.path());
        let (versions, warnings) = match src.available_versions(&p("hashicorp/null")) {
            Ok(r) => r,
            Err(e) => panic!("{e}"),
        };
        let versions: Vec<String> = versions.iter().map(|v| v.to_string()).collect();
        assert_eq!(versions, ["1.0.0", "1.1.0", "1.2.0-beta", "1.3.0", "1.4.0"]);
        assert!(warnings.is_empty());
        assert_eq!(
            src.available_versions(&p("hashicorp/absent"))
                .map(|r| r.0.len()),
            Ok(0)
        );
        let linux = Platform::new("linux", "amd64");
        match src.package_meta(&p("hashicorp/null"), &v("1.3.0"), &linux) {
            Ok(m) => assert!(matches!(m.location, PackageLocation::LocalArchive(_))),
            Err(e) => panic!("{e}"),
        }
        assert_eq!(
            src.package_meta(&p("hashicorp/null"), &v("1.1.0"), &linux)
                .err(),
            Some(SourceError::platform_not_supported(
                &p("hashicorp/null"),
                &v("1.1.0"),
                &linux,
                None
            ))
        );
        assert_eq!(
            src.for_display(&p("hashicorp/null")),
            d.path().display().to_string()
        );
    }

    #[test]
    fn missing_mirror_is_an_error() {
        let d = TempDir::new("fsmirror-missing");
        let base = d.path().join("nonexistent");
        let src = FilesystemMirrorSource::new(&base);
        assert_eq!(
            src.available_versions(&p("hashicorp/foo")).err(),
            Some(SourceError::Other(format!(
                "cannot search {0}: lstat {0}: no such file or directory",
                base.display()
            )))
        );
    }

    #[test]
    fn base_may_be_a_link() {
        let d = mirror();
        let outer = TempDir::new("fsmirror-link");
        let link = outer.path().join("mirror");
        if let Err(e) = std::os::unix::fs::symlink(d.path(), &link) {
            panic!("{e}");
        }
        let found = match search_local_directory(&link) {
            Ok(f) => f,
            Err(e) => panic!("{e}"),
        };
        // Locations are under the resolved directory, as Terraform links
        // installed packages to them.
        let Some(first) = found[&p("hashicorp/null")].get(1) else {
            panic!()
        };
        assert_eq!(
            first.location,
            PackageLocation::LocalDir(
                d.path()
                    .join("registry.terraform.io/hashicorp/null/1.0.0/linux_amd64")
            )
        );
    }

    #[test]
    fn paths() {
        let base = Path::new("/m");
        let (prov, ver, plat) = (
            p("hashicorp/aws"),
            v("5.100.0"),
            Platform::new("linux", "amd64"),
        );
        assert_eq!(
            unpacked_directory_path(base, &prov, &ver, &plat),
            Path::new("/m/registry.terraform.io/hashicorp/aws/5.100.0/linux_amd64")
        );
        assert_eq!(
            packed_file_path(base, &prov, &ver, &plat),
            Path::new("/m/registry.terraform.io/hashicorp/aws/terraform-provider-aws_5.100.0_linux_amd64.zip")
        );
    }
}
