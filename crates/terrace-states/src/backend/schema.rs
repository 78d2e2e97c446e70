//! The configuration schemas of the backends terrace implements, as
//! terraform 1.11 declares them: every attribute a `backend` block may
//! set, with its type. terraform records the decoded block (every
//! attribute, null when unset) in `.terraform/terraform.tfstate` with cty's
//! hash of it; the same object here gives the same hash, so either tool
//! sees the other's `init` as current.

use terrace_value::{Type, Value};

/// The backend types terrace implements.
pub const IMPLEMENTED: [&str; 4] = ["local", "pg", "s3", "http"];

fn object(attributes: &[(&str, Type)]) -> Type {
    Type::object(
        attributes
            .iter()
            .map(|(name, ty)| (name.to_string(), ty.clone())),
    )
}

fn strings(names: &[&'static str]) -> Vec<(&'static str, Type)> {
    names.iter().map(|n| (*n, Type::String)).collect()
}

/// The object type of a backend's configuration; `None` for a type
/// terrace does not implement.
pub fn config_type(type_name: &str) -> Option<Type> {
    let bool_ = Type::Bool;
    let number = Type::Number;
    let string_set = Type::set(Type::String);
    let string_list = Type::list(Type::String);
    Some(match type_name {
        "local" => object(&strings(&["path", "workspace_dir"])),
        "pg" => {
            let mut attrs = strings(&["conn_str", "schema_name"]);
            for name in [
                "skip_index_creation",
                "skip_schema_creation",
                "skip_table_creation",
            ] {
                attrs.push((name, bool_.clone()));
            }
            object(&attrs)
        }
        "http" => {
            let mut attrs = strings(&[
                "address",
                "client_ca_certificate_pem",
                "client_certificate_pem",
                "client_private_key_pem",
                "lock_address",
                "lock_method",
                "password",
                "unlock_address",
                "unlock_method",
                "update_method",
                "username",
            ]);
            for name in ["retry_max", "retry_wait_max", "retry_wait_min"] {
                attrs.push((name, number.clone()));
            }
            attrs.push(("skip_cert_verification", bool_.clone()));
            object(&attrs)
        }
        "s3" => {
            let mut attrs = strings(&[
                "access_key",
                "acl",
                "bucket",
                "custom_ca_bundle",
                "dynamodb_endpoint",
                "dynamodb_table",
                "ec2_metadata_service_endpoint",
                "ec2_metadata_service_endpoint_mode",
                "endpoint",
                "http_proxy",
                "https_proxy",
                "iam_endpoint",
                "key",
                "kms_key_id",
                "no_proxy",
                "profile",
                "region",
                "retry_mode",
                "secret_key",
                "shared_credentials_file",
                "sse_customer_key",
                "sts_endpoint",
                "sts_region",
                "token",
                "workspace_key_prefix",
            ]);
            for name in [
                "encrypt",
                "force_path_style",
                "insecure",
                "skip_credentials_validation",
                "skip_metadata_api_check",
                "skip_region_validation",
                "skip_requesting_account_id",
                "skip_s3_checksum",
                "use_dualstack_endpoint",
                "use_fips_endpoint",
                "use_lockfile",
                "use_path_style",
            ] {
                attrs.push((name, bool_.clone()));
            }
            attrs.push(("max_retries", number.clone()));
            attrs.push(("allowed_account_ids", string_set.clone()));
            attrs.push(("forbidden_account_ids", string_set.clone()));
            attrs.push(("shared_config_files", string_list.clone()));
            attrs.push(("shared_credentials_files", string_list.clone()));
            attrs.push((
                "endpoints",
                object(&strings(&["dynamodb", "iam", "s3", "sso", "sts"])),
            ));
            let mut assume_role = strings(&[
                "duration",
                "external_id",
                "policy",
                "role_arn",
                "session_name",
                "source_identity",
            ]);
            assume_role.push(("policy_arns", string_set.clone()));
            assume_role.push(("tags", Type::map(Type::String)));
            assume_role.push(("transitive_tag_keys", string_set.clone()));
            attrs.push(("assume_role", object(&assume_role)));
            let mut web_identity = strings(&[
                "duration",
                "policy",
                "role_arn",
                "session_name",
                "web_identity_token",
                "web_identity_token_file",
            ]);
            web_identity.push(("policy_arns", string_set));
            attrs.push(("assume_role_with_web_identity", object(&web_identity)));
            object(&attrs)
        }
        _ => return None,
    })
}

/// terraform's hash of a backend block: cty's hash of the tuple of the
/// type name and the decoded configuration.
pub fn config_hash(type_name: &str, config: &Value) -> u32 {
    terrace_value::ops::value_hash(&Value::tuple(vec![
        Value::string(type_name),
        config.clone(),
    ]))
}

/// A configuration with every attribute null.
pub fn empty_config(type_name: &str) -> Option<Value> {
    let ty = config_type(type_name)?;
    Some(null_object(&ty))
}

fn null_object(ty: &Type) -> Value {
    let Some(object) = ty.object_type() else {
        return Value::null(ty.clone());
    };
    Value::object(
        object
            .attributes
            .iter()
            .map(|(name, ty)| (name.clone(), Value::null(ty.clone())))
            .collect(),
    )
}

/// Reads attributes of a decoded configuration, with the environment
/// variables terraform falls back to for unset ones.
pub struct Settings<'a> {
    pub config: &'a Value,
    pub env: &'a dyn Fn(&str) -> Option<String>,
}

