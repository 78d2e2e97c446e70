//! What the `s3` backend and the `aws_kms` key provider need of AWS besides
//! S3 itself: credentials (configuration, the environment variables and
//! shared credentials file the AWS SDKs read, an assumed role through
//! STS), and signed calls to the JSON APIs (DynamoDB, KMS) and to STS's
//! query API. Requests are signed by the `aws-sigv4` crate.

use std::time::{Duration, SystemTime};

use aws_credential_types::Credentials as SdkCredentials;
use aws_sigv4::http_request::{sign, SignableBody, SignableRequest, SigningSettings};
use aws_sigv4::sign::v4;

/// Static or temporary AWS credentials.
#[derive(Clone, Debug)]
pub struct Credentials {
    pub access_key: String,
    pub secret_key: String,
    pub token: Option<String>,
}

/// An HTTP client: ureq with statuses as data, not errors.
pub fn agent(insecure: bool) -> ureq::Agent {
    let mut tls = ureq::tls::TlsConfig::builder();
    if insecure {
        tls = tls.disable_verification(true);
    }
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .allow_non_standard_methods(true)
        .timeout_connect(Some(Duration::from_secs(30)))
        .timeout_global(Some(Duration::from_secs(300)))
        .tls_config(tls.build())
        .build()
        .new_agent()
}

