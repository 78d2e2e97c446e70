//! Credentials helpers: the program a CLI configuration's
//! `credentials_helper "NAME" { args = [...] }` block names, which keeps
//! API tokens somewhere other than `credentials.tfrc.json` (a keychain, a
//! vault).
//!
//! The program is `terraform-credentials-NAME` (or
//! `terraform-credentials-NAME_vX.Y.Z`, the highest version winning) in
//! one of the global plugin directories: the CLI configuration
//! directory's `plugins` and the data directories' `terraform/plugins`,
//! each also with an `OS_ARCH` subdirectory. It is run with the block's
//! arguments, then a verb and the host:
//!
//! - `get HOST`: prints a JSON object, `{"token": "..."}` for a host it
//!   has credentials for, `{}` otherwise;
//! - `store HOST`: reads the object to keep on stdin;
//! - `forget HOST`: removes them.
//!
//! A failing program (non-zero exit) explains itself on stderr.

use crate::cliconfig::{implied_local_mirror_dirs, CliEnv};
use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use terrace_addrs::Hostname;

/// The program of a configured credentials helper, with its arguments;
/// answers to `get` are remembered for the run, as each token is asked
/// for once per host.
#[derive(Clone, Debug)]
pub struct CredentialsHelper {
    /// The block's label (`NAME`).
    pub name: String,
    pub executable: PathBuf,
    pub args: Vec<String>,
    remembered: Arc<Mutex<HashMap<String, Option<String>>>>,
}

/// The directories searched for credentials helpers, in order.
pub fn helper_dirs(env: &CliEnv) -> Vec<PathBuf> {
    let platform = crate::source::Platform::current().to_string();
    implied_local_mirror_dirs(env)
        .into_iter()
        // The first is the working directory's `terraform.d/plugins`,
        // which is for providers only.
        .skip(1)
        .flat_map(|dir| [dir.join(&platform), dir])
        .collect()
}

/// A helper's version from its file name's `_vX.Y.Z` suffix; a name
/// without one comes before every versioned one.
fn version_of(file_name: &str, prefix: &str) -> Option<Vec<u64>> {
    let rest = file_name.strip_prefix(prefix)?;
    let rest = rest.strip_suffix(".exe").unwrap_or(rest);
    if rest.is_empty() {
        return Some(Vec::new());
    }
    let version = rest.strip_prefix("_v")?;
    version
        .split('.')
        .map(|part| part.parse::<u64>().ok())
        .collect()
}

impl CredentialsHelper {
    /// The helper the block `name` (with `args`) names, found in `dirs`;
    /// `None` when no such program is there (terraform then carries on
    /// without one).
    pub fn find(name: &str, args: &[String], dirs: &[PathBuf]) -> Option<CredentialsHelper> {
        let prefix = format!("terraform-credentials-{name}");
        let mut best: Option<(Vec<u64>, PathBuf)> = None;
        for dir in dirs {
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let file_name = entry.file_name();
                let Some(version) = version_of(&file_name.to_string_lossy(), &prefix) else {
                    continue;
                };
                let path = entry.path();
                if !path.is_file() {
                    continue;
                }
                if best.as_ref().is_none_or(|(v, _)| version > *v) {
                    best = Some((version, path));
                }
            }
        }
        let (_, executable) = best?;
        let executable = std::fs::canonicalize(&executable).unwrap_or(executable);
        Some(CredentialsHelper {
            name: name.to_string(),
            executable,
            args: args.to_vec(),
            remembered: Arc::default(),
        })
    }

    /// The helper of a CLI configuration's `credentials_helpers`, looked
    /// for where `env` says the plugin directories are; `None` also when
    /// the program is not there (terraform then carries on without one).
    pub fn configured(
        helpers: &std::collections::BTreeMap<String, Vec<String>>,
        env: &CliEnv,
    ) -> Option<CredentialsHelper> {
        let (name, args) = helpers.iter().next()?;
        CredentialsHelper::find(name, args, &helper_dirs(env))
    }

    fn command(&self, verb: &str, host: &Hostname) -> Command {
        let mut command = Command::new(&self.executable);
        command.args(&self.args).arg(verb).arg(host.as_str());
        command
    }

    /// The token the helper keeps for `host`, if any.
    pub fn get(&self, host: &Hostname) -> Result<Option<String>, String> {
        let key = host.as_str().to_string();
        if let Some(known) = self
            .remembered
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
        {
            return Ok(known.clone());
        }
        let out = self
            .command("get", host)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("failed to run {}: {e}", self.executable.display()))?;
        if !out.status.success() {
            return Err(self.failure(&out.stderr));
        }
        let answer: serde_json::Value = serde_json::from_slice(&out.stdout)
            .map_err(|e| format!("malformed output from {}: {e}", self.executable.display()))?;
        let token = match answer.get("token") {
            None | Some(serde_json::Value::Null) => None,
            Some(serde_json::Value::String(token)) => Some(token.clone()),
            Some(_) => {
                return Err(format!(
                    "malformed output from {}: \"token\" is not a string",
                    self.executable.display()
                ))
            }
        };
        self.remembered
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key, token.clone());
        Ok(token)
    }

    /// Gives the helper `token` to keep for `host`.
    pub fn store(&self, host: &Hostname, token: &str) -> Result<(), String> {
        let body = serde_json::json!({ "token": token }).to_string();
        self.change("store", host, Some(body.as_bytes()))
    }

    /// Asks the helper to drop what it keeps for `host`.
    pub fn forget(&self, host: &Hostname) -> Result<(), String> {
        self.change("forget", host, None)
    }

    /// Runs `verb HOST` with `input` on stdin (nothing otherwise); what
    /// the helper remembered for the host is forgotten either way.
    fn change(&self, verb: &str, host: &Hostname, input: Option<&[u8]>) -> Result<(), String> {
        let ran = |e: std::io::Error| format!("failed to run {}: {e}", self.executable.display());
        let mut child = self
            .command(verb, host)
            .stdin(if input.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(ran)?;
        if let (Some(mut stdin), Some(input)) = (child.stdin.take(), input) {
            // A helper that does not read its input fails on its own terms.
            let _ = stdin.write_all(input);
        }
        let out = child.wait_with_output().map_err(ran)?;
        self.forget_remembered(host);
        if !out.status.success() {
            return Err(self.failure(&out.stderr));
        }
        Ok(())
    }

    fn forget_remembered(&self, host: &Hostname) {
        self.remembered
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(host.as_str());
    }

    fn failure(&self, stderr: &[u8]) -> String {
        let said = String::from_utf8_lossy(stderr);
        if said.is_empty() {
            format!(
                "error in {}, but it produced no error message",
                self.executable.display()
            )
        } else {
            format!("error in {}: {said}", self.executable.display())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_come_from_the_file_name() {
        let prefix = "terraform-credentials-vault";
        assert_eq!(version_of(prefix, prefix), Some(vec![]));
        assert_eq!(
            version_of("terraform-credentials-vault_v1.10.2", prefix),
            Some(vec![1, 10, 2])
        );
        assert_eq!(version_of("terraform-credentials-vaultx", prefix), None);
        assert_eq!(version_of("terraform-credentials-vault_vx", prefix), None);
        assert!(Some(vec![1, 10, 2]) > Some(vec![1, 9, 9]));
        assert!(Some(vec![0]) > Some(Vec::<u64>::new()));
    }
}
