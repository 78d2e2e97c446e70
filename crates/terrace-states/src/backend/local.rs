//! The local backend, as Terraform's: the state of workspace "default" in
//! `terraform.tfstate` in the working directory, other workspaces in
//! `terraform.tfstate.d/<name>/terraform.tfstate`, the selected workspace
//! in `.terraform/environment` (or `TF_WORKSPACE`), and the `-state`,
//! `-state-out` and `-backup` overrides.
//!
//! Locking is Terraform's: a POSIX record lock on the state file (so a
//! Terraform process and a terrace process exclude each other) plus the
//! `.terraform.tfstate.lock.info` file saying who holds it. On Linux the
//! lock is an open-file-description lock, which also excludes a second
//! handle in the same process.
//!
//! Unlike Terraform, which truncates and rewrites the locked file in place,
//! every write goes to a temporary file in the same directory that is
//! synced and renamed over the state, so a crash never leaves half a file.
//! The lock moves with the content: the new file is locked before the
//! rename, so the path is never unlocked while we hold the lock, and a
//! waiting locker re-checks after locking that it locked the file the path
//! names.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use terrace_syntax::{Diagnostic, Diagnostics};

use super::lockinfo::{multierror, LockError, LockInfo};
use crate::encryption::StateCodec;
use crate::model::{State, TERRAFORM_VERSION};
use terrace_syntax::PRODUCT;

pub const DEFAULT_WORKSPACE: &str = "default";
pub const DEFAULT_STATE_FILENAME: &str = "terraform.tfstate";
pub const DEFAULT_WORKSPACE_DIR: &str = "terraform.tfstate.d";
/// The file in the data directory (`.terraform`) naming the selected
/// workspace.
pub const DEFAULT_WORKSPACE_FILE: &str = "environment";
pub const DEFAULT_BACKUP_EXTENSION: &str = ".backup";
/// Where the state goes when it cannot be saved where it belongs.
pub const ERRORED_STATE_FILENAME: &str = "errored.tfstate";
/// Overrides the selected workspace.
pub const WORKSPACE_ENV_VAR: &str = "TF_WORKSPACE";

/// Where state goes, from the backend configuration and the command line.
/// Relative paths are relative to the working directory.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LocalBackendOptions {
    /// `backend "local" { path = ... }`: the default workspace's state.
    pub path: Option<PathBuf>,
    /// `backend "local" { workspace_dir = ... }`.
    pub workspace_dir: Option<PathBuf>,
    /// `-state`: read (and, without `-state-out`, write) here.
    pub state: Option<PathBuf>,
    /// `-state-out`: write here.
    pub state_out: Option<PathBuf>,
    /// `-backup`: the backup file; `-` disables backups.
    pub backup: Option<String>,
}

/// The files one workspace's state lives in, as configured (relative paths
/// stay relative).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatePaths {
    pub read: PathBuf,
    pub write: PathBuf,
    /// `None` when backups are disabled.
    pub backup: Option<PathBuf>,
}

/// A failure reading, writing or locking state.
#[derive(Clone, Debug)]
pub enum StateError {
    /// A filesystem error, in Go's words (`open PATH: permission denied`).
    Io(String),
    /// The state file is not a state we can read.
    Invalid(Diagnostics),
    /// Writing the state failed to serialize it.
    Serialize(Diagnostics),
    Lock(LockError),
    /// `unlock` without a lock.
    NotLocked,
}

impl std::fmt::Display for StateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StateError::Io(m) => f.write_str(m),
            StateError::Invalid(d) | StateError::Serialize(d) => {
                let parts: Vec<String> = d
                    .iter()
                    .filter(|d| d.is_error())
                    .map(|d| format!("{}: {}", d.summary, d.detail))
                    .collect();
                if parts.len() == 1 {
                    f.write_str(&parts[0])
                } else {
                    writeln!(f, "{} problems:", parts.len())?;
                    for p in parts {
                        write!(f, "\n- {p}")?;
                    }
                    Ok(())
                }
            }
            StateError::Lock(e) => e.fmt(f),
            StateError::NotLocked => f.write_str("LocalState not locked"),
        }
    }
}

impl std::error::Error for StateError {}

impl StateError {
    /// As diagnostics: the file's own diagnostics, or one error.
    pub fn to_diagnostics(&self) -> Diagnostics {
        match self {
            StateError::Invalid(d) | StateError::Serialize(d) => d.clone(),
            StateError::Lock(e) => vec![e.acquire_diagnostic()],
            other => vec![Diagnostic::error("Failed to save state", other.to_string())],
        }
    }
}

/// A workspace command that cannot be done; `Display` is Terraform's
/// message.
#[derive(Clone, Debug)]
pub enum WorkspaceError {
    InvalidName(String),
    AlreadyExists(String),
    DoesNotExist(String),
    DeleteCurrent(String),
    DeleteDefault,
    /// The workspace still tracks these objects (instance addresses, with
    /// ` (deposed object KEY)` for deposed ones).
    NotEmpty {
        name: String,
        objects: Vec<String>,
    },
    /// `TF_WORKSPACE` is set: `select` cannot change the workspace.
    OverriddenSelect,
    /// `TF_WORKSPACE` is set to another name: `new` cannot create one.
    OverriddenNew,
    /// `TF_WORKSPACE` names an invalid workspace.
    InvalidEnvName,
    Io(String),
    State(StateError),
}

