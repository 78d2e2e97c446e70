//! The `s3` backend, as terraform's: the default workspace's state at
//! `key`, others at `workspace_key_prefix/NAME/key` (prefix `env:`), and
//! two lock schemes that can be used together:
//! - `use_lockfile`: an object `KEY.tflock` holding the lock metadata,
//!   created with S3's conditional write (`If-None-Match: *`), so only one
//!   writer can create it;
//! - `dynamodb_table`: an item `{LockID: "BUCKET/KEY", Info: ...}` put
//!   only if absent, plus the item `BUCKET/KEY-md5` holding the MD5 of the
//!   last state written, which a reader compares with what it got to
//!   notice a stale read.
//!
//! S3 requests are presigned by the `rusty-s3` crate and sent with ureq;
//! DynamoDB and STS calls go through [`super::aws`].

use std::time::{Duration, Instant};

use md5::Digest;
use rusty_s3::actions::{ListObjectsV2, S3Action};
use rusty_s3::{Bucket, UrlStyle};
use serde_json::json;
use terrace_gocompat::url::query_unescape_lenient;

use super::aws::{self, Credentials, JsonApi};
use super::lockinfo::{multierror, LockError, LockInfo};
use super::remote::RemoteStore;
use super::schema::Settings;
use super::DEFAULT_WORKSPACE;

const LOCK_FILE_SUFFIX: &str = ".tflock";
const DIGEST_SUFFIX: &str = "-md5";
const DEFAULT_WORKSPACE_KEY_PREFIX: &str = "env:";
/// How long a read whose digest disagrees with DynamoDB's is retried: S3
/// may serve an older object for a moment after a write.
const CONSISTENCY_RETRY: Duration = Duration::from_secs(10);
const CONSISTENCY_POLL: Duration = Duration::from_secs(2);
const SIGNATURE_VALIDITY: Duration = Duration::from_secs(900);

pub struct S3Store {
    agent: ureq::Agent,
    bucket: Bucket,
    bucket_name: String,
    key: String,
    workspace_key_prefix: String,
    credentials: rusty_s3::Credentials,
    encrypt: bool,
    kms_key_id: Option<String>,
    sse_customer_key: Option<Vec<u8>>,
    acl: Option<String>,
    skip_checksum: bool,
    use_lockfile: bool,
    dynamodb: Option<(JsonApi, String)>,
}

/// An S3 error reply: its code and message.
struct S3Error {
    status: u16,
    code: String,
    message: String,
}

impl S3Error {
    fn describe(&self, operation: &str) -> String {
        format!(
            "operation error S3: {operation}, https response error StatusCode: {}, api error {}: {}",
            self.status, self.code, self.message
        )
    }
}

fn endpoint(settings: &Settings<'_>, service: &str, legacy: &str, env: &[&str]) -> Option<String> {
    settings
        .nested_string("endpoints", service)
        .or_else(|| settings.string(legacy, env))
        .or_else(|| settings.string("", &["AWS_ENDPOINT_URL"]))
}

/// The credentials the configuration names, else the environment's, else
/// the shared credentials file's profile.
fn base_credentials(settings: &Settings<'_>) -> Result<Credentials, String> {
    let access = settings.string("access_key", &[]);
    let secret = settings.string("secret_key", &[]);
    if let (Some(access_key), Some(secret_key)) = (access, secret) {
        return Ok(Credentials {
            access_key,
            secret_key,
            token: settings.string("token", &[]),
        });
    }
    let profile = settings.string("profile", &["AWS_PROFILE"]);
    if profile.is_none() {
        if let (Some(access_key), Some(secret_key)) = (
            settings.string("", &["AWS_ACCESS_KEY_ID"]),
            settings.string("", &["AWS_SECRET_ACCESS_KEY"]),
        ) {
            return Ok(Credentials {
                access_key,
                secret_key,
                token: settings.string("", &["AWS_SESSION_TOKEN"]),
            });
        }
    }
    let profile = profile.unwrap_or_else(|| "default".to_string());
    let mut files = settings.string_list("shared_credentials_files");
    if let Some(f) = settings.string("shared_credentials_file", &["AWS_SHARED_CREDENTIALS_FILE"]) {
        files.push(f);
    }
    if files.is_empty() {
        if let Some(home) = settings.string("", &["HOME"]) {
            files.push(format!("{home}/.aws/credentials"));
        }
    }
    for file in &files {
        let path = match file.strip_prefix("~/") {
            Some(rest) => match settings.string("", &["HOME"]) {
                Some(home) => format!("{home}/{rest}"),
                None => file.clone(),
            },
            None => file.clone(),
        };
        if let Ok(text) = std::fs::read_to_string(&path) {
            if let Some(found) = aws::profile_credentials(&text, &profile) {
                return Ok(found);
            }
        }
    }
    Err("No valid credential sources found: set access_key and secret_key, the AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY environment variables, or a profile in the shared credentials file".to_string())
}

