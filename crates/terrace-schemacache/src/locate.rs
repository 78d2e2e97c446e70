//! Finding the executable of an installed provider package. Packages are
//! unpacked directories laid out as `HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/`
//! under a base directory: `.terraform/providers` (where `init` installs)
//! and filesystem mirrors (the CLI configuration's `filesystem_mirror`
//! paths and the implied local mirror directories), searched in that
//! order. The executable is the first file, in name order, named
//! `terraform-provider-TYPE` optionally followed by `_` or `.` and more
//! (`terraform-provider-aws_v5.100.0_x5`), as OpenTofu's provider cache
//! finds it.
//!
//! The version is the lock file's selection when there is one; otherwise
//! the newest version present that the configuration's constraints allow.
//! Packed (`.zip`) mirror packages are not used: they need installing.

use std::fmt;
use std::path::{Path, PathBuf};
use terrace_addrs::Provider;
use terrace_getproviders::{Version, VersionConstraints};

/// Where packages are looked for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchDirs {
    /// `.terraform/providers` of the working directory.
    pub installed: PathBuf,
    /// Filesystem mirrors, in the order they are tried.
    pub mirrors: Vec<PathBuf>,
}

impl SearchDirs {
    /// `.terraform/providers` under `data_dir` (the working directory's
    /// `.terraform`), then `mirrors`.
    pub fn new(data_dir: &Path, mirrors: Vec<PathBuf>) -> SearchDirs {
        SearchDirs {
            installed: data_dir.join("providers"),
            mirrors,
        }
    }

    fn bases(&self) -> impl Iterator<Item = (&Path, PackageOrigin)> {
        std::iter::once((self.installed.as_path(), PackageOrigin::Installed)).chain(
            self.mirrors
                .iter()
                .map(|m| (m.as_path(), PackageOrigin::Mirror(m.clone()))),
        )
    }
}

/// Which version of a provider is wanted.
#[derive(Clone, Copy, Debug)]
pub enum VersionWanted<'a> {
    /// The lock file's selection.
    Exactly(&'a Version),
    /// No selection yet: the newest version these allow.
    Matching(&'a VersionConstraints),
}

impl fmt::Display for VersionWanted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VersionWanted::Exactly(v) => write!(f, "{v}"),
            VersionWanted::Matching(c) if c.is_empty() => f.write_str("(any version)"),
            VersionWanted::Matching(c) => write!(f, "matching {c}"),
        }
    }
}

/// Where a located package is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PackageOrigin {
    /// In `.terraform/providers`.
    Installed,
    /// In this filesystem mirror.
    Mirror(PathBuf),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocatedProvider {
    pub provider: Provider,
    pub version: Version,
    /// `BASE/HOST/NAMESPACE/TYPE/VERSION/OS_ARCH`.
    pub package_dir: PathBuf,
    pub executable: PathBuf,
    pub origin: PackageOrigin,
}

/// Why no package was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocateError {
    pub provider: Provider,
    /// The version wanted, as [`VersionWanted`] prints it.
    pub wanted: String,
    pub platform: String,
    /// Package directories of the wanted version that had no executable.
    pub without_executable: Vec<PathBuf>,
    /// The base directories searched.
    pub searched: Vec<PathBuf>,
}

impl fmt::Display for LocateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(dir) = self.without_executable.first() {
            return write!(
                f,
                "the package for {} in {} has no executable file starting with \
                 terraform-provider-{}",
                self.provider,
                dir.display(),
                self.provider.type_name()
            );
        }
        write!(
            f,
            "there is no package for {} {} for {} in",
            self.provider, self.wanted, self.platform
        )?;
        for (i, dir) in self.searched.iter().enumerate() {
            let sep = if i == 0 { " " } else { ", " };
            write!(f, "{sep}{}", dir.display())?;
        }
        Ok(())
    }
}

impl std::error::Error for LocateError {}

/// The platform terrace runs on in Go's `GOOS_GOARCH` names, which
/// package directories are named with (`linux_amd64`).
pub fn current_platform() -> String {
    let os = match std::env::consts::OS {
        "macos" => "darwin",
        other => other,
    };
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "x86" => "386",
        "aarch64" => "arm64",
        "powerpc64" if cfg!(target_endian = "little") => "ppc64le",
        "powerpc64" => "ppc64",
        "loongarch64" => "loong64",
        other => other,
    };
    format!("{os}_{arch}")
}