impl std::fmt::Display for WorkspaceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use terrace_value::gostr::quote;
        match self {
            WorkspaceError::InvalidName(n) => write!(
                f,
                "The workspace name {} is not allowed. The name must contain only URL safe\ncharacters, and no path separators.",
                quote(n)
            ),
            WorkspaceError::AlreadyExists(n) => write!(f, "Workspace {} already exists", quote(n)),
            WorkspaceError::DoesNotExist(n) => write!(
                f,
                "Workspace {} doesn't exist.\n\nYou can create this workspace with the \"new\" subcommand \nor include the \"-or-create\" flag with the \"select\" subcommand.",
                quote(n)
            ),
            WorkspaceError::DeleteCurrent(n) => write!(
                f,
                "Workspace {} is your active workspace.\n\nYou cannot delete the currently active workspace. Please switch\nto another workspace and try again.",
                quote(n)
            ),
            WorkspaceError::DeleteDefault => f.write_str("cannot delete default state"),
            WorkspaceError::NotEmpty { name, objects } => {
                let d = not_empty_diagnostic(name, objects);
                write!(f, "{}: {}", d.summary, d.detail)
            }
            WorkspaceError::OverriddenSelect => f.write_str(
                "The selected workspace is currently overridden using the TF_WORKSPACE\nenvironment variable.\n\nTo select a new workspace, either update this environment variable or unset\nit and then run this command again.",
            ),
            WorkspaceError::OverriddenNew => f.write_str(
                "The workspace is currently overridden using the TF_WORKSPACE environment\nvariable. You cannot create a new workspace when using this setting.\n\nTo create a new workspace, either unset this environment variable or update it\nto match the workspace name you are trying to create, and then run this command\nagain.",
            ),
            WorkspaceError::InvalidEnvName => {
                f.write_str("Invalid workspace name set using TF_WORKSPACE")
            }
            WorkspaceError::Io(m) => f.write_str(m),
            WorkspaceError::State(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for WorkspaceError {}

impl WorkspaceError {
    /// The "Workspace is not empty" diagnostic, when that is the error.
    pub fn diagnostic(&self) -> Option<Diagnostic> {
        match self {
            WorkspaceError::NotEmpty { name, objects } => Some(not_empty_diagnostic(name, objects)),
            _ => None,
        }
    }
}

fn not_empty_diagnostic(name: &str, objects: &[String]) -> Diagnostic {
    let list: String = objects.iter().map(|o| format!("\n  - {o}")).collect();
    Diagnostic::error(
        "Workspace is not empty",
        format!(
            "Workspace {} is currently tracking the following resource instances:{list}\n\nDeleting this workspace would cause {PRODUCT} to lose track of any associated\nremote objects, which would then require you to delete them manually outside\nof {PRODUCT}. You should destroy these objects with {PRODUCT} before deleting\nthe workspace.\n\nIf you want to delete this workspace anyway, and have {PRODUCT} forget about\nthese managed objects, use the -force option to disable this safety check.",
            terrace_value::gostr::quote(name)
        ),
    )
}

/// What `select` did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SelectOutcome {
    /// It was already the selected workspace: Terraform says nothing.
    AlreadySelected,
    /// `Switched to workspace "NAME".`
    Switched,
    /// With `-or-create`: `Created and switched to workspace "NAME"!`…
    Created,
}

/// What `delete` did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeleteOutcome {
    /// The state still had objects (only possible with `force`): Terraform
    /// warns that they are no longer managed.
    pub was_non_empty: bool,
}

/// Terraform's messages for successful workspace commands.
pub mod messages {
    use terrace_syntax::PRODUCT;
    use terrace_value::gostr::quote;

    pub fn created(name: &str) -> String {
        format!(
            "Created and switched to workspace {}!\n\nYou're now on a new, empty workspace. Workspaces isolate their state,\nso if you run \"{PRODUCT} plan\" {PRODUCT} will not see any existing state\nfor this configuration.",
            quote(name)
        )
    }

    pub fn switched(name: &str) -> String {
        format!("Switched to workspace {}.", quote(name))
    }

    pub fn deleted(name: &str) -> String {
        format!("Deleted workspace {}!", quote(name))
    }

    pub fn deleted_non_empty(name: &str) -> String {
        format!(
            "WARNING: {} was non-empty.\nThe resources managed by the deleted workspace may still exist,\nbut are no longer manageable by {PRODUCT} since the state has\nbeen deleted.",
            quote(name)
        )
    }

    pub fn list_overridden() -> &'static str {
        "The active workspace is being overridden using the TF_WORKSPACE environment\nvariable."
    }
}

/// Go's `url.PathEscape(name) == name`: letters, digits and
/// `-_.~$&+:=@` only.
pub fn valid_workspace_name(name: &str) -> bool {
    name.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"-_.~$&+:=@".contains(&b))
}

/// The lock we hold: the open state file carrying the OS lock.
struct HeldLock {
    file: File,
    id: String,
    /// The state file did not exist before we locked it: an empty one is
    /// removed again on unlock.
    created: bool,
}

/// The local backend for one command: configuration, the workspace it
/// works on, and the state manager's memory (lock, last snapshot, whether
/// the backup was made).
pub struct LocalBackend {
    dir: PathBuf,
    data_dir: PathBuf,
    opts: LocalBackendOptions,
    workspace: String,
    version: String,
    lock: Option<HeldLock>,
    /// The last snapshot read or written: the base for serial and lineage.
    snapshot: Option<Snapshot>,
    snapshot_loaded: bool,
    /// Once written, reads come from the write path.
    written: bool,
    /// What was in the write path before this command: the backup content.
    backup_source: Option<Arc<StoredState>>,
    written_backup: bool,
    codec: StateCodec,
}

