//! How to reach registries, from the CLI configuration and the
//! environment: the CLI configuration's `host` blocks (services given
//! without discovery), bearer tokens from `credentials` blocks and from
//! `TF_TOKEN_<host>` variables (which win, as in Terraform), then the
//! configured credentials helper for any other host, and the TLS
//! roots (`SSL_CERT_FILE`). Shared by module installation and `init`'s
//! provider installation.

use terrace_getproviders::cliconfig::{CliConfig, CliEnv};
use terrace_getproviders::credentials_helper::CredentialsHelper;
use terrace_getproviders::registry::{HttpConfig, RegistryConfig};

/// The registry settings `init` uses.
pub fn registry_config(cli: &CliConfig, env: &CliEnv) -> Result<RegistryConfig, String> {
    let http = HttpConfig::from_env(&env.vars)?;
    let mut credentials: std::collections::BTreeMap<String, String> = cli
        .credentials
        .iter()
        .filter_map(|(host, token)| token.as_ref().map(|t| (host.clone(), t.clone())))
        .collect();
    let mut names: Vec<&String> = env.vars.keys().collect();
    names.sort();
    for name in names {
        let Some(encoded) = name.strip_prefix("TF_TOKEN_") else {
            continue;
        };
        let token = &env.vars[name];
        if encoded.is_empty() || token.is_empty() {
            continue;
        }
        credentials.insert(token_var_host(encoded), token.clone());
    }
    Ok(RegistryConfig {
        http,
        host_services: cli.hosts.clone(),
        host_service_documents: cli.host_service_documents.clone(),
        credentials,
        credentials_helper: CredentialsHelper::configured(&cli.credentials_helpers, env),
    })
}

/// The host a `TF_TOKEN_` variable names: `__` stands for `-` and `_`
/// for `.` (`TF_TOKEN_app_terraform_io`, `TF_TOKEN_my__host_example_com`).
fn token_var_host(encoded: &str) -> String {
    encoded
        .replace("__", "\u{0}")
        .replace('_', ".")
        .replace('\u{0}', "-")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_from_config_and_environment() {
        let mut cli = CliConfig::default();
        cli.credentials
            .insert("app.terraform.io".into(), Some("from-config".into()));
        cli.credentials.insert("other.example".into(), None);
        let mut env = CliEnv::default();
        env.vars
            .insert("TF_TOKEN_app_terraform_io".into(), "from-env".into());
        env.vars
            .insert("TF_TOKEN_my__host_example_com".into(), "t2".into());
        env.vars.insert("TF_TOKEN_".into(), "ignored".into());
        let cfg = match registry_config(&cli, &env) {
            Ok(c) => c,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(
            cfg.credentials.into_iter().collect::<Vec<_>>(),
            [
                ("app.terraform.io".to_string(), "from-env".to_string()),
                ("my-host.example.com".to_string(), "t2".to_string()),
            ]
        );
    }
}
