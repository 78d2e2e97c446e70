//! The working directory's settings as every command finds them: the data
//! directory (`TF_DATA_DIR`), the registry settings from the CLI
//! configuration, and the dependency lock file.

use crate::diag_output::diags_as_error;
use std::path::{Path, PathBuf};
use terrace_getproviders::cliconfig::{CliConfig, CliEnv};
use terrace_getproviders::lockfile::{Locks, LOCK_FILE_NAME};
use terrace_getproviders::registry::RegistryConfig;
use terrace_syntax::{Diagnostic, Diagnostics};

/// The registry settings of the CLI configuration, or the error as a
/// diagnostic.
pub(crate) fn registry_config(
    cli: &CliConfig,
    env: &CliEnv,
) -> Result<RegistryConfig, Diagnostics> {
    terrace_getmodules::remote::registry_config(cli, env).map_err(|e| {
        vec![Diagnostic::error(
            "Invalid TLS configuration",
            format!("Could not read the certificates in SSL_CERT_FILE: {e}."),
        )]
    })
}

/// The data directory: `TF_DATA_DIR`, or `.terraform`.
pub(crate) fn data_dir() -> PathBuf {
    match std::env::var_os("TF_DATA_DIR").filter(|d| !d.is_empty()) {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(".terraform"),
    }
}

/// The lock file, or the error Terraform reports for it.
pub(crate) fn load_locks() -> Result<Locks, Diagnostics> {
    let (locks, diags) = Locks::load(Path::new(LOCK_FILE_NAME));
    if diags.iter().any(Diagnostic::is_error) {
        return Err(vec![Diagnostic::error(
            format!(
                "failed to read dependency lock file: {}",
                diags_as_error(&diags)
            ),
            "",
        )]);
    }
    Ok(locks)
}