impl LocalBackend {
    /// The backend for the working directory `dir` (the data directory is
    /// `dir/.terraform`), on the workspace selected there.
    pub fn new(dir: impl Into<PathBuf>, opts: LocalBackendOptions) -> LocalBackend {
        let dir = dir.into();
        let data_dir = dir.join(".terraform");
        let mut b = LocalBackend {
            dir,
            data_dir,
            opts,
            workspace: DEFAULT_WORKSPACE.to_string(),
            version: TERRAFORM_VERSION.to_string(),
            lock: None,
            snapshot: None,
            snapshot_loaded: false,
            written: false,
            backup_source: None,
            written_backup: false,
            codec: StateCodec::disabled(),
        };
        b.workspace = b.selected_workspace_file();
        b
    }

    /// Uses another data directory (`TF_DATA_DIR`); relative to the
    /// working directory when relative.
    pub fn with_data_dir(mut self, data_dir: impl AsRef<Path>) -> LocalBackend {
        self.data_dir = self.dir.join(data_dir);
        self.workspace = self.selected_workspace_file();
        self
    }

    /// State files (and their backups, and `errored.tfstate`) are stored
    /// encrypted as `codec` says.
    pub fn with_encryption(mut self, codec: StateCodec) -> LocalBackend {
        self.codec = codec;
        self
    }

    /// A state file's stored bytes as a state, decrypted as this backend's
    /// files are.
    pub fn decode_stored(&self, bytes: &[u8]) -> Result<(State, Diagnostics), StateError> {
        super::decode_state(&self.codec, bytes).map(|(state, warnings, _)| (state, warnings))
    }

    /// The bytes this backend would store for `state` (encrypted as its
    /// files are).
    pub fn encode_stored(&self, state: &State) -> Result<Vec<u8>, StateError> {
        super::encode_state(&self.codec, state)
    }

    /// The version recorded in lock metadata and written states.
    pub fn with_version(mut self, version: impl Into<String>) -> LocalBackend {
        self.version = version.into();
        self
    }

    /// Works on `name` from now on (without selecting it on disk). Resets
    /// the state manager; the lock must not be held.
    pub fn use_workspace(&mut self, name: impl Into<String>) {
        self.workspace = name.into();
        self.snapshot = None;
        self.snapshot_loaded = false;
        self.written = false;
        self.backup_source = None;
        self.written_backup = false;
    }

    /// The workspace state operations work on.
    pub fn workspace(&self) -> &str {
        &self.workspace
    }

    fn resolve(&self, p: &Path) -> PathBuf {
        self.dir.join(p)
    }

    fn workspace_dir(&self) -> PathBuf {
        self.opts
            .workspace_dir
            .clone()
            .unwrap_or_else(|| PathBuf::from(DEFAULT_WORKSPACE_DIR))
    }

    // ----- workspaces -----

    /// The workspace named in the data directory's `environment` file,
    /// "default" without one.
    pub fn selected_workspace_file(&self) -> String {
        let path = self.data_dir.join(DEFAULT_WORKSPACE_FILE);
        match fs::read(path) {
            Ok(bytes) => {
                let name = String::from_utf8_lossy(&bytes).trim().to_string();
                if name.is_empty() {
                    DEFAULT_WORKSPACE.to_string()
                } else {
                    name
                }
            }
            Err(_) => DEFAULT_WORKSPACE.to_string(),
        }
    }

    /// The current workspace: `TF_WORKSPACE` when set, else the selected
    /// one.
    pub fn current_workspace(&self) -> Result<String, WorkspaceError> {
        self.current_workspace_with(std::env::var(WORKSPACE_ENV_VAR).ok().as_deref())
    }

    /// [`current_workspace`](Self::current_workspace) with the
    /// environment variable's value given.
    pub fn current_workspace_with(&self, env: Option<&str>) -> Result<String, WorkspaceError> {
        match env.filter(|e| !e.is_empty()) {
            Some(name) if !valid_workspace_name(name) => Err(WorkspaceError::InvalidEnvName),
            Some(name) => Ok(name.to_string()),
            None => Ok(self.selected_workspace_file()),
        }
    }

    /// Records `name` as the selected workspace.
    pub fn set_selected_workspace(&self, name: &str) -> Result<(), WorkspaceError> {
        fs::create_dir_all(&self.data_dir).map_err(|e| {
            WorkspaceError::Io(terrace_gocompat::oserror::path_error(
                "mkdir",
                &self.data_dir,
                &e,
            ))
        })?;
        let path = self.data_dir.join(DEFAULT_WORKSPACE_FILE);
        fs::write(&path, name.as_bytes()).map_err(|e| {
            WorkspaceError::Io(terrace_gocompat::oserror::path_error("open", &path, &e))
        })
    }