/// A response: status, headers and body.
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Sends one request; the error is Go's kind of transport message.
pub fn send(
    agent: &ureq::Agent,
    method: &str,
    url: &str,
    headers: &[(String, String)],
    body: &[u8],
) -> Result<Reply, String> {
    let method_value = ureq::http::Method::from_bytes(method.as_bytes())
        .map_err(|e| format!("invalid method {method:?}: {e}"))?;
    let mut builder = ureq::http::Request::builder().method(method_value).uri(url);
    for (name, value) in headers {
        builder = builder.header(name.as_str(), value.as_str());
    }
    let request = builder
        .body(body.to_vec())
        .map_err(|e| format!("{method} {url}: {e}"))?;
    let mut response = agent
        .run(request)
        .map_err(|e| format!("{method} {url}: {}", transport_error(&e)))?;
    let status = response.status().as_u16();
    let headers = response
        .headers()
        .iter()
        .map(|(n, v)| {
            (
                n.as_str().to_string(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect();
    let body = response
        .body_mut()
        .with_config()
        .limit(512 * 1024 * 1024)
        .read_to_vec()
        .map_err(|e| format!("{method} {url}: reading the response: {e}"))?;
    Ok(Reply {
        status,
        headers,
        body,
    })
}

fn transport_error(e: &ureq::Error) -> String {
    match e {
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
            "connect: connection refused".to_string()
        }
        other => other.to_string(),
    }
}

/// Signs a request with SigV4 for `service` in `region`; the headers to
/// add.
pub fn sign_headers(
    creds: &Credentials,
    region: &str,
    service: &str,
    method: &str,
    url: &str,
    headers: &[(String, String)],
    body: &[u8],
) -> Result<Vec<(String, String)>, String> {
    let identity = SdkCredentials::new(
        creds.access_key.clone(),
        creds.secret_key.clone(),
        creds.token.clone(),
        None,
        "terrace",
    )
    .into();
    let params = v4::SigningParams::builder()
        .identity(&identity)
        .region(region)
        .name(service)
        .time(SystemTime::now())
        .settings(SigningSettings::default())
        .build()
        .map_err(|e| format!("signing the request: {e}"))?
        .into();
    let signable = SignableRequest::new(
        method,
        url,
        headers.iter().map(|(n, v)| (n.as_str(), v.as_str())),
        SignableBody::Bytes(body),
    )
    .map_err(|e| format!("signing the request: {e}"))?;
    let (instructions, _) = sign(signable, &params)
        .map_err(|e| format!("signing the request: {e}"))?
        .into_parts();
    Ok(instructions
        .headers()
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect())
}

/// A signed call to an AWS JSON API (`DynamoDB_20120810.PutItem`,
/// `TrentService.Decrypt`): the reply's JSON, or the error as the Go SDK
/// words it (`operation error DynamoDB: PutItem, https response error
/// StatusCode: 400, ConditionalCheckFailedException: ...`).
pub struct JsonApi {
    pub agent: ureq::Agent,
    pub endpoint: String,
    pub region: String,
    pub credentials: Credentials,
    /// Signing name (`dynamodb`, `kms`).
    pub service: &'static str,
    /// How errors name the service (`DynamoDB`, `KMS`).
    pub display: &'static str,
    /// `application/x-amz-json-1.0` or `-1.1`.
    pub content_type: &'static str,
    pub target_prefix: &'static str,
}

/// A failed AWS call: the error code (`ConditionalCheckFailedException`)
/// when the service gave one, and the whole message.
#[derive(Debug, Clone)]
pub struct ApiError {
    pub code: String,
    pub message: String,
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl JsonApi {
    pub fn call(
        &self,
        operation: &str,
        request: &serde_json::Value,
    ) -> Result<serde_json::Value, ApiError> {
        let body = request.to_string().into_bytes();
        let url = format!("{}/", self.endpoint.trim_end_matches('/'));
        let host = host_of(&url);
        let mut headers = vec![
            ("host".to_string(), host),
            ("content-type".to_string(), self.content_type.to_string()),
            (
                "x-amz-target".to_string(),
                format!("{}.{operation}", self.target_prefix),
            ),
        ];
        let failed = |message: String| ApiError {
            code: String::new(),
            message: format!("operation error {}: {operation}, {message}", self.display),
        };
        let signed = sign_headers(
            &self.credentials,
            &self.region,
            self.service,
            "POST",
            &url,
            &headers,
            &body,
        )
        .map_err(failed)?;
        headers.extend(signed);
        let reply = send(&self.agent, "POST", &url, &headers, &body).map_err(failed)?;
        let json: serde_json::Value = if reply.body.is_empty() {
            serde_json::Value::Null
        } else {
            serde_json::from_slice(&reply.body).unwrap_or(serde_json::Value::Null)
        };
        if (200..300).contains(&reply.status) {
            return Ok(json);
        }
        let code = json["__type"]
            .as_str()
            .map(|t| t.rsplit('#').next().unwrap_or(t).to_string())
            .unwrap_or_default();
        let text = json["message"]
            .as_str()
            .or_else(|| json["Message"].as_str())
            .unwrap_or_default();
        Err(ApiError {
            message: format!(
                "operation error {}: {operation}, https response error StatusCode: {}, api error {code}: {text}",
                self.display, reply.status
            ),
            code,
        })
    }
}

/// `host[:port]` of a URL, as the `Host` header carries it.
pub fn host_of(url: &str) -> String {
    let rest = url.split_once("://").map(|(_, r)| r).unwrap_or(url);
    rest.split('/').next().unwrap_or_default().to_string()
}

/// The text of the first `<name>` element in an XML document.
pub fn xml_text(xml: &str, name: &str) -> Option<String> {
    let open = format!("<{name}>");
    let close = format!("</{name}>");
    let start = xml.find(&open)? + open.len();
    let end = xml[start..].find(&close)? + start;
    Some(
        xml[start..end]
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&apos;", "'")
            .replace("&amp;", "&"),
    )
}

/// The credentials of a profile in an AWS shared credentials file.
pub fn profile_credentials(text: &str, profile: &str) -> Option<Credentials> {
    let mut in_profile = false;
    let mut access = None;
    let mut secret = None;
    let mut token = None;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') && line.ends_with(']') {
            let name = line[1..line.len() - 1].trim();
            let name = name.strip_prefix("profile ").unwrap_or(name).trim();
            in_profile = name == profile;
            continue;
        }
        if !in_profile || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some((k, v)) = line.split_once('=') {
            let v = v.trim().to_string();
            match k.trim() {
                "aws_access_key_id" => access = Some(v),
                "aws_secret_access_key" => secret = Some(v),
                "aws_session_token" => token = Some(v),
                _ => {}
            }
        }
    }
    Some(Credentials {
        access_key: access?,
        secret_key: secret?,
        token,
    })
}

/// Percent-encoding for a form body (`application/x-www-form-urlencoded`).
fn form_encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// What `assume_role` asks STS for.
pub struct AssumeRole {
    pub role_arn: String,
    pub session_name: Option<String>,
    pub external_id: Option<String>,
    pub duration_seconds: Option<u64>,
    pub policy: Option<String>,
    pub policy_arns: Vec<String>,
    pub source_identity: Option<String>,
    pub tags: Vec<(String, String)>,
    pub transitive_tag_keys: Vec<String>,
}

/// STS `AssumeRole` with `base` credentials: the role's temporary ones.
pub fn assume_role(
    agent: &ureq::Agent,
    endpoint: &str,
    region: &str,
    base: &Credentials,
    role: &AssumeRole,
) -> Result<Credentials, String> {
    let mut params: Vec<(String, String)> = vec![
        ("Action".into(), "AssumeRole".into()),
        ("Version".into(), "2011-06-15".into()),
        ("RoleArn".into(), role.role_arn.clone()),
        (
            "RoleSessionName".into(),
            role.session_name
                .clone()
                .unwrap_or_else(|| format!("{}-session", terrace_syntax::PRODUCT)),
        ),
    ];
    if let Some(id) = &role.external_id {
        params.push(("ExternalId".into(), id.clone()));
    }
    if let Some(d) = role.duration_seconds {
        params.push(("DurationSeconds".into(), d.to_string()));
    }
    if let Some(p) = &role.policy {
        params.push(("Policy".into(), p.clone()));
    }
    for (i, arn) in role.policy_arns.iter().enumerate() {
        params.push((format!("PolicyArns.member.{}.arn", i + 1), arn.clone()));
    }
    if let Some(s) = &role.source_identity {
        params.push(("SourceIdentity".into(), s.clone()));
    }
    for (i, (k, v)) in role.tags.iter().enumerate() {
        params.push((format!("Tags.member.{}.Key", i + 1), k.clone()));
        params.push((format!("Tags.member.{}.Value", i + 1), v.clone()));
    }
    for (i, k) in role.transitive_tag_keys.iter().enumerate() {
        params.push((format!("TransitiveTagKeys.member.{}", i + 1), k.clone()));
    }
    let body: String = params
        .iter()
        .map(|(k, v)| format!("{}={}", form_encode(k), form_encode(v)))
        .collect::<Vec<_>>()
        .join("&");
    let url = format!("{}/", endpoint.trim_end_matches('/'));
    let mut headers = vec![
        ("host".to_string(), host_of(&url)),
        (
            "content-type".to_string(),
            "application/x-www-form-urlencoded; charset=utf-8".to_string(),
        ),
    ];
    let failed = |e: String| {
        format!(
            "IAM Role ({}) cannot be assumed: operation error STS: AssumeRole, {e}",
            role.role_arn
        )
    };
    let signed = sign_headers(base, region, "sts", "POST", &url, &headers, body.as_bytes())
        .map_err(failed)?;
    headers.extend(signed);
    let reply = send(agent, "POST", &url, &headers, body.as_bytes()).map_err(failed)?;
    let text = String::from_utf8_lossy(&reply.body);
    if !(200..300).contains(&reply.status) {
        return Err(failed(format!(
            "https response error StatusCode: {}, api error {}: {}",
            reply.status,
            xml_text(&text, "Code").unwrap_or_default(),
            xml_text(&text, "Message").unwrap_or_default()
        )));
    }
    let found = (|| {
        Some(Credentials {
            access_key: xml_text(&text, "AccessKeyId")?,
            secret_key: xml_text(&text, "SecretAccessKey")?,
            token: xml_text(&text, "SessionToken"),
        })
    })();
    found.ok_or_else(|| failed("the response holds no credentials".to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_credentials_profiles() {
        let text = "[default]\naws_access_key_id = A\naws_secret_access_key = B\n\n[other]\naws_access_key_id=C\naws_secret_access_key=D\naws_session_token=E\n";
        let d = profile_credentials(text, "default").unwrap();
        assert_eq!((d.access_key.as_str(), d.secret_key.as_str()), ("A", "B"));
        let o = profile_credentials(text, "other").unwrap();
        assert_eq!(o.token.as_deref(), Some("E"));
        assert!(profile_credentials(text, "missing").is_none());
    }

    #[test]
    fn xml_elements() {
        let xml = "<R><Code>NoSuchKey</Code><Message>a &amp; b</Message></R>";
        assert_eq!(xml_text(xml, "Code").as_deref(), Some("NoSuchKey"));
        assert_eq!(xml_text(xml, "Message").as_deref(), Some("a & b"));
        assert_eq!(xml_text(xml, "Other"), None);
        assert_eq!(form_encode("a b/c"), "a%20b%2Fc");
    }
}
