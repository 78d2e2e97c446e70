//! The provider registry protocol (`providers.v1`) over HTTPS: service
//! discovery at `https://HOST/.well-known/terraform.json` (or the CLI
//! configuration's `host` blocks), the versions and download endpoints,
//! and the `SHA256SUMS` document with its detached signature, which
//! [`crate::auth`] then checks against the registry's signing keys before
//! a package is installed. Also the plain download of package archives
//! ([`HttpFetcher`]), network mirrors ([`HttpMirrorSource`]) and the
//! [`RemoteSources`] the CLI configuration's `direct` and `network_mirror`
//! methods use.
//!
//! Requests are blocking (`ureq`, rustls with Mozilla's roots, or the
//! certificates in `SSL_CERT_FILE`; proxies from the usual environment
//! variables). Errors carry Terraform's texts.

use crate::auth::{PackageAuthentication, SignedChecksums, SigningKey};
use crate::cliconfig::RemoteSources;
use crate::credentials_helper::CredentialsHelper;
use crate::installer::PackageFetcher;
use crate::source::{PackageLocation, PackageMeta, Platform, Source, SourceError};
use crate::version::{sort_versions, Version};
use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use terrace_addrs::{Hostname, Provider};
use terrace_value::gostr::quote;
use ureq::tls::{Certificate, RootCerts, TlsConfig};
use ureq::ResponseExt;

/// The discovery document may be no larger than this.
const MAX_DISCO_DOC_BYTES: u64 = 1024 * 1024;
/// Metadata responses (versions, download, checksums) are small.
const MAX_METADATA_BYTES: u64 = 16 * 1024 * 1024;

/// How the HTTP client is set up.
#[derive(Clone, Debug, Default)]
pub struct HttpConfig {
    /// Trust exactly these certificates (DER) instead of Mozilla's roots.
    pub root_certificates: Option<Vec<Vec<u8>>>,
    /// The overall timeout of one request (none: no limit).
    pub timeout: Option<Duration>,
}

impl HttpConfig {
    /// From the environment: `SSL_CERT_FILE` (PEM) replaces the built-in
    /// roots, as it does for Go programs.
    pub fn from_env(vars: &HashMap<String, String>) -> Result<HttpConfig, String> {
        let mut cfg = HttpConfig {
            root_certificates: None,
            timeout: Some(Duration::from_secs(10 * 60)),
        };
        if let Some(file) = vars.get("SSL_CERT_FILE").filter(|f| !f.is_empty()) {
            let pem = std::fs::read(file)
                .map_err(|e| crate::goerr::path_error("open", Path::new(file), &e))?;
            let mut certs = Vec::new();
            for item in ureq::tls::parse_pem(&pem) {
                if let Ok(ureq::tls::PemItem::Certificate(c)) = item {
                    certs.push(c.der().to_vec());
                }
            }
            cfg.root_certificates = Some(certs);
        }
        Ok(cfg)
    }
}

/// A blocking HTTP client.
#[derive(Clone)]
pub struct Http {
    agent: ureq::Agent,
}

struct Response {
    status: u16,
    status_line: String,
    content_type: String,
    content_length: Option<u64>,
    /// After redirects.
    url: String,
    body: Vec<u8>,
    /// Every header, names in lower case.
    headers: Vec<(String, String)>,
}

/// A whole response, for protocols this module does not speak itself
/// (the module registry's `X-Terraform-Get`).
#[derive(Clone, Debug)]
pub struct HttpResponse {
    pub status: u16,
    /// `404 Not Found`, as Go's `Response.Status`.
    pub status_line: String,
    /// Every header, names in lower case.
    pub headers: Vec<(String, String)>,
    /// The URL answered, after redirects.
    pub url: String,
    pub body: Vec<u8>,
}

impl From<Response> for HttpResponse {
    fn from(r: Response) -> HttpResponse {
        HttpResponse {
            status: r.status,
            status_line: r.status_line,
            headers: r.headers,
            url: r.url,
            body: r.body,
        }
    }
}

