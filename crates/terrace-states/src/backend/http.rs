//! The `http` backend, as terraform's: the state is fetched with `GET
//! address` (200 with the state, or 204/404 for none), stored with
//! `update_method` (`POST`) to `address?ID=LOCK_ID` while locked, removed
//! with `DELETE`; the lock is taken with `lock_method` (`LOCK`) on
//! `lock_address` carrying the lock metadata as JSON (200: taken; 409 or
//! 423: held, the body being the holder's metadata) and released with
//! `unlock_method` (`UNLOCK`) on `unlock_address`. Failed requests are
//! retried `retry_max` times with exponential waits between
//! `retry_wait_min` and `retry_wait_max` seconds. Only the default
//! workspace exists.

use std::time::Duration;

use md5::Digest;
use terrace_gocompat::url::query_escape;

use super::aws::{send, Reply};
use super::lockinfo::{LockError, LockInfo};
use super::remote::RemoteStore;
use super::schema::Settings;
use super::DEFAULT_WORKSPACE;

pub struct HttpStore {
    agent: ureq::Agent,
    address: String,
    update_method: String,
    lock_address: Option<String>,
    lock_method: String,
    unlock_address: Option<String>,
    unlock_method: String,
    username: Option<String>,
    password: Option<String>,
    retry_max: u32,
    retry_wait_min: Duration,
    retry_wait_max: Duration,
    /// The lock held: its ID and the metadata sent.
    held: Option<(String, String)>,
}

fn url_setting(settings: &Settings<'_>, name: &str, env: &str) -> Result<Option<String>, String> {
    let Some(v) = settings.string(name, &[env]) else {
        return Ok(None);
    };
    let ok = v.starts_with("http://") || v.starts_with("https://");
    if !ok {
        return Err(format!(
            "failed to parse {name} URL: address must be absolute (http:// or https://): {v:?}"
        ));
    }
    Ok(Some(v))
}

/// A TLS configuration with the client certificate and CA the backend
/// names (PEM text).
fn tls_config(
    ca: Option<String>,
    cert: Option<String>,
    key: Option<String>,
    skip_verification: bool,
) -> Result<ureq::tls::TlsConfig, String> {
    use ureq::tls::{Certificate, ClientCert, PemItem, PrivateKey, RootCerts, TlsConfig};
    let mut builder = TlsConfig::builder();
    if skip_verification {
        builder = builder.disable_verification(true);
    }
    if let Some(ca) = ca {
        let mut roots = Vec::new();
        for item in ureq::tls::parse_pem(ca.as_bytes()) {
            if let Ok(PemItem::Certificate(c)) = item {
                roots.push(c);
            }
        }
        if roots.is_empty() {
            return Err(
                "failed to append certs: client_ca_certificate_pem holds no certificate"
                    .to_string(),
            );
        }
        builder = builder.root_certs(RootCerts::new_with_certs(&roots));
    }
    match (cert, key) {
        (None, None) => {}
        (Some(cert), Some(key)) => {
            let certs: Vec<Certificate<'static>> = ureq::tls::parse_pem(cert.as_bytes())
                .filter_map(|i| match i {
                    Ok(PemItem::Certificate(c)) => Some(c),
                    _ => None,
                })
                .collect();
            let key = PrivateKey::from_pem(key.as_bytes())
                .map_err(|e| format!("cannot load client private key: {e}"))?;
            if certs.is_empty() {
                return Err(
                    "cannot load client certificate: no certificate in client_certificate_pem"
                        .to_string(),
                );
            }
            builder = builder.client_cert(Some(ClientCert::new_with_certs(&certs, key)));
        }
        _ => {
            return Err(
                "client_certificate_pem and client_private_key_pem must be set together"
                    .to_string(),
            )
        }
    }
    Ok(builder.build())
}