    /// "default" then the workspace directories, sorted.
    pub fn workspaces(&self) -> Result<Vec<String>, WorkspaceError> {
        let mut out = vec![DEFAULT_WORKSPACE.to_string()];
        let dir = self.resolve(&self.workspace_dir());
        let entries = match fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(out),
            Err(e) => {
                return Err(WorkspaceError::Io(terrace_gocompat::oserror::path_error(
                    "open", &dir, &e,
                )))
            }
        };
        let mut listed = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| {
                WorkspaceError::Io(terrace_gocompat::oserror::path_error(
                    "readdirent",
                    &dir,
                    &e,
                ))
            })?;
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                listed.push(entry.file_name().to_string_lossy().into_owned());
            }
        }
        listed.sort();
        out.extend(listed);
        Ok(out)
    }

    /// Makes sure a workspace's directory exists (what Terraform does
    /// before using a workspace).
    fn create_workspace_dir(&self, name: &str) -> Result<(), WorkspaceError> {
        if name == DEFAULT_WORKSPACE {
            return Ok(());
        }
        let dir = self.resolve(&self.workspace_dir()).join(name);
        fs::create_dir_all(&dir).map_err(|e| {
            WorkspaceError::Io(terrace_gocompat::oserror::path_error("mkdir", &dir, &e))
        })
    }

    /// `workspace new NAME`: creates and selects it.
    pub fn new_workspace(&mut self, name: &str) -> Result<(), WorkspaceError> {
        self.new_workspace_with(name, std::env::var(WORKSPACE_ENV_VAR).ok().as_deref())
    }

    pub fn new_workspace_with(
        &mut self,
        name: &str,
        env: Option<&str>,
    ) -> Result<(), WorkspaceError> {
        if !valid_workspace_name(name) {
            return Err(WorkspaceError::InvalidName(name.to_string()));
        }
        if let Some(e) = env.filter(|e| !e.is_empty()) {
            if e != name {
                return Err(WorkspaceError::OverriddenNew);
            }
        }
        if self.workspaces()?.iter().any(|w| w == name) {
            return Err(WorkspaceError::AlreadyExists(name.to_string()));
        }
        self.create_workspace_dir(name)?;
        self.set_selected_workspace(name)?;
        self.use_workspace(name);
        Ok(())
    }

    /// `workspace select [-or-create] NAME`.
    pub fn select_workspace(
        &mut self,
        name: &str,
        or_create: bool,
    ) -> Result<SelectOutcome, WorkspaceError> {
        self.select_workspace_with(
            name,
            or_create,
            std::env::var(WORKSPACE_ENV_VAR).ok().as_deref(),
        )
    }

    pub fn select_workspace_with(
        &mut self,
        name: &str,
        or_create: bool,
        env: Option<&str>,
    ) -> Result<SelectOutcome, WorkspaceError> {
        if env.is_some_and(|e| !e.is_empty()) {
            return Err(WorkspaceError::OverriddenSelect);
        }
        let current = self.current_workspace_with(None)?;
        if !valid_workspace_name(name) {
            return Err(WorkspaceError::InvalidName(name.to_string()));
        }
        let exists = self.workspaces()?.iter().any(|w| w == name);
        if name == current {
            return Ok(SelectOutcome::AlreadySelected);
        }
        let outcome = if exists {
            SelectOutcome::Switched
        } else if or_create {
            self.create_workspace_dir(name)?;
            SelectOutcome::Created
        } else {
            return Err(WorkspaceError::DoesNotExist(name.to_string()));
        };
        self.set_selected_workspace(name)?;
        self.use_workspace(name);
        Ok(outcome)
    }

    /// `workspace delete [-force] NAME`. The state is read (under a lock
    /// unless `lock_timeout` is `None`, i.e. `-lock=false`) to refuse
    /// deleting objects still tracked.
    pub fn delete_workspace(
        &mut self,
        name: &str,
        force: bool,
        lock_timeout: Option<Duration>,
    ) -> Result<DeleteOutcome, WorkspaceError> {
        self.delete_workspace_with(
            name,
            force,
            lock_timeout,
            std::env::var(WORKSPACE_ENV_VAR).ok().as_deref(),
        )
    }

    pub fn delete_workspace_with(
        &mut self,
        name: &str,
        force: bool,
        lock_timeout: Option<Duration>,
        env: Option<&str>,
    ) -> Result<DeleteOutcome, WorkspaceError> {
        if !valid_workspace_name(name) {
            return Err(WorkspaceError::InvalidName(name.to_string()));
        }
        if !self.workspaces()?.iter().any(|w| w == name) {
            return Err(WorkspaceError::DoesNotExist(name.to_string()));
        }
        if self.current_workspace_with(env)? == name {
            return Err(WorkspaceError::DeleteCurrent(name.to_string()));
        }
        // A separate manager: this one may be working on another workspace.
        let mut other = LocalBackend {
            dir: self.dir.clone(),
            data_dir: self.data_dir.clone(),
            opts: self.opts.clone(),
            workspace: name.to_string(),
            version: self.version.clone(),
            lock: None,
            snapshot: None,
            snapshot_loaded: false,
            written: false,
            backup_source: None,
            written_backup: false,
            codec: self.codec.clone(),
        };
        if let Some(timeout) = lock_timeout {
            other
                .lock("state-replace-provider", "", timeout)
                .map_err(|e| WorkspaceError::State(StateError::Lock(e)))?;
        }
        let read = other.read_state();
        // Released before deleting, as Terraform does: the files go away.
        if other.lock.is_some() {
            other.unlock().map_err(WorkspaceError::State)?;
        }
        let (state, _) = read.map_err(WorkspaceError::State)?;
        let objects = state.as_ref().map(tracked_objects).unwrap_or_default();
        let non_empty = state.as_ref().is_some_and(has_managed_objects);
        if non_empty && !force {
            return Err(WorkspaceError::NotEmpty {
                name: name.to_string(),
                objects,
            });
        }
        if name == DEFAULT_WORKSPACE {
            return Err(WorkspaceError::DeleteDefault);
        }
        let dir = self.resolve(&self.workspace_dir()).join(name);
        match fs::remove_dir_all(&dir) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(WorkspaceError::Io(terrace_gocompat::oserror::path_error(
                    "unlinkat", &dir, &e,
                )))
            }
        }
        Ok(DeleteOutcome {
            was_non_empty: non_empty,
        })
    }

    // ----- state paths -----

    /// Terraform's `StatePaths` for a workspace.
    pub fn state_paths(&self, workspace: &str) -> StatePaths {
        let is_default = workspace == DEFAULT_WORKSPACE || workspace.is_empty();
        let base = if is_default {
            PathBuf::new()
        } else {
            self.workspace_dir().join(workspace)
        };
        let read = match &self.opts.state {
            Some(p) => p.clone(),
            None => match (&self.opts.path, is_default) {
                (Some(p), true) => p.clone(),
                _ => base.join(DEFAULT_STATE_FILENAME),
            },
        };
        let write = self.opts.state_out.clone().unwrap_or_else(|| read.clone());
        let backup = match self.opts.backup.as_deref() {
            Some("-") => None,
            Some("") | None => {
                let mut s = write.clone().into_os_string();
                s.push(DEFAULT_BACKUP_EXTENSION);
                Some(PathBuf::from(s))
            }
            Some(p) => Some(PathBuf::from(p)),
        };
        StatePaths {
            read,
            write,
            backup,
        }
    }

    fn paths(&self) -> StatePaths {
        self.state_paths(&self.workspace)
    }

    /// `.NAME.lock.info` next to the state file (`NAME` without a leading
    /// dot).
    pub fn lock_info_path(&self) -> PathBuf {
        let write = self.resolve(&self.paths().write);
        let name = write
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let name = name.strip_prefix('.').unwrap_or(&name).to_string();
        write.with_file_name(format!(".{name}.lock.info"))
    }

    // ----- locking -----

    /// Whether this backend holds the state lock.
    pub fn is_locked(&self) -> bool {
        self.lock.is_some()
    }

    /// Takes the state lock for `operation` (`OperationTypeApply`…),
    /// retrying while someone else holds it until `timeout` has passed
    /// (`-lock-timeout`; zero tries once). Returns the lock ID.
    pub fn lock(
        &mut self,
        operation: &str,
        info: &str,
        timeout: Duration,
    ) -> Result<String, LockError> {
        let start = Instant::now();
        let mut delay = Duration::from_secs(1);
        loop {
            match self.try_lock(operation, info) {
                Ok(id) => return Ok(id),
                Err(LockAttempt::Replaced) => continue,
                Err(LockAttempt::Failed(e)) => {
                    let elapsed = start.elapsed();
                    if !e.retriable() || elapsed >= timeout {
                        return Err(e);
                    }
                    std::thread::sleep(delay.min(timeout - elapsed));
                    delay = (delay * 2).min(Duration::from_secs(16));
                }
            }
        }
    }

    fn try_lock(&mut self, operation: &str, info_text: &str) -> Result<String, LockAttempt> {
        let paths = self.paths();
        let write = self.resolve(&paths.write);
        if self.lock.is_some() {
            return Err(LockAttempt::Failed(LockError {
                message: format!(
                    "state {} already locked",
                    terrace_value::gostr::quote(&write.to_string_lossy())
                ),
                info: None,
            }));
        }
        let fail = |message: String| {
            LockAttempt::Failed(LockError {
                message,
                info: None,
            })
        };
        let existed = write.exists();
        if let Some(parent) = write.parent().filter(|p| !p.as_os_str().is_empty()) {
            fs::create_dir_all(parent)
                .map_err(|e| fail(terrace_gocompat::oserror::path_error("mkdir", parent, &e)))?;
        }
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&write)
            .map_err(|e| fail(terrace_gocompat::oserror::path_error("open", &write, &e)))?;
        if let Err(e) = os_lock(&file) {
            let mut errors = vec![terrace_gocompat::oserror::errno_text(&e)];
            let info = match self.read_lock_info() {
                Ok(info) => Some(Box::new(info)),
                Err(e) => {
                    errors.push(e);
                    None
                }
            };
            let message = if info.is_some() {
                errors.remove(0)
            } else {
                multierror(&errors)
            };
            return Err(LockAttempt::Failed(LockError { message, info }));
        }
        // Someone may have renamed a new state over the path between our
        // open and our lock: then we locked a file nobody reads.
        if !same_file(&file, &write) {
            return Err(LockAttempt::Replaced);
        }
        // The content to back up is read at the first write, not here: the
        // lock keeps it as it is until then, and a command that never
        // writes (a plan) does not hold a copy of a large file.
        let mut info = LockInfo::new(operation, self.version.clone());
        info.info = info_text.to_string();
        info.path = paths.read.to_string_lossy().into_owned();
        let info_path = self.lock_info_path();
        write_private_file(&info_path, info.to_json().as_bytes()).map_err(|e| {
            fail(format!(
                "could not write lock info for {}: {}",
                terrace_value::gostr::quote(&info.path),
                terrace_gocompat::oserror::path_error("open", &info_path, &e)
            ))
        })?;
        self.lock = Some(HeldLock {
            file,
            id: info.id.clone(),
            created: !existed,
        });
        Ok(info.id)
    }

    /// The lock metadata of whoever holds the lock.
    pub fn read_lock_info(&self) -> Result<LockInfo, String> {
        let path = self.lock_info_path();
        let bytes = fs::read(&path)
            .map_err(|e| terrace_gocompat::oserror::path_error("open", &path, &e))?;
        LockInfo::from_json(&bytes).map_err(|e| {
            format!(
                "state file {} locked, but could not unmarshal lock info: {e}",
                terrace_value::gostr::quote(&self.paths().read.to_string_lossy())
            )
        })
    }

    /// Releases the lock: removes the lock metadata, releases the OS lock,
    /// and removes the state file again if locking created it and nothing
    /// was written.
    pub fn unlock(&mut self) -> Result<(), StateError> {
        let Some(held) = self.lock.take() else {
            return Err(StateError::NotLocked);
        };
        // A missing metadata file does not stop the unlock.
        let _ = fs::remove_file(self.lock_info_path());
        let write = self.resolve(&self.paths().write);
        let empty = held.file.metadata().map(|m| m.len() == 0).unwrap_or(false);
        if held.created && empty && same_file(&held.file, &write) {
            let _ = fs::remove_file(&write);
        }
        drop(held.file);
        Ok(())
    }

    /// The lock ID, when locked.
    pub fn lock_id(&self) -> Option<&str> {
        self.lock.as_ref().map(|l| l.id.as_str())
    }

    // ----- reading and writing -----

    /// Reads the workspace's state: `None` when there is none (no file, or
    /// an empty one). Warnings from the file come with it.
    pub fn read_state(&mut self) -> Result<(Option<State>, Diagnostics), StateError> {
        let paths = self.paths();
        let path = self.resolve(if self.written {
            &paths.write
        } else {
            &paths.read
        });
        self.snapshot_loaded = false;
        let bytes = match fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
            Err(e) => {
                return Err(StateError::Io(terrace_gocompat::oserror::path_error(
                    "open", &path, &e,
                )))
            }
        };
        if bytes.is_empty() {
            self.snapshot = None;
            self.snapshot_loaded = true;
            return Ok((None, Vec::new()));
        }
        // A file we cannot read leaves nothing loaded, so that writing
        // refuses to replace it.
        let (state, warnings, _) = super::decode_state(&self.codec, &bytes)?;
        // The caller owns the state; the snapshot keeps what identifies it
        // and where it came from, and the file is read and decoded again
        // only if a write must compare with it: a command that never
        // writes holds one decoded state and no copy of the file.
        self.snapshot = Some(Snapshot::Read {
            lineage: state.lineage.clone(),
            serial: state.serial,
            path,
        });
        self.snapshot_loaded = true;
        Ok((Some(state), warnings))
    }

    /// Persists `state`, atomically. The lineage of the state already
    /// stored is kept; the serial goes up only when the content differs
    /// from the last snapshot read or written. The first write of a
    /// command that changes the state copies the previous file to the
    /// backup path. Returns the serial written.
    pub fn write_state(&mut self, state: &State) -> Result<u64, StateError> {
        let paths = self.paths();
        let write = self.resolve(&paths.write);
        if !self.snapshot_loaded {
            self.read_state()?;
        }
        if self.backup_source.is_none() {
            self.backup_source = Some(unparsed_stored_state(read_backup_source(&write)?));
        }
        let mut new = state.clone();
        new.terraform_version = self.version.clone();
        match &self.snapshot {
            Some(prev) => {
                let (lineage, serial) = prev.id();
                new.lineage = lineage.to_string();
                let unchanged = match prev {
                    Snapshot::Written(prev) => prev.deep_eq_ignoring_serial(&new),
                    // Read from the write path, the file is still what the
                    // backup keeps (nothing was written since): one read
                    // and one decoding serve both.
                    Snapshot::Read { path, .. } => {
                        let stored = if *path == write {
                            self.backup_source.clone()
                        } else {
                            fs::read(path).ok().map(unparsed_stored_state)
                        };
                        stored
                            .as_deref()
                            .and_then(|stored| stored.state(&self.codec))
                            .is_some_and(|prev| prev.deep_eq_ignoring_serial(&new))
                    }
                };
                new.serial = if unchanged { serial } else { serial + 1 };
            }
            None => {
                if new.lineage.is_empty() {
                    new.lineage = State::new_empty().lineage;
                }
                new.serial = state.serial + 1;
            }
        }
        let bytes = super::encode_state(&self.codec, &new)?;

        let changed = match self
            .backup_source
            .as_ref()
            .and_then(|b| b.state(&self.codec))
        {
            Some(prev) => {
                let mut same = prev.clone();
                same.lineage = new.lineage.clone();
                !same.deep_eq_ignoring_serial(&new)
            }
            _ => false,
        };
        let serial = new.serial;
        self.persist(&write, &paths, new, &bytes, changed)?;
        Ok(serial)
    }

    /// Writes `bytes` (the file form of `new`) to `write`, the first time
    /// `back_up` holds copying the previous content to the backup path.
    fn persist(
        &mut self,
        write: &Path,
        paths: &StatePaths,
        new: State,
        bytes: &[u8],
        back_up: bool,
    ) -> Result<(), StateError> {
        if back_up && !self.written_backup {
            let previous = self
                .backup_source
                .as_ref()
                .filter(|source| source.state(&self.codec).is_some());
            if let (Some(backup), Some(previous)) = (&paths.backup, previous) {
                let backup = self.resolve(backup);
                atomic_write(&backup, &previous.bytes, None).map_err(|e| {
                    StateError::Io(format!("failed to create local state backup file: {e}"))
                })?;
                self.written_backup = true;
            }
        }
        atomic_write(write, bytes, self.lock.as_mut().map(|l| &mut l.file))
            .map_err(StateError::Io)?;
        self.written = true;
        self.snapshot_loaded = true;
        self.snapshot = Some(Snapshot::Written(new));
        Ok(())
    }

    /// Persists `state` exactly, lineage and serial included, as a state
    /// migration copies it (`init -migrate-state`, `state push`): the
    /// previous content goes to the backup, the write is atomic.
    pub fn write_state_for_migration(&mut self, state: &State) -> Result<(), StateError> {
        let paths = self.paths();
        let write = self.resolve(&paths.write);
        if self.backup_source.is_none() {
            self.backup_source = Some(unparsed_stored_state(read_backup_source(&write)?));
        }
        let mut new = state.clone();
        new.terraform_version = self.version.clone();
        let bytes = super::encode_state(&self.codec, &new)?;
        self.persist(&write, &paths, new, &bytes, true)
    }

    /// The lineage and serial of the snapshot last read or written
    /// (`None`: there is no state yet).
    pub fn snapshot_id(&self) -> Option<(String, u64)> {
        self.snapshot.as_ref().map(|s| {
            let (lineage, serial) = s.id();
            (lineage.to_string(), serial)
        })
    }

    /// Writes `state` to `errored.tfstate` in the working directory (what
    /// Terraform does when the state cannot be persisted) and returns the
    /// path written.
    pub fn write_errored_state(&self, state: &State) -> Result<PathBuf, StateError> {
        let path = self.dir.join(ERRORED_STATE_FILENAME);
        let mut s = state.clone();
        s.terraform_version = self.version.clone();
        let bytes = super::encode_state(&self.codec, &s)?;
        atomic_write(&path, &bytes, None).map_err(StateError::Io)?;
        Ok(path)
    }
}

