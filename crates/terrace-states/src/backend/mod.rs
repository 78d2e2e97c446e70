//! Backends: where state snapshots are kept between runs. Only the local
//! backend exists so far; lock metadata and lock errors are shared so
//! that other backends print the same messages.

pub mod local;
mod lockinfo;

pub use local::{
    DeleteOutcome, LocalBackend, LocalBackendOptions, SelectOutcome, StateError, StatePaths,
    WorkspaceError, DEFAULT_BACKUP_EXTENSION, DEFAULT_STATE_FILENAME, DEFAULT_WORKSPACE,
    DEFAULT_WORKSPACE_DIR, DEFAULT_WORKSPACE_FILE, ERRORED_STATE_FILENAME, WORKSPACE_ENV_VAR,
};
pub use lockinfo::{go_time_string, rfc3339_nano, LockError, LockInfo};
