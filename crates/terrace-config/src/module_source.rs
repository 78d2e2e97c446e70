//! Module source addresses (`./x`, `hashicorp/consul/aws`,
//! `git::https://...`) parsed as OpenTofu's `addrs.ParseModuleSource` does:
//! local paths, module registry addresses (host/namespace/name/system with
//! an optional `//subdir`), and anything else as a remote package. Remote
//! packages are kept as written; only the checks that can fail at parse
//! time are made.

use std::fmt;

/// The registry host implied when a registry source has none, as
/// Terraform writes it in `.terraform/modules/modules.json`.
pub const DEFAULT_MODULE_REGISTRY_HOST: &str = "registry.terraform.io";

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModuleSource {
    /// A path relative to the calling module, normalized to start with
    /// `./` or `../`.
    Local(String),
    Registry(RegistrySource),
    Remote(RemoteSource),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegistrySource {
    pub host: String,
    /// Whether the host was written (display omits the default one).
    pub host_written: bool,
    pub namespace: String,
    pub name: String,
    pub target_system: String,
    pub subdir: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemoteSource {
    pub package: String,
    pub subdir: String,
}

/// Why a source address cannot be parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModuleSourceError {
    /// A bare path without `./` that would otherwise have been a remote
    /// address (OpenTofu's `MaybeRelativePathErr`).
    MaybeRelativePath(String),
    Other(String),
}

impl fmt::Display for ModuleSourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModuleSourceError::MaybeRelativePath(addr) => write!(
                f,
                "{} is not a valid module source address: a relative path must start with either ./ or ../",
                terrace_value::gostr::quote(addr)
            ),
            ModuleSourceError::Other(m) => f.write_str(m),
        }
    }
}

impl fmt::Display for ModuleSource {
    /// OpenTofu's `String()`: the full form, with the registry host.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModuleSource::Local(p) => f.write_str(p),
            ModuleSource::Registry(r) => {
                write!(
                    f,
                    "{}/{}/{}/{}",
                    r.host, r.namespace, r.name, r.target_system
                )?;
                if !r.subdir.is_empty() {
                    write!(f, "//{}", r.subdir)?;
                }
                Ok(())
            }
            ModuleSource::Remote(r) => {
                if r.subdir.is_empty() {
                    return f.write_str(&r.package);
                }
                match r.package.split_once('?') {
                    Some((base, query)) => write!(f, "{base}//{}?{query}", r.subdir),
                    None => write!(f, "{}//{}", r.package, r.subdir),
                }
            }
        }
    }
}

impl ModuleSource {
    pub fn is_local(&self) -> bool {
        matches!(self, ModuleSource::Local(_))
    }

    /// The form written in configuration (default registry host omitted).
    pub fn for_display(&self) -> String {
        match self {
            ModuleSource::Registry(r)
                if !r.host_written || r.host == DEFAULT_MODULE_REGISTRY_HOST =>
            {
                let mut s = format!("{}/{}/{}", r.namespace, r.name, r.target_system);
                if !r.subdir.is_empty() {
                    s.push_str("//");
                    s.push_str(&r.subdir);
                }
                s
            }
            other => other.to_string(),
        }
    }
}

fn is_local(raw: &str) -> bool {
    ["./", "../", ".\\", "..\\"]
        .iter()
        .any(|p| raw.starts_with(p))
}

/// `path.Clean` for forward-slash paths.
pub use terrace_gocompat::path::clean as clean_path;

/// OpenTofu's `ParseModuleSource`.
pub fn parse_module_source(raw: &str) -> Result<ModuleSource, ModuleSourceError> {
    if is_local(raw) {
        let raw = raw.replace('\\', "/");
        let clean = clean_path(&raw);
        // As OpenTofu's `parseModuleSourceLocal`: only a path under
        // "../" stays bare; a bare ".." (from "../") is "./..", as
        // terraform records it in modules.json.
        return Ok(ModuleSource::Local(if clean.starts_with("../") {
            clean
        } else {
            format!("./{clean}")
        }));
    }
    if let Ok(r) = parse_registry(raw) {
        return Ok(ModuleSource::Registry(r));
    }
    parse_remote(raw).map(ModuleSource::Remote)
}