impl Settings<'_> {
    fn attr(&self, name: &str) -> Option<&Value> {
        self.config
            .as_attributes()
            .and_then(|a| a.get(name))
            .filter(|v| !v.is_null() && v.is_known())
    }

    /// A string attribute (an empty string counts as unset, as terraform's
    /// legacy schema reads it), else the first of `env` that is set.
    pub fn string(&self, name: &str, env: &[&str]) -> Option<String> {
        if let Some(s) = self.attr(name).and_then(Value::as_str) {
            if !s.is_empty() {
                return Some(s.to_string());
            }
        }
        env.iter()
            .find_map(|e| (self.env)(e).filter(|v| !v.is_empty()))
    }

    /// A string attribute inside an object attribute.
    pub fn nested_string(&self, object: &str, name: &str) -> Option<String> {
        self.attr(object)
            .and_then(Value::as_attributes)
            .and_then(|a| a.get(name))
            .filter(|v| !v.is_null())
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    }

    /// A bool attribute, else `env` read as Go's `strconv.ParseBool`.
    pub fn bool(&self, name: &str, env: &[&str]) -> Result<Option<bool>, String> {
        if let Some(b) = self.attr(name).and_then(Value::as_bool) {
            return Ok(Some(b));
        }
        for e in env {
            if let Some(v) = (self.env)(e).filter(|v| !v.is_empty()) {
                return match v.as_str() {
                    "1" | "t" | "T" | "TRUE" | "true" | "True" => Ok(Some(true)),
                    "0" | "f" | "F" | "FALSE" | "false" | "False" => Ok(Some(false)),
                    _ => Err(format!(
                        "strconv.ParseBool: parsing {}: invalid syntax",
                        terrace_value::gostr::quote(&v)
                    )),
                };
            }
        }
        Ok(None)
    }

    /// A whole-number attribute, else `env`.
    pub fn integer(&self, name: &str, env: &[&str]) -> Result<Option<i64>, String> {
        if let Some(n) = self.attr(name).and_then(Value::as_number) {
            return n
                .to_i64()
                .map(Some)
                .ok_or_else(|| format!("{name}: a whole number is required"));
        }
        for e in env {
            if let Some(v) = (self.env)(e).filter(|v| !v.is_empty()) {
                return v
                    .trim()
                    .parse::<i64>()
                    .map(Some)
                    .map_err(|_| format!("{e}: {v:?} is not a whole number"));
            }
        }
        Ok(None)
    }

    /// A list or set of strings.
    pub fn string_list(&self, name: &str) -> Vec<String> {
        self.attr(name)
            .and_then(|v| v.as_elements())
            .map(|elems| {
                elems
                    .iter()
                    .filter_map(|e| e.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn with(type_name: &str, set: &[(&str, Value)]) -> Value {
        let empty = empty_config(type_name).unwrap();
        let mut attrs: BTreeMap<String, Value> = empty.as_attributes().unwrap().to_map();
        for (name, value) in set {
            attrs.insert(name.to_string(), value.clone());
        }
        Value::object(attrs)
    }

    /// Hashes terraform 1.11.4 recorded in `.terraform/terraform.tfstate`
    /// for these blocks.
    #[test]
    fn hashes_are_terraforms() {
        assert_eq!(
            config_hash("local", &empty_config("local").unwrap()),
            666019178
        );
        let pg = with(
            "pg",
            &[(
                "conn_str",
                Value::string("postgres://postgres@127.0.0.1:55432/postgres?sslmode=disable"),
            )],
        );
        assert_eq!(config_hash("pg", &pg), 1602217497);
        let http = with(
            "http",
            &[("address", Value::string("http://127.0.0.1:1/state"))],
        );
        assert_eq!(config_hash("http", &http), 2498417762);
        let endpoint = Value::string("http://127.0.0.1:45123");
        let endpoints = Value::object(
            [
                ("dynamodb", endpoint.clone()),
                ("iam", Value::null(Type::String)),
                ("s3", endpoint),
                ("sso", Value::null(Type::String)),
                ("sts", Value::null(Type::String)),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
        );
        let s3 = with(
            "s3",
            &[
                ("access_key", Value::string("t")),
                ("bucket", Value::string("tfstate")),
                ("dynamodb_table", Value::string("locks")),
                ("endpoints", endpoints),
                ("key", Value::string("a/terraform.tfstate")),
                ("region", Value::string("us-east-1")),
                ("secret_key", Value::string("t")),
                ("skip_credentials_validation", Value::bool(true)),
                ("skip_metadata_api_check", Value::bool(true)),
                ("skip_requesting_account_id", Value::bool(true)),
                ("use_lockfile", Value::bool(true)),
                ("use_path_style", Value::bool(true)),
            ],
        );
        assert_eq!(config_hash("s3", &s3), 3039347404);
    }
}