impl S3Store {
    pub fn configure(settings: &Settings<'_>) -> Result<S3Store, String> {
        let bucket_name = settings
            .string("bucket", &[])
            .ok_or("bucket: the name of the S3 bucket is required")?;
        let key = settings
            .string("key", &[])
            .ok_or("key: the path to the state file inside the bucket is required")?;
        if key.starts_with('/') || key.ends_with('/') {
            return Err(format!(
                "key: the value must not start or end with \"/\", got {key:?}"
            ));
        }
        let region = settings
            .string("region", &["AWS_REGION", "AWS_DEFAULT_REGION"])
            .ok_or("The \"region\" attribute or the \"AWS_REGION\" or \"AWS_DEFAULT_REGION\" environment variables must be set.")?;
        let workspace_key_prefix = match settings
            .config
            .as_attributes()
            .and_then(|a| a.get("workspace_key_prefix"))
            .and_then(|v| v.as_str())
        {
            Some(p) => p.to_string(),
            None => DEFAULT_WORKSPACE_KEY_PREFIX.to_string(),
        };
        if workspace_key_prefix.starts_with('/') || workspace_key_prefix.ends_with('/') {
            return Err(format!(
                "workspace_key_prefix: the value must not start or end with \"/\", got {workspace_key_prefix:?}"
            ));
        }
        let insecure = settings.bool("insecure", &[])?.unwrap_or(false);
        let agent = aws::agent(insecure);
        let mut credentials = base_credentials(settings)?;
        let sts_endpoint = endpoint(
            settings,
            "sts",
            "sts_endpoint",
            &["AWS_ENDPOINT_URL_STS", "AWS_STS_ENDPOINT"],
        );
        if let Some(role_arn) = settings.nested_string("assume_role", "role_arn") {
            let sts_region = settings.string("sts_region", &[]).unwrap_or(region.clone());
            let endpoint = sts_endpoint
                .clone()
                .unwrap_or_else(|| format!("https://sts.{sts_region}.amazonaws.com"));
            let object = settings
                .config
                .as_attributes()
                .and_then(|a| a.get("assume_role"))
                .and_then(|v| v.as_attributes());
            let list = |name: &str| -> Vec<String> {
                object
                    .and_then(|o| o.get(name))
                    .and_then(|v| v.as_elements())
                    .map(|e| {
                        e.iter()
                            .filter_map(|x| x.as_str().map(str::to_string))
                            .collect()
                    })
                    .unwrap_or_default()
            };
            let tags = object
                .and_then(|o| o.get("tags"))
                .and_then(|v| v.as_attributes())
                .map(|m| {
                    m.iter()
                        .filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_string())))
                        .collect()
                })
                .unwrap_or_default();
            let duration_seconds =
                match settings.nested_string("assume_role", "duration") {
                    Some(text) => Some(parse_go_duration(&text).ok_or_else(|| {
                        format!("assume_role.duration: {text:?} is not a duration")
                    })?),
                    None => None,
                };
            let role = aws::AssumeRole {
                role_arn,
                session_name: settings.nested_string("assume_role", "session_name"),
                external_id: settings.nested_string("assume_role", "external_id"),
                duration_seconds,
                policy: settings.nested_string("assume_role", "policy"),
                policy_arns: list("policy_arns"),
                source_identity: settings.nested_string("assume_role", "source_identity"),
                tags,
                transitive_tag_keys: list("transitive_tag_keys"),
            };
            credentials = aws::assume_role(&agent, &endpoint, &sts_region, &credentials, &role)?;
        }
        let s3_endpoint = endpoint(
            settings,
            "s3",
            "endpoint",
            &["AWS_ENDPOINT_URL_S3", "AWS_S3_ENDPOINT"],
        )
        .unwrap_or_else(|| format!("https://s3.{region}.amazonaws.com"));
        let path_style = settings.bool("use_path_style", &[])?.unwrap_or(false)
            || settings.bool("force_path_style", &[])?.unwrap_or(false);
        let url: url::Url = s3_endpoint
            .parse()
            .map_err(|e| format!("endpoints.s3: {s3_endpoint:?} is not a URL: {e}"))?;
        let bucket = Bucket::new(
            url,
            if path_style {
                UrlStyle::Path
            } else {
                UrlStyle::VirtualHost
            },
            bucket_name.clone(),
            region.clone(),
        )
        .map_err(|e| format!("bucket {bucket_name:?}: {e}"))?;
        let kms_key_id = settings.string("kms_key_id", &[]);
        let sse_customer_key = match settings.string("sse_customer_key", &["AWS_SSE_CUSTOMER_KEY"])
        {
            Some(text) => {
                use base64::Engine;
                if kms_key_id.is_some() {
                    return Err(
                        "Only one of \"kms_key_id\" and \"sse_customer_key\" can be set."
                            .to_string(),
                    );
                }
                let key = base64::engine::general_purpose::STANDARD
                    .decode(text.as_bytes())
                    .map_err(|e| format!("sse_customer_key must be base64 encoded: {e}"))?;
                if key.len() != 32 {
                    return Err("sse_customer_key must be 44 characters in length".to_string());
                }
                Some(key)
            }
            None => None,
        };
        let dynamodb = match settings.string("dynamodb_table", &[]) {
            Some(table) => {
                let endpoint = endpoint(
                    settings,
                    "dynamodb",
                    "dynamodb_endpoint",
                    &["AWS_ENDPOINT_URL_DYNAMODB", "AWS_DYNAMODB_ENDPOINT"],
                )
                .unwrap_or_else(|| format!("https://dynamodb.{region}.amazonaws.com"));
                Some((
                    JsonApi {
                        agent: agent.clone(),
                        endpoint,
                        region: region.clone(),
                        credentials: credentials.clone(),
                        service: "dynamodb",
                        display: "DynamoDB",
                        content_type: "application/x-amz-json-1.0",
                        target_prefix: "DynamoDB_20120810",
                    },
                    table,
                ))
            }
            None => None,
        };
        let s3_credentials = match &credentials.token {
            Some(token) => rusty_s3::Credentials::new_with_token(
                credentials.access_key.clone(),
                credentials.secret_key.clone(),
                token.clone(),
            ),
            None => rusty_s3::Credentials::new(
                credentials.access_key.clone(),
                credentials.secret_key.clone(),
            ),
        };
        Ok(S3Store {
            agent,
            bucket,
            bucket_name,
            key,
            workspace_key_prefix,
            credentials: s3_credentials,
            encrypt: settings.bool("encrypt", &[])?.unwrap_or(false),
            kms_key_id,
            sse_customer_key,
            acl: settings.string("acl", &[]),
            skip_checksum: settings.bool("skip_s3_checksum", &[])?.unwrap_or(false),
            use_lockfile: settings.bool("use_lockfile", &[])?.unwrap_or(false),
            dynamodb,
        })
    }

    /// The object key of a workspace's state.
    fn path(&self, workspace: &str) -> String {
        if workspace == DEFAULT_WORKSPACE {
            return self.key.clone();
        }
        let joined = [self.workspace_key_prefix.as_str(), workspace, &self.key]
            .iter()
            .filter(|s| !s.is_empty())
            .copied()
            .collect::<Vec<_>>()
            .join("/");
        clean_path(&joined)
    }

    /// `BUCKET/KEY`: what both lock schemes name a workspace's lock by.
    fn lock_path(&self, workspace: &str) -> String {
        format!("{}/{}", self.bucket_name, self.path(workspace))
    }

    fn sse_customer_headers(&self) -> Vec<(String, String)> {
        use base64::Engine;
        let Some(key) = &self.sse_customer_key else {
            return Vec::new();
        };
        let b64 = base64::engine::general_purpose::STANDARD;
        vec![
            (
                "x-amz-server-side-encryption-customer-algorithm".into(),
                "AES256".into(),
            ),
            (
                "x-amz-server-side-encryption-customer-key".into(),
                b64.encode(key),
            ),
            (
                "x-amz-server-side-encryption-customer-key-md5".into(),
                b64.encode(md5::Md5::digest(key)),
            ),
        ]
    }

    /// Sends a presigned S3 request with `headers` signed into it.
    fn request<'a, A: S3Action<'a>>(
        &self,
        mut action: A,
        method: &str,
        headers: Vec<(String, String)>,
        body: &[u8],
    ) -> Result<aws::Reply, String> {
        for (name, value) in &headers {
            action.headers_mut().insert(name.clone(), value.clone());
        }
        let url = action.sign(SIGNATURE_VALIDITY);
        aws::send(&self.agent, method, url.as_str(), &headers, body)
    }

    fn error_of(reply: &aws::Reply) -> S3Error {
        let text = String::from_utf8_lossy(&reply.body);
        S3Error {
            status: reply.status,
            code: aws::xml_text(&text, "Code").unwrap_or_else(|| match reply.status {
                404 => "NotFound".to_string(),
                412 => "PreconditionFailed".to_string(),
                _ => String::new(),
            }),
            message: aws::xml_text(&text, "Message").unwrap_or_default(),
        }
    }

    fn get_object(&self, key: &str) -> Result<Option<Vec<u8>>, String> {
        let action = self.bucket.get_object(Some(&self.credentials), key);
        let reply = self.request(action, "GET", self.sse_customer_headers(), &[])?;
        match reply.status {
            200..=299 => Ok(Some(reply.body)),
            _ => {
                let e = Self::error_of(&reply);
                if e.code == "NoSuchBucket" {
                    return Err(format!(
                        "S3 bucket {:?} does not exist: {}",
                        self.bucket_name,
                        e.describe("GetObject")
                    ));
                }
                if e.status == 404 {
                    return Ok(None);
                }
                Err(e.describe("GetObject"))
            }
        }
    }

    fn put_object(&self, key: &str, body: &[u8], if_none_match: bool) -> Result<(), S3Error> {
        use base64::Engine;
        let action = self.bucket.put_object(Some(&self.credentials), key);
        let mut headers = vec![("content-type".to_string(), "application/json".to_string())];
        if !self.skip_checksum {
            let sum = sha2::Sha256::digest(body);
            headers.push((
                "x-amz-checksum-sha256".to_string(),
                base64::engine::general_purpose::STANDARD.encode(sum),
            ));
        }
        if self.sse_customer_key.is_some() {
            headers.extend(self.sse_customer_headers());
        } else if self.encrypt {
            match &self.kms_key_id {
                Some(kms) => {
                    headers.push(("x-amz-server-side-encryption".into(), "aws:kms".into()));
                    headers.push((
                        "x-amz-server-side-encryption-aws-kms-key-id".into(),
                        kms.clone(),
                    ));
                }
                None => headers.push(("x-amz-server-side-encryption".into(), "AES256".into())),
            }
        }
        if let Some(acl) = &self.acl {
            headers.push(("x-amz-acl".into(), acl.clone()));
        }
        if if_none_match {
            headers.push(("if-none-match".into(), "*".into()));
        }
        let reply = self
            .request(action, "PUT", headers, body)
            .map_err(|message| S3Error {
                status: 0,
                code: String::new(),
                message,
            })?;
        if (200..300).contains(&reply.status) {
            Ok(())
        } else {
            Err(Self::error_of(&reply))
        }
    }

    fn delete_object(&self, key: &str) -> Result<(), String> {
        let action = self.bucket.delete_object(Some(&self.credentials), key);
        let reply = self.request(action, "DELETE", Vec::new(), &[])?;
        if (200..300).contains(&reply.status) || reply.status == 404 {
            Ok(())
        } else {
            Err(Self::error_of(&reply).describe("DeleteObject"))
        }
    }

    fn digest_key(&self, workspace: &str) -> serde_json::Value {
        json!({ "LockID": { "S": format!("{}{DIGEST_SUFFIX}", self.lock_path(workspace)) } })
    }

    /// The MD5 DynamoDB holds for the last state written, when it holds
    /// one.
    fn stored_digest(&self, workspace: &str) -> Option<Vec<u8>> {
        let (api, table) = self.dynamodb.as_ref()?;
        let reply = api
            .call(
                "GetItem",
                &json!({
                    "TableName": table,
                    "Key": self.digest_key(workspace),
                    "ProjectionExpression": "LockID, Digest",
                    "ConsistentRead": true,
                }),
            )
            .ok()?;
        let hex = reply["Item"]["Digest"]["S"].as_str()?;
        let bytes = decode_hex(hex)?;
        (bytes.len() == 16).then_some(bytes)
    }

    fn dynamodb_lock_info(&self, workspace: &str) -> Result<LockInfo, String> {
        let Some((api, table)) = &self.dynamodb else {
            return Err("no DynamoDB table".to_string());
        };
        let reply = api
            .call(
                "GetItem",
                &json!({
                    "TableName": table,
                    "Key": { "LockID": { "S": self.lock_path(workspace) } },
                    "ProjectionExpression": "LockID, Info",
                    "ConsistentRead": true,
                }),
            )
            .map_err(|e| e.to_string())?;
        let Some(info) = reply["Item"]["Info"]["S"].as_str() else {
            return Err(format!(
                "no lock info found for: {:?} within the DynamoDB table: {table}",
                self.lock_path(workspace)
            ));
        };
        LockInfo::from_json(info.as_bytes())
    }

    fn s3_lock_info(&self, workspace: &str) -> Result<LockInfo, String> {
        let key = format!("{}{LOCK_FILE_SUFFIX}", self.path(workspace));
        match self.get_object(&key)? {
            Some(bytes) => LockInfo::from_json(&bytes).map_err(|e| {
                format!(
                    "unable to json parse the lock info {key:?} from bucket {:?}: {e}",
                    self.bucket_name
                )
            }),
            None => Err(format!(
                "operation error S3: GetObject, https response error StatusCode: 404, api error NoSuchKey: The specified key does not exist. ({key})"
            )),
        }
    }

    fn s3_unlock(&self, workspace: &str, id: &str, check: bool) -> Result<(), LockError> {
        let info = self.s3_lock_info(workspace).map_err(|e| LockError {
            message: format!("failed to retrieve s3 lock info: {e}"),
            info: None,
        })?;
        if check && info.id != id {
            return Err(LockError {
                message: format!("lock id {id:?} from s3 does not match existing lock"),
                info: Some(Box::new(info)),
            });
        }
        let key = format!("{}{LOCK_FILE_SUFFIX}", self.path(workspace));
        self.delete_object(&key).map_err(|message| LockError {
            message,
            info: Some(Box::new(info)),
        })
    }

    fn dynamodb_unlock(&self, workspace: &str, id: &str) -> Result<(), LockError> {
        let Some((api, table)) = &self.dynamodb else {
            return Ok(());
        };
        let info = self.dynamodb_lock_info(workspace).map_err(|e| LockError {
            message: format!("failed to retrieve lock info: {e}"),
            info: None,
        })?;
        if info.id != id {
            return Err(LockError {
                message: format!("lock id {id:?} does not match existing lock"),
                info: Some(Box::new(info)),
            });
        }
        // Deleted only while it still holds what was read: a lock taken
        // in between is left alone.
        api.call(
            "DeleteItem",
            &json!({
                "TableName": table,
                "Key": { "LockID": { "S": self.lock_path(workspace) } },
                "ConditionExpression": "Info = :info",
                "ExpressionAttributeValues": { ":info": { "S": info.to_json() } },
            }),
        )
        .map(|_| ())
        .map_err(|e| LockError {
            message: e.to_string(),
            info: Some(Box::new(info)),
        })
    }

    fn unlock_checked(&self, workspace: &str, id: &str) -> Result<(), LockError> {
        let s3 = if self.use_lockfile {
            self.s3_unlock(workspace, id, true)
        } else {
            Ok(())
        };
        let dynamodb = self.dynamodb_unlock(workspace, id);
        match (s3, dynamodb) {
            (Ok(()), Ok(())) => Ok(()),
            (Err(a), Err(b)) => Err(LockError {
                message: multierror(&[a.message, b.message]),
                info: a.info,
            }),
            (Err(a), Ok(())) if self.dynamodb.is_some() => Err(LockError {
                message: format!("dynamoDB lock released but s3 failed: {a}"),
                info: None,
            }),
            (Ok(()), Err(b)) if self.use_lockfile => Err(LockError {
                message: format!("s3 lock released but dynamoDB failed: {b}"),
                info: None,
            }),
            (Err(e), _) | (_, Err(e)) => Err(e),
        }
    }
}