/// OpenTofu's `ParseModuleSourceRegistry`, used when a `version` argument
/// says the source must be a registry address.
pub fn parse_module_source_registry(raw: &str) -> Result<ModuleSource, ModuleSourceError> {
    if is_local(raw) {
        return Err(ModuleSourceError::Other(format!(
            "can't use local directory {} as a module registry address",
            terrace_value::gostr::quote(raw)
        )));
    }
    parse_registry(raw)
        .map(ModuleSource::Registry)
        .map_err(ModuleSourceError::Other)
}

/// Splits `pkg//subdir?query` into `pkg?query` and `subdir`.
fn split_package_subdir(src: &str) -> (String, String) {
    let stop = src.find('?').unwrap_or(src.len());
    let offset = src[..stop].find("://").map(|i| i + 3).unwrap_or(0);
    let Some(idx) = src[offset..stop].find("//") else {
        return (src.to_string(), String::new());
    };
    let idx = idx + offset;
    let mut subdir = src[idx + 2..].to_string();
    let mut pkg = src[..idx].to_string();
    if let Some(q) = subdir.find('?') {
        pkg.push_str(&subdir[q..]);
        subdir.truncate(q);
    }
    let subdir = if subdir.is_empty() {
        subdir
    } else {
        clean_path(&subdir)
    };
    (pkg, subdir)
}

fn valid_registry_name(s: &str) -> bool {
    let b = s.as_bytes();
    if b.is_empty() || b.len() > 64 {
        return false;
    }
    let ok = |c: u8| c.is_ascii_alphanumeric() || c == b'-' || c == b'_';
    b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && b.iter().all(|c| ok(*c))
}

fn valid_hostname(h: &str) -> bool {
    let host = h.split(':').next().unwrap_or("");
    !host.is_empty()
        && host.split('.').all(|label| {
            !label.is_empty()
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label.chars().all(|c| c.is_alphanumeric() || c == '-')
        })
}

fn parse_registry(raw: &str) -> Result<RegistrySource, String> {
    let (raw, subdir) = split_package_subdir(raw);
    if subdir.starts_with("../") {
        return Err(format!(
            "subdirectory path {} leads outside of the module package",
            terrace_value::gostr::quote(&subdir)
        ));
    }
    let mut parts: Vec<&str> = raw.split('/').collect();
    if parts.len() != 3 && parts.len() != 4 {
        return Err("a module registry source address must have either three or four slash-separated components".into());
    }
    let mut host = DEFAULT_MODULE_REGISTRY_HOST.to_string();
    let mut host_written = false;
    if parts.len() == 4 {
        let given = parts[0];
        if !valid_hostname(given) {
            return Err(if given.contains("--") {
                format!("invalid module registry hostname {}; internationalized domain names must be given as direct unicode characters, not in punycode", terrace_value::gostr::quote(given))
            } else {
                format!(
                    "invalid module registry hostname {}",
                    terrace_value::gostr::quote(given)
                )
            });
        }
        host = given.to_lowercase();
        if !host.contains('.') {
            return Err("invalid module registry hostname: must contain at least one dot".into());
        }
        host_written = true;
        parts.remove(0);
    }
    if host == "github.com" || host == "bitbucket.org" {
        return Err(format!("can't use {} as a module registry host, because it's reserved for installing directly from version control repositories", terrace_value::gostr::quote(&host)));
    }
    let name_rule = "must be between one and 64 characters, including ASCII letters, digits, dashes, and underscores, where dashes and underscores may not be the prefix or suffix";
    if !valid_registry_name(parts[0]) {
        if parts[0].contains('.') {
            return Err("source address must have three more components after the hostname: the namespace, the name, and the target system".into());
        }
        return Err(format!(
            "invalid namespace {}: {name_rule}",
            terrace_value::gostr::quote(parts[0])
        ));
    }
    if !valid_registry_name(parts[1]) {
        return Err(format!(
            "invalid module name {}: {name_rule}",
            terrace_value::gostr::quote(parts[1])
        ));
    }
    let system = parts[2];
    if system.is_empty()
        || system.len() > 64
        || !system
            .bytes()
            .all(|c| c.is_ascii_digit() || c.is_ascii_lowercase())
    {
        if system.contains('?') {
            return Err("module registry addresses may not include a query string portion".into());
        }
        return Err(format!(
            "invalid target system {}: must be between one and 64 ASCII letters or digits",
            terrace_value::gostr::quote(system)
        ));
    }
    Ok(RegistrySource {
        host,
        host_written,
        namespace: parts[0].to_string(),
        name: parts[1].to_string(),
        target_system: system.to_string(),
        subdir,
    })
}