impl Drop for LocalBackend {
    fn drop(&mut self) {
        if self.lock.is_some() {
            let _ = self.unlock();
        }
    }
}

impl super::Backend for LocalBackend {
    fn type_name(&self) -> &'static str {
        "local"
    }
    fn workspace(&self) -> &str {
        LocalBackend::workspace(self)
    }
    fn use_workspace(&mut self, name: String) {
        LocalBackend::use_workspace(self, name)
    }
    fn current_workspace(&self) -> Result<String, WorkspaceError> {
        LocalBackend::current_workspace(self)
    }
    fn workspaces(&mut self) -> Result<Vec<String>, WorkspaceError> {
        LocalBackend::workspaces(self)
    }
    fn new_workspace(&mut self, name: &str) -> Result<(), WorkspaceError> {
        LocalBackend::new_workspace(self, name)
    }
    fn select_workspace(
        &mut self,
        name: &str,
        or_create: bool,
    ) -> Result<SelectOutcome, WorkspaceError> {
        LocalBackend::select_workspace(self, name, or_create)
    }
    fn delete_workspace(
        &mut self,
        name: &str,
        force: bool,
        lock_timeout: Option<Duration>,
    ) -> Result<DeleteOutcome, WorkspaceError> {
        LocalBackend::delete_workspace(self, name, force, lock_timeout)
    }
    fn lock(
        &mut self,
        operation: &str,
        info: &str,
        timeout: Duration,
    ) -> Result<String, LockError> {
        LocalBackend::lock(self, operation, info, timeout)
    }
    fn unlock(&mut self) -> Result<(), StateError> {
        LocalBackend::unlock(self)
    }
    /// A local lock belongs to the process holding the OS lock: no other
    /// process can release it, as terraform says.
    fn force_unlock(&mut self, _id: &str) -> Result<(), StateError> {
        if self.lock.is_some() {
            return LocalBackend::unlock(self);
        }
        Err(StateError::Io(
            "Local state cannot be unlocked by another process".to_string(),
        ))
    }
    fn is_locked(&self) -> bool {
        LocalBackend::is_locked(self)
    }
    fn read_state(&mut self) -> Result<(Option<State>, Diagnostics), StateError> {
        LocalBackend::read_state(self)
    }
    fn write_state(&mut self, state: &State) -> Result<u64, StateError> {
        LocalBackend::write_state(self, state)
    }
    fn write_state_for_migration(&mut self, state: &State) -> Result<(), StateError> {
        LocalBackend::write_state_for_migration(self, state)
    }
    fn snapshot_id(&self) -> Option<(String, u64)> {
        LocalBackend::snapshot_id(self)
    }
    fn write_errored_state(&self, state: &State) -> Result<PathBuf, StateError> {
        LocalBackend::write_errored_state(self, state)
    }
    fn journal_path(&self) -> PathBuf {
        let write = self.paths().write;
        let full = if write.is_absolute() {
            write
        } else if self.dir.as_os_str().is_empty() {
            Path::new(".").join(write)
        } else {
            self.dir.join(write)
        };
        let mut name = full.file_name().unwrap_or_default().to_os_string();
        name.push(".journal");
        full.with_file_name(name)
    }
    fn local(&self) -> Option<&LocalBackend> {
        Some(self)
    }
    fn local_mut(&mut self) -> Option<&mut LocalBackend> {
        Some(self)
    }
    fn describe_location(&self) -> String {
        self.paths().read.display().to_string()
    }
}