/// Finds `provider`'s executable for `platform` at the wanted version:
/// the newest matching version over all search directories, and for one
/// version the first directory that has it (so an installed package wins
/// over a mirror's).
// The error carries every directory searched so the message can list them;
// it is built once per failed lookup, so its size costs nothing.
#[allow(clippy::result_large_err)]
pub fn locate(
    provider: &Provider,
    wanted: VersionWanted<'_>,
    dirs: &SearchDirs,
    platform: &str,
) -> Result<LocatedProvider, LocateError> {
    let mut best: Option<LocatedProvider> = None;
    let mut without_executable = Vec::new();
    for (base, origin) in dirs.bases() {
        for (version, version_dir) in versions_in(base, provider) {
            let allowed = match wanted {
                VersionWanted::Exactly(v) => version == *v,
                VersionWanted::Matching(c) => c.allows(&version),
            };
            let package_dir = version_dir.join(platform);
            if !allowed || !package_dir.is_dir() {
                continue;
            }
            let newer = best
                .as_ref()
                .is_none_or(|b| version.greater_than(&b.version));
            if !newer {
                continue;
            }
            match find_executable(&package_dir, provider.type_name()) {
                Some(executable) => {
                    best = Some(LocatedProvider {
                        provider: provider.clone(),
                        version,
                        package_dir,
                        executable,
                        origin: origin.clone(),
                    })
                }
                None => without_executable.push(package_dir),
            }
        }
    }
    best.ok_or_else(|| LocateError {
        provider: provider.clone(),
        wanted: wanted.to_string(),
        platform: platform.to_string(),
        without_executable,
        searched: dirs.bases().map(|(b, _)| b.to_path_buf()).collect(),
    })
}

/// The versions of `provider` under `base`, with their directories, in
/// name order. Directories whose names are not versions are skipped.
fn versions_in(base: &Path, provider: &Provider) -> Vec<(Version, PathBuf)> {
    // The display form is what installers write; the ASCII form is tried
    // too for internationalized hostnames written in punycode.
    let mut hosts = vec![provider.hostname().for_display()];
    if provider.hostname().as_str() != hosts[0] {
        hosts.push(provider.hostname().as_str().to_string());
    }
    let mut found = Vec::new();
    for host in hosts {
        let type_dir = base
            .join(host)
            .join(provider.namespace())
            .join(provider.type_name());
        let Ok(entries) = std::fs::read_dir(&type_dir) else {
            continue;
        };
        let mut names: Vec<String> = entries
            .filter_map(|e| e.ok())
            .filter_map(|e| e.file_name().into_string().ok())
            .collect();
        names.sort();
        for name in names {
            if let Ok(version) = Version::parse(&name) {
                found.push((version, type_dir.join(name)));
            }
        }
    }
    found
}