/// go-getter's detectors that recognize an address without a scheme. The
/// last of them, the file detector, takes an absolute filesystem path as a
/// `file://` package (installed like any remote one), and only a relative
/// path without `./` or `../` is left over as "maybe relative".
fn detected_remote(raw: &str) -> bool {
    raw.starts_with('/')
        || raw.starts_with("github.com/")
        || raw.starts_with("bitbucket.org/")
        || raw.starts_with("git@")
        || raw.contains(".amazonaws.com/")
        || raw.contains("storage.googleapis.com/")
        || raw.contains("www.googleapis.com/storage/")
}

fn parse_remote(raw: &str) -> Result<RemoteSource, ModuleSourceError> {
    let (pkg, subdir) = split_package_subdir(raw);
    if subdir.starts_with("../") {
        return Err(ModuleSourceError::Other(format!(
            "subdirectory path {} leads outside of the module package",
            terrace_value::gostr::quote(&subdir)
        )));
    }
    let has_scheme = pkg.contains("::") || pkg.contains("://");
    if !has_scheme && !detected_remote(&pkg) {
        return Err(ModuleSourceError::MaybeRelativePath(pkg));
    }
    Ok(RemoteSource {
        package: pkg,
        subdir,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_paths() {
        for (raw, want) in [
            ("./a", "./a"),
            ("./a/../b/", "./b"),
            ("../x", "../x"),
            (".\\win\\dir", "./win/dir"),
            ("./", "./."),
            ("../", "./.."),
            ("../..", "../.."),
        ] {
            assert_eq!(
                parse_module_source(raw).map(|s| s.to_string()),
                Ok(want.to_string()),
                "{raw}"
            );
        }
    }

    #[test]
    fn registry_addresses() {
        let s = parse_module_source("hashicorp/consul/aws//modules/x")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            s.to_string(),
            "registry.terraform.io/hashicorp/consul/aws//modules/x"
        );
        assert_eq!(s.for_display(), "hashicorp/consul/aws//modules/x");
        let s = parse_module_source("example.com/a/b/c");
        assert!(matches!(s, Ok(ModuleSource::Registry(_))));
        let err = parse_module_source_registry("---.com/HashiCorp/Consul/aws");
        assert!(err.is_err());
        let err = parse_module_source_registry("../boop");
        assert_eq!(
            err.err().map(|e| e.to_string()),
            Some("can't use local directory \"../boop\" as a module registry address".into())
        );
        assert!(parse_module_source_registry("github.com/a/b/c").is_err());
    }

    #[test]
    fn remote_and_relative() {
        assert!(matches!(
            parse_module_source("git::https://example.com/x.git//sub?ref=v1"),
            Ok(ModuleSource::Remote(r)) if r.subdir == "sub" && r.package == "git::https://example.com/x.git?ref=v1"
        ));
        assert!(matches!(
            parse_module_source("github.com/hashicorp/example"),
            Ok(ModuleSource::Remote(_))
        ));
        assert!(matches!(
            parse_module_source("/srv/modules/network//vpc"),
            Ok(ModuleSource::Remote(r)) if r.subdir == "vpc" && r.package == "/srv/modules/network"
        ));
        assert!(matches!(
            parse_module_source("boop"),
            Err(ModuleSourceError::MaybeRelativePath(_))
        ));
        assert_eq!(clean_path("a/./b/../../.."), "..");
    }
}