enum LockAttempt {
    /// The path now names another file; try again at once.
    Replaced,
    Failed(LockError),
}

/// A state file's bytes as read at a command's first write (what the
/// backup keeps), decoded only when the write must decide whether the
/// state changed.
struct StoredState {
    bytes: Vec<u8>,
    parsed: std::sync::OnceLock<Option<State>>,
}

impl StoredState {
    /// The previous state; `None` when there was no file or it was not a
    /// state file (`codec` decrypts an encrypted one).
    fn state(&self, codec: &StateCodec) -> Option<&State> {
        self.parsed
            .get_or_init(|| {
                if self.bytes.is_empty() {
                    return None;
                }
                let (state, _, _) = super::decode_state(codec, &self.bytes).ok()?;
                Some(state)
            })
            .as_ref()
    }
}

/// The state a command last read or wrote.
enum Snapshot {
    /// Read from the file: what identifies it, and the file.
    Read {
        lineage: String,
        serial: u64,
        path: PathBuf,
    },
    /// Written by this command.
    Written(State),
}

impl Snapshot {
    fn id(&self) -> (&str, u64) {
        match self {
            Snapshot::Read {
                lineage, serial, ..
            } => (lineage, *serial),
            Snapshot::Written(state) => (&state.lineage, state.serial),
        }
    }
}