/// A response as [`Response`], its body read up to `limit` bytes. Whatever
/// the method, a response is read the same way: headers kept with
/// lower-case names, the URL after redirects, Go's status line.
fn read_response(
    url: &str,
    mut resp: ureq::http::Response<ureq::Body>,
    limit: u64,
) -> Result<Response, String> {
    let status = resp.status();
    let headers: Vec<(String, String)> = resp
        .headers()
        .iter()
        .filter_map(|(k, v)| {
            v.to_str()
                .ok()
                .map(|v| (k.as_str().to_ascii_lowercase(), v.to_string()))
        })
        .collect();
    let header = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let content_type = header("content-type").unwrap_or_default();
    let content_length = header("content-length").and_then(|v| v.parse().ok());
    let final_url = resp.get_uri().to_string();
    let body = resp
        .body_mut()
        .with_config()
        .limit(limit)
        .read_to_vec()
        .map_err(|e| go_request_error(url, &e))?;
    Ok(Response {
        status: status.as_u16(),
        status_line: format!(
            "{} {}",
            status.as_u16(),
            status.canonical_reason().unwrap_or("")
        )
        .trim_end()
        .to_string(),
        content_type,
        content_length,
        url: final_url,
        body,
        headers,
    })
}

impl HttpResponse {
    /// The first value of header `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The text of a failed request as Go's `net/http` client words it
/// (`Get "URL": dial tcp HOST:PORT: connect: connection refused`), since
/// Terraform's messages embed it.
pub fn go_request_error(url: &str, err: &ureq::Error) -> String {
    format!("Get {}: {}", quote(url), go_transport_error(url, err))
}

fn go_transport_error(url: &str, err: &ureq::Error) -> String {
    let host_port = {
        let host = host_of(url);
        let has_port = host.rsplit_once(':').is_some_and(|(_, p)| {
            !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) && !host.ends_with(']')
        });
        if has_port {
            host.to_string()
        } else if url.starts_with("http://") {
            format!("{host}:80")
        } else {
            format!("{host}:443")
        }
    };
    let bare_host = host_port
        .rsplit_once(':')
        .map(|(h, _)| h)
        .unwrap_or(&host_port);
    if err.to_string().contains("invalid peer certificate") {
        return "tls: failed to verify certificate: x509: certificate signed by unknown authority"
            .into();
    }
    match err {
        ureq::Error::Io(e) => match e.kind() {
            std::io::ErrorKind::ConnectionRefused => {
                format!("dial tcp {host_port}: connect: connection refused")
            }
            std::io::ErrorKind::TimedOut => format!("dial tcp {host_port}: i/o timeout"),
            std::io::ErrorKind::ConnectionReset => "connection reset by peer".to_string(),
            std::io::ErrorKind::UnexpectedEof => "EOF".to_string(),
            _ => format!("dial tcp {host_port}: {}", crate::goerr::errno_text(e)),
        },
        ureq::Error::HostNotFound => format!("dial tcp: lookup {bare_host}: no such host"),
        ureq::Error::ConnectionFailed => {
            format!("dial tcp {host_port}: connect: connection refused")
        }
        ureq::Error::Timeout(_) => {
            "context deadline exceeded (Client.Timeout exceeded while awaiting headers)".into()
        }
        ureq::Error::TooManyRedirects => "stopped after 10 redirects".into(),
        other => other.to_string(),
    }
}

impl Http {
    pub fn new(cfg: &HttpConfig) -> Http {
        let mut tls = TlsConfig::builder();
        if let Some(roots) = &cfg.root_certificates {
            let certs: Vec<Certificate<'static>> = roots
                .iter()
                .map(|d| Certificate::from_der(d).to_owned())
                .collect();
            tls = tls.root_certs(RootCerts::new_with_certs(&certs));
        }
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(10)
            .timeout_global(cfg.timeout)
            .user_agent(format!("terrace/{}", env!("CARGO_PKG_VERSION")))
            .tls_config(tls.build())
            .build()
            .into();
        Http { agent }
    }

    fn get(&self, url: &str, headers: &[(&str, &str)], limit: u64) -> Result<Response, String> {
        let mut req = self.agent.get(url);
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let resp = req.call().map_err(|e| go_request_error(url, &e))?;
        read_response(url, resp, limit)
    }

    /// [`Http::get`] as Terraform's registry clients make metadata requests:
    /// a request that fails without a response is tried once more, and
    /// then reported with Terraform's words for that.
    fn get_retrying(
        &self,
        url: &str,
        headers: &[(&str, &str)],
        limit: u64,
    ) -> Result<Response, String> {
        match self.get(url, headers, limit) {
            Ok(r) => Ok(r),
            Err(_) => self.get(url, headers, limit).map_err(|e| {
                format!("the request failed after 2 attempts, please try again later: {e}")
            }),
        }
    }

