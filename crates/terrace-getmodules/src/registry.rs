//! The module registry protocol (`modules.v1`): service discovery (shared
//! with the provider registry client, so the CLI configuration's `host`
//! blocks and credentials apply), the list of a module's versions, and the
//! download location a registry returns for one version (the
//! `X-Terraform-Get` header of a 204 reply, or the `location` of a JSON
//! body), which is a go-getter address, resolved against the request URL
//! when it is relative. Error texts are Terraform's.

use terrace_addrs::Hostname;
use terrace_getproviders::registry::{resolve_url, Http, RegistryConfig, RegistrySource};
use terrace_getproviders::source::SourceError;
use terrace_value::gostr::quote;

const MAX_RESPONSE_BYTES: u64 = 16 * 1024 * 1024;

/// A module package in a registry: host, namespace, name, target system.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RegistryPackage {
    pub host: String,
    pub namespace: String,
    pub name: String,
    pub target_system: String,
}

impl std::fmt::Display for RegistryPackage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}/{}/{}/{}",
            self.host, self.namespace, self.name, self.target_system
        )
    }
}

/// Why the versions of a module could not be listed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VersionsError {
    /// The registry does not know the module (404).
    NotFound,
    Other(String),
}

/// A client of every module registry the configuration names.
pub struct ModuleRegistry {
    source: RegistrySource,
}

impl ModuleRegistry {
    pub fn new(config: RegistryConfig) -> ModuleRegistry {
        ModuleRegistry {
            source: RegistrySource::new(config),
        }
    }

    /// The HTTP client (with the configured TLS roots), for fetching
    /// packages from the same places.
    pub fn http(&self) -> &Http {
        self.source.http()
    }

    fn hostname(host: &str) -> Result<Hostname, String> {
        Hostname::for_comparison(host)
    }

    /// The `modules.v1` base URL of `host`, with a final slash.
    fn base_url(&self, host: &Hostname) -> Result<String, String> {
        match self.source.service_url(host, "modules.v1") {
            Ok(Some(mut url)) => {
                if !url.ends_with('/') {
                    url.push('/');
                }
                Ok(url)
            }
            Ok(None) => Err(format!(
                "host {} does not provide a modules service",
                host.for_display()
            )),
            Err(SourceError::HostUnreachable { message, .. }) => Err(message),
            Err(e) => Err(e.to_string()),
        }
    }

    fn headers(&self, host: &Hostname) -> Vec<(&'static str, String)> {
        let mut h = vec![("X-Terraform-Version", env!("CARGO_PKG_VERSION").to_string())];
        if let Some(t) = self.source.token_for(host) {
            h.push(("Authorization", format!("Bearer {t}")));
        }
        h
    }

    /// The version strings of the module, as the registry lists them
    /// (`None` when its reply names no module at all).
    pub fn versions(&self, pkg: &RegistryPackage) -> Result<Option<Vec<String>>, VersionsError> {
        let host = Self::hostname(&pkg.host).map_err(VersionsError::Other)?;
        let base = self.base_url(&host).map_err(VersionsError::Other)?;
        let url = resolve_url(
            &base,
            &format!(
                "{}/{}/{}/versions",
                pkg.namespace, pkg.name, pkg.target_system
            ),
        );
        let headers = self.headers(&host);
        let hdrs: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let resp = self
            .http()
            .get_response_retrying(&url, &hdrs, MAX_RESPONSE_BYTES)
            .map_err(VersionsError::Other)?;
        match resp.status {
            200 => {}
            404 => return Err(VersionsError::NotFound),
            _ => {
                return Err(VersionsError::Other(format!(
                    "error looking up module versions: {}",
                    resp.status_line
                )))
            }
        }
        let body: serde_json::Value =
            serde_json::from_slice(&resp.body).map_err(|e| VersionsError::Other(e.to_string()))?;
        let Some(first) = body["modules"].as_array().and_then(|m| m.first()) else {
            return Ok(None);
        };
        Ok(Some(
            first["versions"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|v| v["version"].as_str().unwrap_or_default().to_string())
                .collect(),
        ))
    }

    /// Where version `version` of the module can be fetched from: a
    /// go-getter address.
    pub fn location(&self, pkg: &RegistryPackage, version: &str) -> Result<String, String> {
        let host = Self::hostname(&pkg.host)?;
        let base = self.base_url(&host)?;
        let url = resolve_url(
            &base,
            &format!(
                "{}/{}/{}/{version}/download",
                pkg.namespace, pkg.name, pkg.target_system
            ),
        );
        let headers = self.headers(&host);
        let hdrs: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let resp = self
            .http()
            .get_response_retrying(&url, &hdrs, MAX_RESPONSE_BYTES)?;
        let body = String::from_utf8_lossy(&resp.body).into_owned();
        match resp.status {
            200 | 204 => {}
            404 => {
                return Err(format!(
                    "module {} version {} not found",
                    quote(&pkg.to_string()),
                    quote(version)
                ))
            }
            _ => {
                return Err(format!(
                    "error getting download location for {}: {} resp:{body}",
                    quote(&pkg.to_string()),
                    resp.status_line
                ))
            }
        }
        let mut location = resp
            .header("x-terraform-get")
            .unwrap_or_default()
            .to_string();
        if location.is_empty() && resp.status == 200 && !body.trim().is_empty() {
            let json: serde_json::Value = serde_json::from_str(&body).map_err(|e| {
                format!(
                    "failed to get download URL for {}: {e}. body: {body}",
                    quote(&pkg.to_string())
                )
            })?;
            location = json["location"].as_str().unwrap_or_default().to_string();
        }
        if location.is_empty() {
            return Err(format!(
                "failed to get download URL for {}: {} resp:{body}",
                quote(&pkg.to_string()),
                resp.status_line
            ));
        }
        if location.starts_with('/') || location.starts_with("./") || location.starts_with("../") {
            location = resolve_url(&resp.url, &location);
        }
        Ok(location)
    }
}