/// What the write path holds before a command's first write: nothing when
/// there is no file, and an error (nothing is written) when there is one
/// that cannot be read, since it would be replaced without its backup.
fn read_backup_source(write: &Path) -> Result<Vec<u8>, StateError> {
    match fs::read(write) {
        Ok(bytes) => Ok(bytes),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(StateError::Io(terrace_gocompat::oserror::path_error(
            "open", write, &e,
        ))),
    }
}

fn unparsed_stored_state(bytes: Vec<u8>) -> Arc<StoredState> {
    Arc::new(StoredState {
        bytes,
        parsed: std::sync::OnceLock::new(),
    })
}

/// Whether everything the state tracks is gone: no managed resource
/// instance has an object.
pub(crate) fn has_managed_objects(state: &State) -> bool {
    state.resources.iter().any(|(addr, rs)| {
        addr.resource.mode == terrace_addrs::ResourceMode::Managed
            && rs.instances.values().any(|is| !is.is_empty())
    })
}

pub(crate) fn tracked_objects(state: &State) -> Vec<String> {
    let mut out = Vec::new();
    for (addr, _, is) in state.all_instances() {
        if is.current.is_some() {
            out.push(addr.to_string());
        }
        for dk in is.deposed.keys() {
            out.push(format!("{addr} (deposed object {dk})"));
        }
    }
    out
}