impl RemoteStore for S3Store {
    fn type_name(&self) -> &'static str {
        "s3"
    }

    fn workspaces(&mut self) -> Result<Vec<String>, String> {
        let prefix = if self.workspace_key_prefix.is_empty() {
            String::new()
        } else {
            format!("{}/", self.workspace_key_prefix)
        };
        let mut out = Vec::new();
        let mut token: Option<String> = None;
        loop {
            let mut action: ListObjectsV2<'_> =
                self.bucket.list_objects_v2(Some(&self.credentials));
            action.with_prefix(prefix.clone());
            action.with_max_keys(1000);
            if let Some(t) = &token {
                action.with_continuation_token(t.clone());
            }
            let reply = self.request(action, "GET", Vec::new(), &[])?;
            if !(200..300).contains(&reply.status) {
                let e = Self::error_of(&reply);
                if e.code == "AccessDenied" {
                    break;
                }
                if e.code == "NoSuchBucket" {
                    return Err(format!(
                        "S3 bucket {:?} does not exist: {}",
                        self.bucket_name,
                        e.describe("ListObjectsV2")
                    ));
                }
                return Err(e.describe("ListObjectsV2"));
            }
            let page = ListObjectsV2::parse_response(&reply.body)
                .map_err(|e| format!("reading the object listing: {e}"))?;
            for object in &page.contents {
                // The listing is asked for with `encoding-type=url`, and
                // its keys come back escaped (`env%3A/dev/...`).
                if let Some(ws) = self.key_workspace(&query_unescape_lenient(&object.key)) {
                    out.push(ws);
                }
            }
            match page.next_continuation_token {
                Some(t) if !t.is_empty() => token = Some(t),
                _ => break,
            }
        }
        out.sort();
        out.dedup();
        out.retain(|w| w != DEFAULT_WORKSPACE);
        out.insert(0, DEFAULT_WORKSPACE.to_string());
        Ok(out)
    }

    fn get(&mut self, workspace: &str) -> Result<Option<Vec<u8>>, String> {
        let key = self.path(workspace);
        let deadline = Instant::now() + CONSISTENCY_RETRY;
        loop {
            let payload = self.get_object(&key)?.filter(|b| !b.is_empty());
            let Some(expected) = self.stored_digest(workspace) else {
                return Ok(payload);
            };
            let got = payload
                .as_ref()
                .map(|b| md5::Md5::digest(b).to_vec())
                .unwrap_or_default();
            if got == expected {
                return Ok(payload);
            }
            if Instant::now() >= deadline {
                let hex: String = got.iter().map(|b| format!("{b:02x}")).collect();
                return Err(format!(
                    "state data in S3 does not have the expected content.\n\nThe checksum calculated for the state stored in S3 does not match the checksum\nstored in DynamoDB.\n\nBucket: {}\nKey:    {}\nCalculated checksum: {hex}\nStored checksum:     {}\n\nThis may be caused by unusually long delays in S3 processing a previous state\nupdate. Please wait for a minute or two and try again.\n\nIf this problem persists, and neither S3 nor DynamoDB are experiencing an\noutage, you may need to manually verify the remote state and update the Digest\nvalue stored in the DynamoDB table to the following value: {hex}",
                    self.bucket_name,
                    key,
                    expected.iter().map(|b| format!("{b:02x}")).collect::<String>()
                ));
            }
            std::thread::sleep(CONSISTENCY_POLL);
        }
    }

    fn put(&mut self, workspace: &str, bytes: &[u8]) -> Result<(), String> {
        let key = self.path(workspace);
        self.put_object(&key, bytes, false)
            .map_err(|e| e.describe("PutObject"))?;
        if let Some((api, table)) = &self.dynamodb {
            let sum = md5::Md5::digest(bytes);
            let hex: String = sum.iter().map(|b| format!("{b:02x}")).collect();
            let mut item = self.digest_key(workspace);
            item["Digest"] = json!({ "S": hex });
            // As terraform: a digest that cannot be recorded is not a
            // failed write (the state itself is stored).
            let _ = api.call("PutItem", &json!({ "TableName": table, "Item": item }));
        }
        Ok(())
    }

    fn delete(&mut self, workspace: &str) -> Result<(), String> {
        let key = self.path(workspace);
        self.delete_object(&key)?;
        if let Some((api, table)) = &self.dynamodb {
            let _ = api.call(
                "DeleteItem",
                &json!({ "TableName": table, "Key": self.digest_key(workspace) }),
            );
        }
        Ok(())
    }

    fn lock(&mut self, workspace: &str, info: &mut LockInfo) -> Result<(), LockError> {
        if !self.use_lockfile && self.dynamodb.is_none() {
            return Ok(());
        }
        info.path = self.lock_path(workspace);
        let body = info.to_json();
        if self.use_lockfile {
            let key = format!("{}{LOCK_FILE_SUFFIX}", self.path(workspace));
            if let Err(e) = self.put_object(&key, body.as_bytes(), true) {
                let mut message = if e.status == 0 {
                    e.message.clone()
                } else {
                    e.describe("PutObject")
                };
                let holder = match self.s3_lock_info(workspace) {
                    Ok(i) => Some(Box::new(i)),
                    Err(more) => {
                        message = multierror(&[message, more]);
                        None
                    }
                };
                return Err(LockError {
                    message,
                    info: holder,
                });
            }
        }
        if let Some((api, table)) = &self.dynamodb {
            let put = api.call(
                "PutItem",
                &json!({
                    "TableName": table,
                    "Item": {
                        "LockID": { "S": self.lock_path(workspace) },
                        "Info": { "S": body },
                    },
                    "ConditionExpression": "attribute_not_exists(LockID)",
                }),
            );
            if let Err(e) = put {
                let mut message = e.to_string();
                if self.use_lockfile {
                    let _ = self.s3_unlock(workspace, &info.id, true);
                }
                // Only a failed condition means another holder; any other
                // failure (no table, no access) is not worth waiting on.
                if e.code != "ConditionalCheckFailedException" {
                    return Err(LockError {
                        message,
                        info: None,
                    });
                }
                let holder = match self.dynamodb_lock_info(workspace) {
                    Ok(i) => Some(Box::new(i)),
                    Err(more) => {
                        message = multierror(&[message, more]);
                        None
                    }
                };
                return Err(LockError {
                    message,
                    info: holder,
                });
            }
        }
        Ok(())
    }

    fn unlock(&mut self, workspace: &str, id: &str) -> Result<(), LockError> {
        if !self.use_lockfile && self.dynamodb.is_none() {
            return Ok(());
        }
        self.unlock_checked(workspace, id)
    }

    fn location(&self, workspace: &str) -> String {
        format!("s3://{}/{}", self.bucket_name, self.path(workspace))
    }
}

