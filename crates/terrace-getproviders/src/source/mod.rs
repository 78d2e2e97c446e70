//! Where provider packages come from. A [`Source`] answers two questions
//! for a provider: which versions exist (for any platform), and where the
//! package of one version for one platform is. The kinds are a local
//! filesystem mirror ([`FilesystemMirrorSource`]), a provider registry
//! ([`crate::registry::RegistrySource`]) and a [`MultiSource`] that tries
//! several in order, each limited by `include`/`exclude` patterns, as the
//! CLI configuration's `provider_installation` block describes.
//!
//! Errors carry Terraform's texts, which `terrace init` embeds in its
//! diagnostics.

mod filesystem;
mod multi;

pub use filesystem::{
    packed_file_path, search_local_directory, unpacked_directory_path, FilesystemMirrorSource,
};
pub use multi::{parse_provider_patterns, MultiSource, MultiSourceSelector, ProviderPattern};

use crate::auth::PackageAuthentication;
use crate::version::Version;
use std::fmt;
use std::path::PathBuf;
use terrace_addrs::{Hostname, Provider};

/// A target platform, `os_arch` in Go's names (`linux_amd64`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Platform {
    pub os: String,
    pub arch: String,
}

impl Platform {
    pub fn new(os: &str, arch: &str) -> Platform {
        Platform {
            os: os.to_string(),
            arch: arch.to_string(),
        }
    }

    /// OpenTofu's `ParsePlatform`, with its messages.
    pub fn parse(s: &str) -> Result<Platform, String> {
        let parts: Vec<&str> = s.split('_').collect();
        if parts.len() != 2 {
            return Err("must be two words separated by an underscore".into());
        }
        let ws = |p: &str| p.contains([' ', '\t', '\n', '\r']);
        if ws(parts[0]) {
            return Err("OS portion must not contain whitespace".into());
        }
        if ws(parts[1]) {
            return Err("architecture portion must not contain whitespace".into());
        }
        Ok(Platform::new(parts[0], parts[1]))
    }

    /// The platform terrace runs on, in Go's `GOOS`/`GOARCH` names (what
    /// provider packages are built and named for).
    pub fn current() -> Platform {
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
        Platform::new(os, arch)
    }
}

impl fmt::Display for Platform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}_{}", self.os, self.arch)
    }
}

/// Where one package can be obtained.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PackageLocation {
    /// An unpacked package directory (installed by linking to it).
    LocalDir(PathBuf),
    /// A `.zip` archive on disk (installed by extracting it).
    LocalArchive(PathBuf),
    /// A `.zip` archive to download.
    HttpArchive(String),
}

impl fmt::Display for PackageLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PackageLocation::LocalDir(p) | PackageLocation::LocalArchive(p) => {
                write!(f, "{}", p.display())
            }
            PackageLocation::HttpArchive(u) => f.write_str(u),
        }
    }
}

/// One package: a provider version for one platform.
#[derive(Clone, Debug)]
pub struct PackageMeta {
    pub provider: Provider,
    pub version: Version,
    /// Plugin protocol versions the package speaks (empty when the source
    /// does not say, as local mirrors do not).
    pub protocol_versions: Vec<Version>,
    pub target_platform: Platform,
    /// The archive name the package should have
    /// (`terraform-provider-TYPE_VERSION_OS_ARCH.zip`).
    pub filename: String,
    pub location: PackageLocation,
    /// Checks the source asks for once the package is fetched (none for
    /// local mirrors).
    pub authentication: Option<PackageAuthentication>,
}

/// Why a source could not answer, in Terraform's words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SourceError {
    /// No source that may handle the provider knows it.
    ProviderNotFound {
        provider: Provider,
        sources: Vec<String>,
    },
    /// The provider's registry says there is no such provider.
    RegistryProviderNotKnown {
        provider: Provider,
    },
    /// The version exists, but not for this platform.
    PlatformNotSupported(Box<PlatformNotSupported>),
    /// The host does not run a provider registry (of a supported protocol
    /// version, when `has_other_version`).
    HostNoProviders {
        hostname: Hostname,
        has_other_version: bool,
    },
    HostUnreachable {
        hostname: Hostname,
        message: String,
    },
    Unauthorized {
        hostname: Hostname,
        have_credentials: bool,
    },
    /// A registry or mirror request failed.
    QueryFailed {
        provider: Provider,
        message: String,
        mirror_url: Option<String>,
    },
    /// Anything else (a local mirror that cannot be read, ...).
    Other(String),
}

