//! Backends: where state snapshots are kept between runs. [`Backend`] is
//! what every command sees; the local backend implements it over files,
//! and [`remote::RemoteBackend`] over a [`remote::RemoteStore`] (`pg`, `s3`,
//! `http`), which only gets, puts, deletes and locks stored bytes. Lock
//! metadata and lock errors are shared so that every backend prints the
//! same messages, and stores what terraform stores, so the two tools see
//! each other's locks.
//!
//! These modules are the only code in terrace that reaches the network for
//! state.

pub(crate) mod aws;
pub mod http;
pub mod local;
mod lockinfo;
pub mod pg;
pub mod remote;
pub mod s3;
pub mod schema;

use std::path::{Path, PathBuf};
use std::time::Duration;

pub use local::{
    DeleteOutcome, LocalBackend, LocalBackendOptions, SelectOutcome, StateError, StatePaths,
    WorkspaceError, DEFAULT_BACKUP_EXTENSION, DEFAULT_STATE_FILENAME, DEFAULT_WORKSPACE,
    DEFAULT_WORKSPACE_DIR, DEFAULT_WORKSPACE_FILE, ERRORED_STATE_FILENAME, WORKSPACE_ENV_VAR,
};
pub use lockinfo::{go_time_string, rfc3339_nano, LockError, LockInfo};

use crate::encryption::{ReadStatus, StateCodec};
use crate::model::State;
use crate::statefile;
use terrace_syntax::{Diagnostic, Diagnostics};

/// The state in stored bytes, decrypted as `codec` says first; a file
/// that does not decrypt is invalid (nothing is loaded, so nothing
/// replaces it).
pub(crate) fn decode_state(
    codec: &StateCodec,
    bytes: &[u8],
) -> Result<(State, Diagnostics, ReadStatus), StateError> {
    let (plain, status) = codec
        .decrypt(bytes)
        .map_err(|e| StateError::Invalid(vec![Diagnostic::error(e.summary, e.detail)]))?;
    let (state, warnings) = statefile::read(&plain).map_err(StateError::Invalid)?;
    Ok((state, warnings, status))
}

/// The bytes to store for `state`: its file form, encrypted as `codec`
/// says.
pub(crate) fn encode_state(codec: &StateCodec, state: &State) -> Result<Vec<u8>, StateError> {
    let (bytes, diags) = statefile::write_with_diagnostics(state);
    if diags.iter().any(Diagnostic::is_error) {
        return Err(StateError::Serialize(diags));
    }
    codec
        .encrypt(bytes)
        .map_err(|e| StateError::Serialize(vec![Diagnostic::error(e.summary, e.detail)]))
}

/// A backend as commands use it: one workspace at a time, its state read,
/// locked and written with terraform's rules (lineage kept, serial bumped
/// only on change), and the workspaces listed, created and deleted.
pub trait Backend: Send {
    /// `local`, `pg`, `s3`, `http`.
    fn type_name(&self) -> &'static str;
    /// The workspace this backend works on now.
    fn workspace(&self) -> &str;
    fn use_workspace(&mut self, name: String);
    /// `TF_WORKSPACE` when set, else the workspace `.terraform/environment`
    /// selects.
    fn current_workspace(&self) -> Result<String, WorkspaceError>;
    /// "default" first, then the others sorted.
    fn workspaces(&mut self) -> Result<Vec<String>, WorkspaceError>;
    /// `workspace new NAME`: creates and selects it.
    fn new_workspace(&mut self, name: &str) -> Result<(), WorkspaceError>;
    /// `workspace select [-or-create] NAME`.
    fn select_workspace(
        &mut self,
        name: &str,
        or_create: bool,
    ) -> Result<SelectOutcome, WorkspaceError>;
    /// `workspace delete [-force] NAME`; the state is read under the lock
    /// unless `lock_timeout` is `None` (`-lock=false`).
    fn delete_workspace(
        &mut self,
        name: &str,
        force: bool,
        lock_timeout: Option<Duration>,
    ) -> Result<DeleteOutcome, WorkspaceError>;

    /// Takes the state lock for `operation`, retrying while another holder
    /// has it until `timeout` (`-lock-timeout`) has passed. The lock ID.
    fn lock(&mut self, operation: &str, info: &str, timeout: Duration)
        -> Result<String, LockError>;
    fn unlock(&mut self) -> Result<(), StateError>;
    /// `force-unlock ID`: removes a lock this process does not hold.
    fn force_unlock(&mut self, id: &str) -> Result<(), StateError>;
    fn is_locked(&self) -> bool;