impl S3Store {
    /// The workspace whose state an object key is, if it is one.
    fn key_workspace(&self, key: &str) -> Option<String> {
        if self.workspace_key_prefix.is_empty() {
            let (ws, rest) = key.split_once('/')?;
            return (rest == self.key).then(|| ws.to_string());
        }
        let prefix = format!("{}/", self.workspace_key_prefix);
        let rest = key.strip_prefix(&prefix)?;
        let (ws, rest) = rest.split_once('/')?;
        (rest == self.key).then(|| ws.to_string())
    }
}

/// Go's `path.Clean` for the relative object keys built here.
fn clean_path(p: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in p.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    parts.join("/")
}

fn decode_hex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// A Go duration (`1h`, `15m`, `900s`) in whole seconds.
fn parse_go_duration(text: &str) -> Option<u64> {
    let mut total = 0f64;
    let mut rest = text.trim();
    if rest.is_empty() {
        return None;
    }
    while !rest.is_empty() {
        let number_end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let number: f64 = rest[..number_end].parse().ok()?;
        rest = &rest[number_end..];
        let unit_end = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_end] {
            "h" => 3600.0,
            "m" => 60.0,
            "s" => 1.0,
            "ms" => 0.001,
            _ => return None,
        };
        total += number * scale;
        rest = &rest[unit_end..];
    }
    Some(total as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_durations() {
        assert_eq!(clean_path("env:/dev//a/./b"), "env:/dev/a/b");
        assert_eq!(decode_hex("0aff"), Some(vec![10, 255]));
        assert_eq!(decode_hex("0g"), None);
        assert_eq!(parse_go_duration("1h30m"), Some(5400));
        assert_eq!(parse_go_duration("900s"), Some(900));
        assert_eq!(parse_go_duration("x"), None);
    }

    /// Object listings are asked for URL-encoded: a named workspace's key
    /// comes back as `env%3A/dev/...` and is only found once unescaped.
    #[test]
    fn listed_keys_are_unescaped() {
        assert_eq!(
            query_unescape_lenient("env%3A/dev/app/terraform.tfstate"),
            "env:/dev/app/terraform.tfstate"
        );
        assert_eq!(query_unescape_lenient("a+b%2"), "a b%2");
        assert_eq!(query_unescape_lenient("%zz%41"), "%zzA");
    }
}