fn same_file(file: &File, path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (file.metadata(), fs::metadata(path)) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (file, path);
        true
    }
}

/// Takes an exclusive lock on the whole file without waiting. Linux gets
/// an open-file-description lock (conflicts with Terraform's `F_SETLK`
/// locks and with other handles in this process); other systems a
/// classic POSIX lock.
#[cfg(unix)]
fn os_lock(file: &File) -> io::Result<()> {
    use std::os::unix::io::AsRawFd;
    // SAFETY: `flock` is plain data; zeroed is a valid value, and the
    // fields that matter are set below.
    let mut fl: libc::flock = unsafe { std::mem::zeroed() };
    fl.l_type = libc::F_WRLCK as _;
    fl.l_whence = libc::SEEK_SET as _;
    fl.l_start = 0;
    fl.l_len = 0;
    #[cfg(any(target_os = "linux", target_os = "android"))]
    let cmd = libc::F_OFD_SETLK;
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    let cmd = libc::F_SETLK;
    // SAFETY: the descriptor is open for the duration of the call and
    // `fl` outlives it.
    let rc = unsafe { libc::fcntl(file.as_raw_fd(), cmd, &fl) };
    if rc == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

#[cfg(not(unix))]
fn os_lock(_file: &File) -> io::Result<()> {
    Ok(())
}

/// Writes a file only its owner can read (lock metadata).
fn write_private_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut opts = OpenOptions::new();
    opts.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    let mut f = opts.open(path)?;
    f.write_all(bytes)
}

/// Replaces `path` with `bytes` atomically: a synced temporary file in the
/// same directory renamed over it, keeping the old file's permissions.
/// With `lock`, the new file is locked before the rename and replaces the
/// handle holding the lock, so the lock follows the content.
pub(crate) fn atomic_write(
    path: &Path,
    bytes: &[u8],
    lock: Option<&mut File>,
) -> Result<(), String> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&dir)
        .map_err(|e| terrace_gocompat::oserror::path_error("mkdir", &dir, &e))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut rnd = [0u8; 6];
    getrandom::fill(&mut rnd).map_err(|e| format!("no random source: {e}"))?;
    let suffix: String = rnd.iter().map(|b| format!("{b:02x}")).collect();
    let tmp = dir.join(format!(".{name}.{suffix}.tmp"));
    let result = (|| {
        let mut f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(|e| terrace_gocompat::oserror::path_error("open", &tmp, &e))?;
        if let Ok(meta) = fs::metadata(path) {
            let _ = fs::set_permissions(&tmp, meta.permissions());
        }
        f.write_all(bytes)
            .map_err(|e| terrace_gocompat::oserror::path_error("write", &tmp, &e))?;
        f.sync_all()
            .map_err(|e| terrace_gocompat::oserror::path_error("sync", &tmp, &e))?;
        if lock.is_some() {
            os_lock(&f).map_err(|e| {
                format!(
                    "lock {}: {}",
                    tmp.display(),
                    terrace_gocompat::oserror::errno_text(&e)
                )
            })?;
        }
        fs::rename(&tmp, path).map_err(|e| {
            format!(
                "rename {} {}: {}",
                tmp.display(),
                path.display(),
                terrace_gocompat::oserror::errno_text(&e)
            )
        })?;
        Ok(f)
    })();
    match result {
        Ok(f) => {
            // The rename itself is durable only once the directory is.
            if let Ok(d) = File::open(&dir) {
                let _ = d.sync_all();
            }
            if let Some(held) = lock {
                *held = f;
            }
            Ok(())
        }
        Err(e) => {
            let _ = fs::remove_file(&tmp);
            Err(e)
        }
    }
}

#[cfg(test)]
#[path = "local_tests.rs"]
mod tests;