    /// The workspace's state, `None` when there is none; warnings from the
    /// file come with it.
    fn read_state(&mut self) -> Result<(Option<State>, Diagnostics), StateError>;
    /// Persists `state` keeping the stored lineage, the serial bumped when
    /// the content changed; the serial written.
    fn write_state(&mut self, state: &State) -> Result<u64, StateError>;
    /// Persists `state` exactly, lineage and serial included (migration,
    /// `state push`).
    fn write_state_for_migration(&mut self, state: &State) -> Result<(), StateError>;
    /// The lineage and serial of the snapshot last read or written.
    fn snapshot_id(&self) -> Option<(String, u64)>;
    /// `errored.tfstate` in the working directory; the path written.
    fn write_errored_state(&self, state: &State) -> Result<PathBuf, StateError>;
    /// Where an apply on this workspace journals the objects it records:
    /// next to a local state file, else in the data directory, one file
    /// per backend location and workspace.
    fn journal_path(&self) -> PathBuf;
    /// The local backend, for what only it has (state file paths).
    fn local(&self) -> Option<&LocalBackend> {
        None
    }
    fn local_mut(&mut self) -> Option<&mut LocalBackend> {
        None
    }
    /// Where the workspace's state lives, for messages: a path or URL.
    fn describe_location(&self) -> String;
}

/// The workspace `.terraform/environment` selects ("default" when none).
pub fn selected_workspace(data_dir: &Path) -> String {
    match std::fs::read_to_string(data_dir.join(DEFAULT_WORKSPACE_FILE)) {
        Ok(text) if !text.trim().is_empty() => text.trim().to_string(),
        _ => DEFAULT_WORKSPACE.to_string(),
    }
}

/// `TF_WORKSPACE` (given as `env`) when set, else the selected workspace.
pub fn current_workspace_with(
    data_dir: &Path,
    env: Option<&str>,
) -> Result<String, WorkspaceError> {
    match env.filter(|e| !e.is_empty()) {
        Some(name) if !local::valid_workspace_name(name) => Err(WorkspaceError::InvalidEnvName),
        Some(name) => Ok(name.to_string()),
        None => Ok(selected_workspace(data_dir)),
    }
}

/// Records `name` as the selected workspace.
pub fn set_selected_workspace(data_dir: &Path, name: &str) -> Result<(), WorkspaceError> {
    std::fs::create_dir_all(data_dir)
        .map_err(|e| WorkspaceError::Io(format!("mkdir {}: {e}", data_dir.display())))?;
    let path = data_dir.join(DEFAULT_WORKSPACE_FILE);
    std::fs::write(&path, name.as_bytes())
        .map_err(|e| WorkspaceError::Io(format!("open {}: {e}", path.display())))
}

fn env_workspace() -> Option<String> {
    std::env::var(WORKSPACE_ENV_VAR).ok()
}

/// Where a backend lives and the settings commands share.
#[derive(Clone, Debug)]
pub struct OpenOptions {
    /// The working directory (`errored.tfstate` goes there).
    pub dir: PathBuf,
    /// The data directory (`.terraform`): selected workspace, journals.
    pub data_dir: PathBuf,
    /// The version recorded in lock metadata and written states.
    pub version: String,
}

/// Opens a remote backend of `type_name` with `config` (an object of the
/// type [`schema::config_type`] gives, as decoded from the `backend` block
/// and `-backend-config`), reading terraform's environment variables for
/// unset settings through `env`. The error is the message to show.
pub fn open_remote(
    type_name: &str,
    config: &terrace_value::Value,
    env: &dyn Fn(&str) -> Option<String>,
    opts: &OpenOptions,
) -> Result<remote::RemoteBackend, String> {
    open_remote_encrypted(type_name, config, env, opts, StateCodec::disabled())
}

/// [`open_remote`] with the states stored as `codec` encrypts them.
pub fn open_remote_encrypted(
    type_name: &str,
    config: &terrace_value::Value,
    env: &dyn Fn(&str) -> Option<String>,
    opts: &OpenOptions,
    codec: StateCodec,
) -> Result<remote::RemoteBackend, String> {
    let settings = schema::Settings { config, env };
    let store: Box<dyn remote::RemoteStore> = match type_name {
        "pg" => Box::new(pg::PgStore::configure(&settings)?),
        "s3" => Box::new(s3::S3Store::configure(&settings)?),
        "http" => Box::new(http::HttpStore::configure(&settings)?),
        other => return Err(format!("unsupported backend type {other:?}")),
    };
    Ok(remote::RemoteBackend::new(store, opts).with_encryption(codec))
}

/// The process environment, for [`open_remote`].
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}