    /// [`Http::get_response`] with the registry clients' one retry (see
    /// `get_retrying`).
    pub fn get_response_retrying(
        &self,
        url: &str,
        headers: &[(&str, &str)],
        limit: u64,
    ) -> Result<HttpResponse, String> {
        self.get_retrying(url, headers, limit)
            .map(HttpResponse::from)
    }

    /// POSTs `form` (already `application/x-www-form-urlencoded`) to
    /// `url`, as an OAuth client asks a token endpoint; any status is a
    /// response, only transport failures are errors.
    pub fn post_form(&self, url: &str, form: &str, limit: u64) -> Result<HttpResponse, String> {
        let resp = self
            .agent
            .post(url)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .header("Accept", "application/json")
            .send(form)
            .map_err(|e| go_request_error(url, &e))?;
        read_response(url, resp, limit).map(HttpResponse::from)
    }

    /// GETs `url` with extra `headers`, reading at most `limit` bytes of
    /// body; any status is a response, only transport failures are errors
    /// (in Go's words, see [`go_request_error`]).
    pub fn get_response(
        &self,
        url: &str,
        headers: &[(&str, &str)],
        limit: u64,
    ) -> Result<HttpResponse, String> {
        self.get(url, headers, limit).map(HttpResponse::from)
    }

    /// GETs `url` with extra `headers`, streaming a 200 response's body
    /// into the file at `dest` in bounded chunks, whatever its size; other
    /// statuses are returned without reading the body. Transport failures
    /// are errors in Go's words, as [`Http::get_response`]'s.
    pub fn get_into_file(
        &self,
        url: &str,
        headers: &[(&str, &str)],
        dest: &Path,
    ) -> Result<u16, String> {
        let mut req = self.agent.get(url);
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let mut resp = req.call().map_err(|e| go_request_error(url, &e))?;
        let status = resp.status().as_u16();
        if status != 200 {
            return Ok(status);
        }
        let mut reader = resp.body_mut().with_config().limit(u64::MAX).reader();
        let mut file =
            std::fs::File::create(dest).map_err(|e| crate::goerr::path_error("open", dest, &e))?;
        let mut buf = vec![0u8; 256 * 1024];
        loop {
            let n = match reader.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    return Err(format!(
                        "{}: {}",
                        host_of(url),
                        crate::goerr::errno_text(&e)
                    ))
                }
            };
            std::io::Write::write_all(&mut file, &buf[..n])
                .map_err(|e| crate::goerr::path_error("write", dest, &e))?;
        }
        Ok(status)
    }

    /// Streams `url` into the file at `dest`.
    pub fn download(&self, url: &str, dest: &Path) -> Result<(), String> {
        let mut resp = self
            .agent
            .get(url)
            .call()
            .map_err(|e| format!("{}: {}", host_of(url), go_transport_error(url, &e)))?;
        let status = resp.status();
        if status.as_u16() != 200 {
            return Err(format!(
                "unsuccessful request to {url}: {} {}",
                status.as_u16(),
                status.canonical_reason().unwrap_or("")
            ));
        }
        let expected: Option<u64> = resp
            .headers()
            .get("content-length")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse().ok());
        let mut reader = resp.body_mut().with_config().limit(u64::MAX).reader();
        let mut file =
            std::fs::File::create(dest).map_err(|e| crate::goerr::path_error("open", dest, &e))?;
        let mut buf = vec![0u8; 256 * 1024];
        let mut total = 0u64;
        loop {
            let n = match reader.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    return Err(format!(
                        "{}: {}",
                        host_of(url),
                        crate::goerr::errno_text(&e)
                    ))
                }
            };
            std::io::Write::write_all(&mut file, &buf[..n])
                .map_err(|e| crate::goerr::path_error("write", dest, &e))?;
            total += n as u64;
        }
        if let Some(want) = expected {
            if total < want {
                return Err(format!(
                    "incorrect response size: expected {want} bytes, but got {total} bytes"
                ));
            }
        }
        Ok(())
    }
}

/// The host (and port) of a URL, as Go's `Request.Host`.
fn host_of(url: &str) -> &str {
    let rest = url.split_once("://").map(|(_, r)| r).unwrap_or(url);
    rest.split(['/', '?', '#']).next().unwrap_or(rest)
}