/// The first file, in name order, named `terraform-provider-TYPE` or that
/// followed by `_` or `.` and more.
pub fn find_executable(package_dir: &Path, type_name: &str) -> Option<PathBuf> {
    let prefix = format!("terraform-provider-{type_name}");
    let mut names: Vec<String> = std::fs::read_dir(package_dir)
        .ok()?
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|name| {
            name.strip_prefix(&prefix)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(['_', '.']))
        })
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|name| package_dir.join(name))
        .find(|path| path.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::tests::TempDir;

    fn provider(source: &str) -> Provider {
        Provider::parse_source_str(source).unwrap()
    }

    /// Creates `BASE/registry.terraform.io/NS/TYPE/VERSION/linux_amd64/FILE`.
    fn package(base: &Path, ns_type: &str, version: &str, files: &[&str]) -> PathBuf {
        let dir = base
            .join("registry.terraform.io")
            .join(ns_type)
            .join(version)
            .join("linux_amd64");
        std::fs::create_dir_all(&dir).unwrap();
        for file in files {
            if let Some(sub) = file.strip_suffix('/') {
                std::fs::create_dir_all(dir.join(sub)).unwrap();
            } else {
                std::fs::write(dir.join(file), b"#!/bin/sh\n").unwrap();
            }
        }
        dir
    }

    #[test]
    fn finds_versions_and_executables() {
        let tmp = TempDir::new("locate");
        let installed = tmp.path().join(".terraform/providers");
        let mirror = tmp.path().join("mirror");
        package(
            &installed,
            "hashicorp/aws",
            "5.1.0",
            &["terraform-provider-aws_v5.1.0_x5"],
        );
        package(
            &mirror,
            "hashicorp/aws",
            "5.1.0",
            &["terraform-provider-aws"],
        );
        package(
            &mirror,
            "hashicorp/aws",
            "5.2.0",
            &["terraform-provider-aws.exe"],
        );
        package(
            &mirror,
            "hashicorp/aws",
            "6.0.0",
            &["terraform-provider-aws"],
        );
        package(
            &mirror,
            "hashicorp/aws",
            "5.3.0",
            &[
                "terraform-provider-awsx",
                "terraform-provider-aws_/",
                "README",
            ],
        );
        package(
            &mirror,
            "hashicorp/aws",
            "not-a-version",
            &["terraform-provider-aws"],
        );
        let dirs = SearchDirs::new(&tmp.path().join(".terraform"), vec![mirror.clone()]);
        let aws = provider("hashicorp/aws");
        let v = |s: &str| Version::parse(s).unwrap();
        let c = |s: &str| VersionConstraints::parse(s).unwrap();
        struct Case {
            wanted: Result<Version, VersionConstraints>,
            found: Option<(&'static str, &'static str)>,
        }
        let cases = [
            // Installed wins over the mirror for one version.
            Case {
                wanted: Ok(v("5.1.0")),
                found: Some(("5.1.0", "terraform-provider-aws_v5.1.0_x5")),
            },
            Case {
                wanted: Err(c("~> 5.0")),
                found: Some(("5.2.0", "terraform-provider-aws.exe")),
            },
            Case {
                wanted: Err(VersionConstraints::new()),
                found: Some(("6.0.0", "terraform-provider-aws")),
            },
            // 5.3.0 has no executable (a directory and a wrong name only).
            Case {
                wanted: Ok(v("5.3.0")),
                found: None,
            },
            Case {
                wanted: Ok(v("4.0.0")),
                found: None,
            },
        ];
        for case in cases {
            let wanted = match &case.wanted {
                Ok(version) => VersionWanted::Exactly(version),
                Err(constraints) => VersionWanted::Matching(constraints),
            };
            let result = locate(&aws, wanted, &dirs, "linux_amd64");
            match (result, case.found) {
                (Ok(found), Some((version, file))) => {
                    assert_eq!(found.version.to_string(), version, "{wanted}");
                    assert_eq!(found.executable.file_name().unwrap(), file, "{wanted}");
                    let expect_origin = if file.contains("_x5") {
                        PackageOrigin::Installed
                    } else {
                        PackageOrigin::Mirror(mirror.clone())
                    };
                    assert_eq!(found.origin, expect_origin);
                }
                (Err(_), None) => {}
                (result, want) => panic!("{wanted}: got {result:?}, want {want:?}"),
            }
        }
        let missing = locate(
            &aws,
            VersionWanted::Exactly(&v("5.3.0")),
            &dirs,
            "linux_amd64",
        )
        .unwrap_err();
        assert!(missing
            .to_string()
            .contains("has no executable file starting with terraform-provider-aws"));
        let other_platform = locate(
            &aws,
            VersionWanted::Exactly(&v("5.1.0")),
            &dirs,
            "darwin_arm64",
        )
        .unwrap_err();
        assert_eq!(
            other_platform.to_string(),
            format!(
                "there is no package for registry.terraform.io/hashicorp/aws 5.1.0 for darwin_arm64 in {}, {}",
                installed.display(),
                mirror.display()
            )
        );
    }

    #[test]
    fn platform_names_are_go_names() {
        let platform = current_platform();
        let (os, arch) = platform.split_once('_').unwrap();
        assert!(!os.is_empty() && !arch.is_empty());
        assert_ne!(arch, "x86_64");
        assert_ne!(os, "macos");
    }
}