impl HttpStore {
    pub fn configure(settings: &Settings<'_>) -> Result<HttpStore, String> {
        let address = url_setting(settings, "address", "TF_HTTP_ADDRESS")?
            .ok_or("address: the HTTP URL of the state is required")?;
        let tls = tls_config(
            settings.string(
                "client_ca_certificate_pem",
                &["TF_HTTP_CLIENT_CA_CERTIFICATE_PEM"],
            ),
            settings.string(
                "client_certificate_pem",
                &["TF_HTTP_CLIENT_CERTIFICATE_PEM"],
            ),
            settings.string(
                "client_private_key_pem",
                &["TF_HTTP_CLIENT_PRIVATE_KEY_PEM"],
            ),
            settings
                .bool("skip_cert_verification", &[])?
                .unwrap_or(false),
        )?;
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .allow_non_standard_methods(true)
            .timeout_connect(Some(Duration::from_secs(30)))
            .timeout_global(Some(Duration::from_secs(300)))
            .tls_config(tls)
            .build()
            .new_agent();
        let seconds = |name: &str, env: &str, default: i64| -> Result<Duration, String> {
            let n = settings.integer(name, &[env])?.unwrap_or(default);
            Ok(Duration::from_secs(n.max(0) as u64))
        };
        Ok(HttpStore {
            agent,
            address,
            update_method: settings
                .string("update_method", &["TF_HTTP_UPDATE_METHOD"])
                .unwrap_or_else(|| "POST".to_string()),
            lock_address: url_setting(settings, "lock_address", "TF_HTTP_LOCK_ADDRESS")?,
            lock_method: settings
                .string("lock_method", &["TF_HTTP_LOCK_METHOD"])
                .unwrap_or_else(|| "LOCK".to_string()),
            unlock_address: url_setting(settings, "unlock_address", "TF_HTTP_UNLOCK_ADDRESS")?,
            unlock_method: settings
                .string("unlock_method", &["TF_HTTP_UNLOCK_METHOD"])
                .unwrap_or_else(|| "UNLOCK".to_string()),
            username: settings.string("username", &["TF_HTTP_USERNAME"]),
            password: settings.string("password", &["TF_HTTP_PASSWORD"]),
            retry_max: settings
                .integer("retry_max", &["TF_HTTP_RETRY_MAX"])?
                .unwrap_or(2)
                .max(0) as u32,
            retry_wait_min: seconds("retry_wait_min", "TF_HTTP_RETRY_WAIT_MIN", 1)?,
            retry_wait_max: seconds("retry_wait_max", "TF_HTTP_RETRY_WAIT_MAX", 30)?,
            held: None,
        })
    }

    /// One request with the backend's headers and retries: a transport
    /// failure or a 5xx answer (other than 501) is retried.
    fn request(&self, method: &str, url: &str, body: &[u8], what: &str) -> Result<Reply, String> {
        use base64::Engine;
        let b64 = base64::engine::general_purpose::STANDARD;
        let mut headers = Vec::new();
        if let Some(user) = &self.username {
            let pair = format!("{user}:{}", self.password.as_deref().unwrap_or(""));
            headers.push((
                "authorization".to_string(),
                format!("Basic {}", b64.encode(pair)),
            ));
        }
        if !body.is_empty() {
            headers.push(("content-type".to_string(), "application/json".to_string()));
            headers.push((
                "content-md5".to_string(),
                b64.encode(md5::Md5::digest(body)),
            ));
        }
        let mut attempt = 0u32;
        loop {
            let result = send(&self.agent, method, url, &headers, body);
            let retry = match &result {
                Err(_) => true,
                Ok(r) => r.status == 0 || (r.status >= 500 && r.status != 501),
            };
            if !retry || attempt >= self.retry_max {
                return match result {
                    Ok(r) => Ok(r),
                    Err(e) if self.retry_max > 0 => Err(format!(
                        "Failed to {what}: {method} {url} giving up after {} attempt(s): {e}",
                        attempt + 1
                    )),
                    Err(e) => Err(format!("Failed to {what}: {e}")),
                };
            }
            let wait = self
                .retry_wait_min
                .saturating_mul(1u32 << attempt.min(16))
                .min(self.retry_wait_max);
            std::thread::sleep(wait);
            attempt += 1;
        }
    }
}