/// RFC 3986 reference resolution (Go's `URL.ResolveReference`), for the
/// relative URLs discovery documents and registries return.
pub fn resolve_url(base: &str, reference: &str) -> String {
    if reference.contains("://") {
        return reference.to_string();
    }
    let (scheme, rest) = base.split_once("://").unwrap_or(("https", base));
    let (authority, base_path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let base_path = base_path.split(['?', '#']).next().unwrap_or("/");
    if let Some(r) = reference.strip_prefix("//") {
        return format!("{scheme}://{r}");
    }
    let (ref_path, suffix) = match reference.find(['?', '#']) {
        Some(i) => (&reference[..i], &reference[i..]),
        None => (reference, ""),
    };
    let merged = if ref_path.starts_with('/') {
        ref_path.to_string()
    } else if ref_path.is_empty() {
        base_path.to_string()
    } else {
        let dir = match base_path.rfind('/') {
            Some(i) => &base_path[..=i],
            None => "/",
        };
        format!("{dir}{ref_path}")
    };
    format!(
        "{scheme}://{authority}{}{suffix}",
        remove_dot_segments(&merged)
    )
}

fn remove_dot_segments(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').collect();
    for (i, seg) in segments.iter().enumerate() {
        let last = i == segments.len() - 1;
        match *seg {
            "." => {
                if last {
                    out.push("");
                }
            }
            ".." => {
                if out.len() > 1 {
                    out.pop();
                }
                if last {
                    out.push("");
                }
            }
            s => out.push(s),
        }
    }
    let joined = out.join("/");
    if joined.starts_with('/') {
        joined
    } else {
        format!("/{joined}")
    }
}

/// What service discovery found for one host.
#[derive(Clone, Debug, Default)]
struct Services {
    /// Service ID (`providers.v1`) to the URL as given.
    services: BTreeMap<String, String>,
    /// Every service as the document (or `host` block) gives it, objects
    /// included.
    document: serde_json::Map<String, serde_json::Value>,
    /// The discovery document's URL after redirects, for relative URLs.
    base: String,
}

impl Services {
    /// The absolute URL of `providers.v1`, or the error Terraform reports.
    fn providers_v1(&self, hostname: &Hostname) -> Result<String, SourceError> {
        match self.services.get("providers.v1") {
            Some(u) => {
                let url = resolve_url(&self.base, u);
                let scheme = url.split("://").next().unwrap_or("");
                if scheme != "https" && scheme != "http" {
                    return Err(SourceError::HostUnreachable {
                        hostname: hostname.clone(),
                        message: format!(
                            "failed to parse service URL: unsupported scheme {scheme}"
                        ),
                    });
                }
                Ok(url)
            }
            None => Err(SourceError::HostNoProviders {
                hostname: hostname.clone(),
                has_other_version: self.services.keys().any(|k| k.starts_with("providers.")),
            }),
        }
    }
}

/// Where to find registries and how to talk to them.
#[derive(Clone, Debug, Default)]
pub struct RegistryConfig {
    pub http: HttpConfig,
    /// `host` blocks of the CLI configuration: services given locally.
    pub host_services: BTreeMap<String, BTreeMap<String, String>>,
    /// The same blocks' services as JSON, objects included.
    pub host_service_documents: BTreeMap<String, serde_json::Map<String, serde_json::Value>>,
    /// Bearer tokens per host (`credentials` blocks, `TF_TOKEN_*`).
    pub credentials: BTreeMap<String, String>,
    /// The CLI configuration's credentials helper, asked for the hosts
    /// `credentials` does not name.
    pub credentials_helper: Option<CredentialsHelper>,
}

impl RegistryConfig {
    /// The bearer token for `hostname`: `TF_TOKEN_*` and `credentials`
    /// blocks first, then the credentials helper. A helper that fails is
    /// passed over and the request goes without a token, as terraform
    /// does; what the helper said is shown under `TF_LOG`.
    pub fn token(&self, hostname: &Hostname) -> Option<String> {
        if let Some((_, token)) = self
            .credentials
            .iter()
            .find(|(h, _)| Hostname::for_comparison(h).is_ok_and(|h| &h == hostname))
        {
            return Some(token.clone());
        }
        let helper = self.credentials_helper.as_ref()?;
        match helper.get(hostname) {
            Ok(token) => token,
            Err(e) => {
                tracing::warn!(
                    "Failed to get credentials for {}: {e} (ignoring)",
                    hostname.as_str()
                );
                None
            }
        }
    }
}

/// The origin registries of providers (the `direct` method).
pub struct RegistrySource {
    http: Http,
    config: RegistryConfig,
    discovered: Mutex<HashMap<Hostname, Result<Arc<Services>, SourceError>>>,
}

impl RegistrySource {
    pub fn new(config: RegistryConfig) -> RegistrySource {
        RegistrySource {
            http: Http::new(&config.http),
            config,
            discovered: Mutex::new(HashMap::new()),
        }
    }

    fn token(&self, hostname: &Hostname) -> Option<String> {
        self.config.token(hostname)
    }

    fn headers(&self, hostname: &Hostname) -> Vec<(&'static str, String)> {
        let mut h = vec![("X-Terraform-Version", env!("CARGO_PKG_VERSION").to_string())];
        if let Some(t) = self.token(hostname) {
            h.push(("Authorization", format!("Bearer {t}")));
        }
        h
    }

    fn discover(&self, hostname: &Hostname) -> Result<Arc<Services>, SourceError> {
        if let Ok(cache) = self.discovered.lock() {
            if let Some(r) = cache.get(hostname) {
                return r.clone();
            }
        }
        let result = self.discover_uncached(hostname).map(Arc::new);
        if let Ok(mut cache) = self.discovered.lock() {
            cache.insert(hostname.clone(), result.clone());
        }
        result
    }

    fn discover_uncached(&self, hostname: &Hostname) -> Result<Services, SourceError> {
        let disco_url = format!("https://{}/.well-known/terraform.json", hostname.as_str());
        for (host, services) in &self.config.host_services {
            if Hostname::for_comparison(host).is_ok_and(|h| &h == hostname) {
                let document = self
                    .config
                    .host_service_documents
                    .get(host)
                    .cloned()
                    .unwrap_or_else(|| {
                        services
                            .iter()
                            .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
                            .collect()
                    });
                return Ok(Services {
                    services: services.clone(),
                    document,
                    base: disco_url,
                });
            }
        }
        let unreachable = |message: String| SourceError::HostUnreachable {
            hostname: hostname.clone(),
            message,
        };
        let mut headers = vec![("Accept", "application/json".to_string())];
        if let Some(t) = self.token(hostname) {
            headers.push(("Authorization", format!("Bearer {t}")));
        }
        let hdrs: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let resp = self
            .http
            .get(&disco_url, &hdrs, MAX_DISCO_DOC_BYTES)
            .map_err(|e| unreachable(format!("failed to request discovery document: {e}")))?;
        if resp.status == 404 {
            return Ok(Services {
                services: BTreeMap::new(),
                document: serde_json::Map::new(),
                base: resp.url,
            });
        }
        if resp.status != 200 {
            return Err(unreachable(format!(
                "failed to request discovery document: {}",
                resp.status_line
            )));
        }
        let media = resp
            .content_type
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        if media.is_empty() || media.contains(' ') {
            return Err(unreachable(format!(
                "discovery URL has a malformed Content-Type {}",
                quote(&resp.content_type)
            )));
        }
        if media != "application/json" {
            return Err(unreachable(format!(
                "discovery URL returned an unsupported Content-Type {}",
                quote(&media)
            )));
        }
        if let Some(n) = resp.content_length.filter(|n| *n > MAX_DISCO_DOC_BYTES) {
            return Err(unreachable(format!(
                "discovery doc response is too large (got {n} bytes; limit {MAX_DISCO_DOC_BYTES})"
            )));
        }
        let doc: serde_json::Value = serde_json::from_slice(&resp.body).map_err(|e| {
            unreachable(format!(
                "failed to decode discovery document as a JSON object: {e}"
            ))
        })?;
        let Some(obj) = doc.as_object() else {
            return Err(unreachable(
                "failed to decode discovery document as a JSON object: not an object".into(),
            ));
        };
        let services = obj
            .iter()
            .filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_string())))
            .collect();
        Ok(Services {
            services,
            document: obj.clone(),
            base: resp.url,
        })
    }

    /// The HTTP client this source uses (with its TLS settings).
    pub fn http(&self) -> &Http {
        &self.http
    }

    /// The bearer token configured for `hostname`, if any.
    pub fn token_for(&self, hostname: &Hostname) -> Option<String> {
        self.token(hostname)
    }

    /// Service discovery for any service (`modules.v1`, ...): its absolute
    /// URL, `None` when the host does not offer it, or why discovery
    /// failed. Results are cached per host, like the provider lookups'.
    pub fn service_url(
        &self,
        hostname: &Hostname,
        id: &str,
    ) -> Result<Option<String>, SourceError> {
        let services = self.discover(hostname)?;
        Ok(services
            .services
            .get(id)
            .map(|u| resolve_url(&services.base, u)))
    }

    /// The host's whole discovery document (or `host` block), every
    /// service as given, with the URL relative references resolve
    /// against; results are cached per host.
    pub fn discovery_document(
        &self,
        hostname: &Hostname,
    ) -> Result<(serde_json::Map<String, serde_json::Value>, String), SourceError> {
        let services = self.discover(hostname)?;
        Ok((services.document.clone(), services.base.clone()))
    }

    fn base_url(&self, provider: &Provider) -> Result<String, SourceError> {
        self.discover(provider.hostname())?
            .providers_v1(provider.hostname())
    }

    fn query_failed(provider: &Provider, message: String) -> SourceError {
        SourceError::QueryFailed {
            provider: provider.clone(),
            message,
            mirror_url: None,
        }
    }

    fn get_json(
        &self,
        provider: &Provider,
        url: &str,
    ) -> Result<Result<serde_json::Value, u16>, SourceError> {
        let headers = self.headers(provider.hostname());
        let hdrs: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let resp = self
            .http
            .get_retrying(url, &hdrs, MAX_METADATA_BYTES)
            .map_err(|e| Self::query_failed(provider, e))?;
        match resp.status {
            200 => serde_json::from_slice(&resp.body)
                .map(Ok)
                .map_err(|e| Self::query_failed(provider, e.to_string())),
            401 | 403 => Err(SourceError::Unauthorized {
                hostname: provider.hostname().clone(),
                have_credentials: self.token(provider.hostname()).is_some(),
            }),
            404 => Ok(Err(404)),
            _ => Err(Self::query_failed(provider, resp.status_line)),
        }
    }

    /// A checksum document or signature, as bytes.
    fn get_file(&self, url: &str) -> Result<Vec<u8>, String> {
        let resp = self.http.get(url, &[], MAX_METADATA_BYTES)?;
        if resp.status != 200 {
            return Err(format!(
                "{} returned from {}",
                resp.status_line,
                host_of(&resp.url)
            ));
        }
        Ok(resp.body)
    }
}