impl SourceError {
    /// Whether this means "not there" (so another source may be tried).
    pub fn is_not_exist(&self) -> bool {
        matches!(
            self,
            SourceError::ProviderNotFound { .. }
                | SourceError::RegistryProviderNotKnown { .. }
                | SourceError::PlatformNotSupported(_)
        )
    }
}

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SourceError::ProviderNotFound { provider, .. } => write!(
                f,
                "provider {provider} was not found in any of the search locations"
            ),
            SourceError::RegistryProviderNotKnown { provider } => write!(
                f,
                "provider registry {} does not have a provider named {provider}",
                provider.hostname().for_display()
            ),
            SourceError::PlatformNotSupported(e) => match &e.mirror_url {
                Some(url) => write!(
                    f,
                    "provider mirror {url} does not have a package of {} {} for {}",
                    e.provider, e.version, e.platform
                ),
                None => write!(
                    f,
                    "provider {} {} is not available for {}",
                    e.provider, e.version, e.platform
                ),
            },
            SourceError::HostNoProviders {
                hostname,
                has_other_version: true,
            } => write!(
                f,
                "host {} does not support the provider registry protocol required by this {} version, but may be compatible with a different {} version",
                hostname.for_display(),
                crate::PRODUCT,
                crate::PRODUCT
            ),
            SourceError::HostNoProviders { hostname, .. } => write!(
                f,
                "host {} does not offer a {} provider registry",
                hostname.for_display(),
                crate::PRODUCT
            ),
            SourceError::HostUnreachable { hostname, message } => {
                write!(f, "could not connect to {}: {message}", hostname.for_display())
            }
            SourceError::Unauthorized {
                hostname,
                have_credentials: true,
            } => write!(f, "host {hostname} rejected the given authentication credentials"),
            SourceError::Unauthorized { hostname, .. } => {
                write!(f, "host {hostname} requires authentication credentials")
            }
            SourceError::QueryFailed {
                provider,
                message,
                mirror_url: Some(url),
            } => write!(f, "failed to query provider mirror {url} for {provider}: {message}"),
            SourceError::QueryFailed {
                provider, message, ..
            } => write!(f, "could not query provider registry for {provider}: {message}"),
            SourceError::Other(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for SourceError {}

/// The details of [`SourceError::PlatformNotSupported`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlatformNotSupported {
    pub provider: Provider,
    pub version: Version,
    pub platform: Platform,
    /// The network mirror that lacks it, if the source was one.
    pub mirror_url: Option<String>,
}

impl SourceError {
    pub fn platform_not_supported(
        provider: &Provider,
        version: &Version,
        platform: &Platform,
        mirror_url: Option<String>,
    ) -> SourceError {
        SourceError::PlatformNotSupported(Box::new(PlatformNotSupported {
            provider: provider.clone(),
            version: version.clone(),
            platform: platform.clone(),
            mirror_url,
        }))
    }
}

/// A provider source.
pub trait Source: Send + Sync {
    /// Every version available for any platform, oldest first, with any
    /// warnings the source has about them.
    fn available_versions(
        &self,
        provider: &Provider,
    ) -> Result<(Vec<Version>, Vec<String>), SourceError>;

    /// The package of `version` for `platform`.
    fn package_meta(
        &self,
        provider: &Provider,
        version: &Version,
        platform: &Platform,
    ) -> Result<PackageMeta, SourceError>;

    /// How the source is named in "not found in any of the search
    /// locations" lists.
    fn for_display(&self, provider: &Provider) -> String;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn platforms() {
        assert_eq!(
            Platform::parse("linux_amd64"),
            Ok(Platform::new("linux", "amd64"))
        );
        assert_eq!(Platform::new("darwin", "arm64").to_string(), "darwin_arm64");
        assert_eq!(
            Platform::parse("linux"),
            Err("must be two words separated by an underscore".to_string())
        );
        assert_eq!(
            Platform::parse("linux_amd64_x"),
            Err("must be two words separated by an underscore".to_string())
        );
        assert_eq!(
            Platform::parse("li nux_amd64"),
            Err("OS portion must not contain whitespace".to_string())
        );
        assert_eq!(
            Platform::parse("linux_amd 64"),
            Err("architecture portion must not contain whitespace".to_string())
        );
        let cur = Platform::current();
        assert!(!cur.os.is_empty() && !cur.arch.is_empty());
        if cfg!(all(target_os = "linux", target_arch = "x86_64")) {
            assert_eq!(cur.to_string(), "linux_amd64");
        }
    }

    #[test]
    fn error_texts() {
        let p = match Provider::parse_source_str("hashicorp/foo") {
            Ok(p) => p,
            Err(d) => panic!("{d:?}"),
        };
        assert_eq!(
            SourceError::ProviderNotFound {
                provider: p.clone(),
                sources: vec!["/x".into()]
            }
            .to_string(),
            "provider registry.terraform.io/hashicorp/foo was not found in any of the search locations"
        );
        assert_eq!(
            SourceError::platform_not_supported(
                &p,
                &Version::new(1, 1, 0),
                &Platform::new("linux", "amd64"),
                None
            )
            .to_string(),
            "provider registry.terraform.io/hashicorp/foo 1.1.0 is not available for linux_amd64"
        );
        assert_eq!(
            SourceError::RegistryProviderNotKnown { provider: p }.to_string(),
            "provider registry registry.terraform.io does not have a provider named registry.terraform.io/hashicorp/foo"
        );
    }
}