impl RemoteStore for HttpStore {
    fn type_name(&self) -> &'static str {
        "http"
    }

    fn workspaces(&mut self) -> Result<Vec<String>, String> {
        Ok(vec![DEFAULT_WORKSPACE.to_string()])
    }

    fn get(&mut self, workspace: &str) -> Result<Option<Vec<u8>>, String> {
        only_default(workspace)?;
        let reply = self.request("GET", &self.address, &[], "get state")?;
        match reply.status {
            200 => {}
            204 | 404 => return Ok(None),
            401 => return Err("HTTP remote state endpoint requires auth".to_string()),
            403 => return Err("HTTP remote state endpoint invalid auth".to_string()),
            500 => return Err("HTTP remote state internal server error".to_string()),
            other => return Err(format!("Unexpected HTTP response code {other}")),
        }
        if reply.body.is_empty() {
            return Ok(None);
        }
        if let Some(raw) = reply.header("content-md5") {
            use base64::Engine;
            let want = base64::engine::general_purpose::STANDARD
                .decode(raw.as_bytes())
                .map_err(|e| format!("Failed to decode Content-MD5 '{raw}': {e}"))?;
            if want != md5::Md5::digest(&reply.body).to_vec() {
                return Err("the state received does not match its Content-MD5".to_string());
            }
        }
        Ok(Some(reply.body))
    }

    fn put(&mut self, workspace: &str, bytes: &[u8]) -> Result<(), String> {
        only_default(workspace)?;
        let url = match &self.held {
            Some((id, _)) => {
                let separator = if self.address.contains('?') { '&' } else { '?' };
                format!("{}{separator}ID={}", self.address, query_escape(id))
            }
            None => self.address.clone(),
        };
        let reply = self.request(&self.update_method, &url, bytes, "upload state")?;
        match reply.status {
            200 | 201 | 204 => Ok(()),
            other => Err(format!("HTTP error: {other}")),
        }
    }

    fn delete(&mut self, workspace: &str) -> Result<(), String> {
        only_default(workspace)?;
        let reply = self.request("DELETE", &self.address, &[], "delete state")?;
        match reply.status {
            200 => Ok(()),
            other => Err(format!("HTTP error: {other}")),
        }
    }

    fn lock(&mut self, _workspace: &str, info: &mut LockInfo) -> Result<(), LockError> {
        let Some(url) = self.lock_address.clone() else {
            return Ok(());
        };
        self.held = None;
        let body = info.to_json();
        let failed = |message: String| LockError {
            message,
            info: None,
        };
        let reply = self
            .request(&self.lock_method, &url, body.as_bytes(), "lock")
            .map_err(failed)?;
        match reply.status {
            200 => {
                self.held = Some((info.id.clone(), body));
                Ok(())
            }
            401 => Err(failed(
                "HTTP remote state endpoint requires auth".to_string(),
            )),
            403 => Err(failed(
                "HTTP remote state endpoint invalid auth".to_string(),
            )),
            // The holder's ID goes in the message; the metadata shown is
            // this attempt's own, as terraform shows it for this backend.
            409 | 423 => match LockInfo::from_json(&reply.body) {
                Ok(existing) => Err(LockError {
                    message: format!("HTTP remote state already locked: ID={}", existing.id),
                    info: Some(Box::new(info.clone())),
                }),
                Err(_) => Err(LockError {
                    message: "HTTP remote state already locked, failed to unmarshal body"
                        .to_string(),
                    info: Some(Box::new(info.clone())),
                }),
            },
            other => Err(failed(format!("Unexpected HTTP response code {other}"))),
        }
    }

    fn unlock(&mut self, _workspace: &str, id: &str) -> Result<(), LockError> {
        let Some(url) = self.unlock_address.clone() else {
            return Ok(());
        };
        let mut info = match &self.held {
            Some((held_id, json)) => {
                let info = LockInfo::from_json(json.as_bytes()).unwrap_or_default();
                if held_id != id {
                    return Err(LockError {
                        message: format!("lock id {id:?} does not match existing lock"),
                        info: Some(Box::new(info)),
                    });
                }
                info
            }
            None => LockInfo::default(),
        };
        info.id = id.to_string();
        let reply = self
            .request(
                &self.unlock_method,
                &url,
                info.to_json().as_bytes(),
                "unlock",
            )
            .map_err(|message| LockError {
                message,
                info: None,
            })?;
        match reply.status {
            200 => {
                self.held = None;
                Ok(())
            }
            other => Err(LockError {
                message: format!("Unexpected HTTP response code {other}"),
                info: None,
            }),
        }
    }

    fn location(&self, _workspace: &str) -> String {
        self.address.clone()
    }
}

fn only_default(workspace: &str) -> Result<(), String> {
    if workspace == DEFAULT_WORKSPACE {
        Ok(())
    } else {
        Err("workspaces not supported".to_string())
    }
}