/// The plugin protocol versions terrace speaks (`>= 5, < 7`).
fn protocol_supported(v: &Version) -> bool {
    v.major == 5 || v.major == 6
}

impl Source for RegistrySource {
    fn available_versions(
        &self,
        provider: &Provider,
    ) -> Result<(Vec<Version>, Vec<String>), SourceError> {
        let base = self.base_url(provider)?;
        let url = resolve_url(
            &base,
            &format!("{}/{}/versions", provider.namespace(), provider.type_name()),
        );
        let body = match self.get_json(provider, &url)? {
            Ok(b) => b,
            Err(_) => {
                return Err(SourceError::RegistryProviderNotKnown {
                    provider: provider.clone(),
                })
            }
        };
        let warnings: Vec<String> = body["warnings"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|w| w.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        let mut versions = Vec::new();
        for entry in body["versions"].as_array().into_iter().flatten() {
            let raw = entry["version"].as_str().unwrap_or_default();
            let v = Version::parse(raw).map_err(|e| {
                Self::query_failed(
                    provider,
                    format!(
                        "registry response includes invalid version string {}: {e}",
                        quote(raw)
                    ),
                )
            })?;
            if !versions.contains(&v) {
                versions.push(v);
            }
        }
        sort_versions(&mut versions);
        Ok((versions, warnings))
    }

    fn package_meta(
        &self,
        provider: &Provider,
        version: &Version,
        platform: &Platform,
    ) -> Result<PackageMeta, SourceError> {
        let base = self.base_url(provider)?;
        let url = resolve_url(
            &base,
            &format!(
                "{}/{}/{version}/download/{}/{}",
                provider.namespace(),
                provider.type_name(),
                platform.os,
                platform.arch
            ),
        );
        let body = match self.get_json(provider, &url)? {
            Ok(b) => b,
            Err(_) => {
                return Err(SourceError::platform_not_supported(
                    provider, version, platform, None,
                ))
            }
        };
        let s = |k: &str| body[k].as_str().unwrap_or_default().to_string();
        let mut protocols = Vec::new();
        for p in body["protocols"].as_array().into_iter().flatten() {
            let raw = p.as_str().unwrap_or_default();
            let v = Version::parse(raw).map_err(|e| {
                Self::query_failed(
                    provider,
                    format!(
                        "registry response includes invalid version string {}: {e}",
                        quote(raw)
                    ),
                )
            })?;
            protocols.push(v);
        }
        sort_versions(&mut protocols);
        if !protocols.is_empty() && !protocols.iter().any(protocol_supported) {
            return Err(SourceError::Other(format!(
                "provider {provider} {version} is not supported by this version of {}",
                crate::PRODUCT
            )));
        }
        let (os, arch) = (s("os"), s("arch"));
        if os != platform.os || arch != platform.arch {
            return Err(SourceError::Other(format!(
                "registry response to request for {platform} archive has incorrect target {}",
                Platform::new(&os, &arch)
            )));
        }
        let http_url = |field: &str, what: &str| -> Result<String, SourceError> {
            let u = resolve_url(&url, &s(field));
            let scheme = u.split("://").next().unwrap_or("");
            if scheme != "http" && scheme != "https" {
                return Err(SourceError::Other(format!(
                    "registry response includes invalid {what} URL: must use http or https scheme"
                )));
            }
            Ok(u)
        };
        let download_url = http_url("download_url", "download")?;
        let shasum_hex = s("shasum");
        let mut sha256 = [0u8; 32];
        if shasum_hex.len() != 64
            || (0..32).any(|i| {
                u8::from_str_radix(&shasum_hex[2 * i..2 * i + 2], 16)
                    .map(|b| sha256[i] = b)
                    .is_err()
            })
        {
            return Err(SourceError::Other(format!(
                "registry response includes invalid SHA256 hash {}: encoding/hex: invalid byte",
                quote(&shasum_hex)
            )));
        }
        let shasums_url = http_url("shasums_url", "SHASUMS")?;
        let document = self.get_file(&shasums_url).map_err(|e| {
            SourceError::Other(format!(
                "failed to retrieve authentication checksums for provider: {e}"
            ))
        })?;
        let signature_url = http_url("shasums_signature_url", "SHASUMS signature")?;
        let signature = self.get_file(&signature_url).map_err(|e| {
            SourceError::Other(format!(
                "failed to retrieve cryptographic signature for provider: {e}"
            ))
        })?;
        let keys = body["signing_keys"]["gpg_public_keys"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|k| SigningKey {
                ascii_armor: k["ascii_armor"].as_str().unwrap_or_default().to_string(),
                trust_signature: k["trust_signature"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
            })
            .collect();
        let filename = s("filename");
        Ok(PackageMeta {
            provider: provider.clone(),
            version: version.clone(),
            protocol_versions: protocols,
            target_platform: platform.clone(),
            filename: filename.clone(),
            location: PackageLocation::HttpArchive(download_url),
            authentication: Some(PackageAuthentication::Signed(SignedChecksums {
                filename,
                sha256,
                document,
                signature,
                keys,
            })),
        })
    }

    fn for_display(&self, provider: &Provider) -> String {
        provider.hostname().for_display()
    }
}

/// Downloads package archives.
pub struct HttpFetcher(pub Http);

impl PackageFetcher for HttpFetcher {
    fn fetch(&self, url: &str, dest: &Path) -> Result<(), String> {
        self.0.download(url, dest)
    }
}

/// A network mirror (the provider network mirror protocol): JSON indexes
/// under a base URL, `HOSTNAME/NAMESPACE/TYPE/index.json` listing versions
/// and `.../VERSION.json` listing each platform's archive and hashes.
pub struct HttpMirrorSource {
    http: Http,
    /// With a trailing slash.
    base: String,
    config: RegistryConfig,
}

impl HttpMirrorSource {
    pub fn new(base_url: &str, config: &RegistryConfig) -> HttpMirrorSource {
        let mut base = base_url.to_string();
        if !base.ends_with('/') {
            base.push('/');
        }
        HttpMirrorSource {
            http: Http::new(&config.http),
            base,
            config: config.clone(),
        }
    }

    fn failed(&self, provider: &Provider, message: String) -> SourceError {
        SourceError::QueryFailed {
            provider: provider.clone(),
            message,
            mirror_url: Some(self.base.clone()),
        }
    }

    /// GETs a JSON document: `Ok(None)` for 404.
    fn get(
        &self,
        provider: &Provider,
        url: &str,
    ) -> Result<Option<(serde_json::Value, String)>, SourceError> {
        let host = host_of(&self.base).split(':').next().unwrap_or("");
        let token = Hostname::for_comparison(host)
            .ok()
            .and_then(|h| self.config.token(&h))
            .map(|t| format!("Bearer {t}"));
        let mut headers = vec![("Accept", "application/json")];
        if let Some(t) = &token {
            headers.push(("Authorization", t.as_str()));
        }
        let resp = self
            .http
            .get_retrying(url, &headers, MAX_METADATA_BYTES)
            .map_err(|e| self.failed(provider, e))?;
        match resp.status {
            200 => {}
            404 => return Ok(None),
            401 | 403 => {
                return Err(SourceError::Unauthorized {
                    hostname: Hostname::for_comparison(host)
                        .unwrap_or_else(|_| provider.hostname().clone()),
                    have_credentials: token.is_some(),
                })
            }
            n => {
                return Err(
                    self.failed(provider, format!("server returned unsuccessful status {n}"))
                )
            }
        }
        let media = resp.content_type.split(';').next().unwrap_or("").trim();
        if media != "application/json" {
            return Err(self.failed(
                provider,
                "response has invalid Content-Type: must be application/json".into(),
            ));
        }
        serde_json::from_slice(&resp.body)
            .map(|v| Some((v, resp.url)))
            .map_err(|e| {
                self.failed(
                    provider,
                    format!("invalid response content from mirror server: {e}"),
                )
            })
    }

    fn prefix(&self, provider: &Provider) -> String {
        format!(
            "{}{}/{}/{}/",
            self.base,
            provider.hostname().as_str(),
            provider.namespace(),
            provider.type_name()
        )
    }
}

impl Source for HttpMirrorSource {
    fn available_versions(
        &self,
        provider: &Provider,
    ) -> Result<(Vec<Version>, Vec<String>), SourceError> {
        let url = format!("{}index.json", self.prefix(provider));
        let Some((body, _)) = self.get(provider, &url)? else {
            return Err(SourceError::ProviderNotFound {
                provider: provider.clone(),
                sources: vec![self.base.clone()],
            });
        };
        let mut versions = Vec::new();
        for raw in body["versions"]
            .as_object()
            .into_iter()
            .flat_map(|m| m.keys())
        {
            match Version::parse(raw) {
                Ok(v) => versions.push(v),
                // Versions the mirror cannot describe are skipped.
                Err(_) => continue,
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
        let url = format!("{}{version}.json", self.prefix(provider));
        let Some((body, final_url)) = self.get(provider, &url)? else {
            return Err(self.failed(
                provider,
                format!("provider mirror does not have archive index for previously-reported {provider} version {version}"),
            ));
        };
        let archive = &body["archives"][platform.to_string()];
        if !archive.is_object() {
            return Err(SourceError::platform_not_supported(
                provider,
                version,
                platform,
                Some(self.base.clone()),
            ));
        }
        let relative = archive["url"].as_str().unwrap_or_default();
        let download = resolve_url(&final_url, relative);
        let scheme = download.split("://").next().unwrap_or("");
        if scheme != "http" && scheme != "https" {
            return Err(self.failed(
                provider,
                format!(
                    "provider mirror returned invalid URL {}: unsupported scheme",
                    quote(relative)
                ),
            ));
        }
        let mut hashes = Vec::new();
        for h in archive["hashes"].as_array().into_iter().flatten() {
            let raw = h.as_str().unwrap_or_default();
            let hash = crate::hash::Hash::parse(raw).map_err(|e| {
                self.failed(
                    provider,
                    format!(
                        "provider mirror returned invalid provider hash {}: {e}",
                        quote(raw)
                    ),
                )
            })?;
            hashes.push(hash);
        }
        let filename = download.rsplit('/').next().unwrap_or_default().to_string();
        Ok(PackageMeta {
            provider: provider.clone(),
            version: version.clone(),
            protocol_versions: Vec::new(),
            target_platform: platform.clone(),
            filename,
            location: PackageLocation::HttpArchive(download),
            authentication: (!hashes.is_empty()).then_some(PackageAuthentication::Hashes(hashes)),
        })
    }

    fn for_display(&self, _provider: &Provider) -> String {
        self.base.clone()
    }
}

/// The network sources of the CLI configuration (`direct` and
/// `network_mirror`).
pub struct HttpRemoteSources(pub RegistryConfig);

impl RemoteSources for HttpRemoteSources {
    fn registry(&self, _retries: Option<i64>) -> Box<dyn Source> {
        Box::new(RegistrySource::new(self.0.clone()))
    }
    fn network_mirror(&self, url: &str, _retries: Option<i64>) -> Box<dyn Source> {
        Box::new(HttpMirrorSource::new(url, &self.0))
    }
}

#[cfg(test)]
mod tests;
