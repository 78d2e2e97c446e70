//! A backend whose states live in a store elsewhere (PostgreSQL, S3, an
//! HTTP server), as terraform's remote state manager keeps them: the store
//! only gets, puts and deletes one workspace's bytes and takes and
//! releases its lock; the rules of lineage, serial and workspaces are
//! here, once, for every store.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use terrace_syntax::Diagnostics;

use super::local::{
    valid_workspace_name, DeleteOutcome, SelectOutcome, StateError, WorkspaceError,
};
use super::lockinfo::{LockError, LockInfo};
use super::{Backend, OpenOptions, DEFAULT_WORKSPACE, ERRORED_STATE_FILENAME};
use crate::encryption::{ReadStatus, StateCodec};
use crate::model::State;

/// Where a remote backend keeps its states.
pub trait RemoteStore: Send {
    fn type_name(&self) -> &'static str;
    /// The workspaces with a stored state, "default" first (always there),
    /// then the others sorted.
    fn workspaces(&mut self) -> Result<Vec<String>, String>;
    /// A workspace's stored bytes; `None` when there are none.
    fn get(&mut self, workspace: &str) -> Result<Option<Vec<u8>>, String>;
    fn put(&mut self, workspace: &str, bytes: &[u8]) -> Result<(), String>;
    /// Removes a workspace's state.
    fn delete(&mut self, workspace: &str) -> Result<(), String>;
    /// Takes the workspace's lock for `info` (its ID is set; the store may
    /// set its `path`). A store configured without locking succeeds.
    fn lock(&mut self, workspace: &str, info: &mut LockInfo) -> Result<(), LockError>;
    /// Releases the lock `id` holds.
    fn unlock(&mut self, workspace: &str, id: &str) -> Result<(), LockError>;
    /// Releases a lock another process took and left behind.
    fn force_unlock(&mut self, workspace: &str, id: &str) -> Result<(), LockError> {
        self.unlock(workspace, id)
    }
    /// Where a workspace's state is, for messages and for naming its
    /// journal: `s3://bucket/key`, a URL, a table row.
    fn location(&self, workspace: &str) -> String;
}

/// A remote backend on one workspace: the store, and the state manager's
/// memory (lock, last snapshot).
pub struct RemoteBackend {
    store: Box<dyn RemoteStore>,
    dir: PathBuf,
    data_dir: PathBuf,
    version: String,
    workspace: String,
    lock: Option<String>,
    snapshot: Option<State>,
    snapshot_loaded: bool,
    codec: StateCodec,
    /// The last read used a fallback method: the next write stores the
    /// state again even when it has not changed, moving it to the first
    /// method.
    needs_migration: bool,
}

impl RemoteBackend {
    pub fn new(store: Box<dyn RemoteStore>, opts: &OpenOptions) -> RemoteBackend {
        let workspace = super::selected_workspace(&opts.data_dir);
        RemoteBackend {
            store,
            dir: opts.dir.clone(),
            data_dir: opts.data_dir.clone(),
            version: opts.version.clone(),
            workspace,
            lock: None,
            snapshot: None,
            snapshot_loaded: false,
            codec: StateCodec::disabled(),
            needs_migration: false,
        }
    }

    /// States are stored encrypted as `codec` says.
    pub fn with_encryption(mut self, codec: StateCodec) -> RemoteBackend {
        self.codec = codec;
        self
    }

    fn list(&mut self) -> Result<Vec<String>, WorkspaceError> {
        self.store.workspaces().map_err(WorkspaceError::Io)
    }

    /// What terraform does before using a workspace the store does not
    /// have: under the lock, an empty state is written, so the workspace
    /// exists (and is listed) from then on.
    fn create_workspace(&mut self, name: &str) -> Result<(), WorkspaceError> {
        let mut info = LockInfo::new("init", self.version.clone());
        let fail = |e: String| WorkspaceError::State(StateError::Io(e));
        self.store
            .lock(name, &mut info)
            .map_err(|e| WorkspaceError::State(StateError::Lock(e)))?;
        let result = (|| {
            let existing = self.store.get(name).map_err(fail)?;
            if existing.as_ref().is_none_or(|b| b.is_empty()) {
                let mut state = State::new_empty();
                state.terraform_version = self.version.clone();
                let bytes =
                    super::encode_state(&self.codec, &state).map_err(WorkspaceError::State)?;
                self.store.put(name, &bytes).map_err(fail)?;
            }
            Ok(())
        })();
        let unlocked = self.store.unlock(name, &info.id);
        result?;
        unlocked.map_err(|e| WorkspaceError::State(StateError::Lock(e)))
    }

    fn take_lock(&mut self, operation: &str, info_text: &str) -> Result<String, LockError> {
        if self.lock.is_some() {
            return Err(LockError {
                message: format!(
                    "state {} already locked",
                    terrace_value::gostr::quote(&self.store.location(&self.workspace))
                ),
                info: None,
            });
        }
        let mut info = LockInfo::new(operation, self.version.clone());
        info.info = info_text.to_string();
        let workspace = self.workspace.clone();
        self.store.lock(&workspace, &mut info)?;
        self.lock = Some(info.id.clone());
        Ok(info.id)
    }

    fn persist(&mut self, new: State) -> Result<(), StateError> {
        let bytes = super::encode_state(&self.codec, &new)?;
        let workspace = self.workspace.clone();
        self.store
            .put(&workspace, &bytes)
            .map_err(|e| StateError::Io(format!("Failed to upload state: {e}")))?;
        self.needs_migration = false;
        self.snapshot = Some(new);
        self.snapshot_loaded = true;
        Ok(())
    }
}

impl Backend for RemoteBackend {
    fn type_name(&self) -> &'static str {
        self.store.type_name()
    }

    fn workspace(&self) -> &str {
        &self.workspace
    }

    fn use_workspace(&mut self, name: String) {
        self.workspace = name;
        self.snapshot = None;
        self.snapshot_loaded = false;
    }

    fn current_workspace(&self) -> Result<String, WorkspaceError> {
        super::current_workspace_with(&self.data_dir, super::env_workspace().as_deref())
    }

    fn workspaces(&mut self) -> Result<Vec<String>, WorkspaceError> {
        self.list()
    }

    fn new_workspace(&mut self, name: &str) -> Result<(), WorkspaceError> {
        if !valid_workspace_name(name) {
            return Err(WorkspaceError::InvalidName(name.to_string()));
        }
        if let Some(e) = super::env_workspace().filter(|e| !e.is_empty()) {
            if e != name {
                return Err(WorkspaceError::OverriddenNew);
            }
        }
        if self.list()?.iter().any(|w| w == name) {
            return Err(WorkspaceError::AlreadyExists(name.to_string()));
        }
        self.create_workspace(name)?;
        super::set_selected_workspace(&self.data_dir, name)?;
        self.use_workspace(name.to_string());
        Ok(())
    }

    fn select_workspace(
        &mut self,
        name: &str,
        or_create: bool,
    ) -> Result<SelectOutcome, WorkspaceError> {
        if super::env_workspace().is_some_and(|e| !e.is_empty()) {
            return Err(WorkspaceError::OverriddenSelect);
        }
        let current = super::current_workspace_with(&self.data_dir, None)?;
        if !valid_workspace_name(name) {
            return Err(WorkspaceError::InvalidName(name.to_string()));
        }
        let exists = self.list()?.iter().any(|w| w == name);
        if name == current {
            return Ok(SelectOutcome::AlreadySelected);
        }
        let outcome = if exists {
            SelectOutcome::Switched
        } else if or_create {
            self.create_workspace(name)?;
            SelectOutcome::Created
        } else {
            return Err(WorkspaceError::DoesNotExist(name.to_string()));
        };
        super::set_selected_workspace(&self.data_dir, name)?;
        self.use_workspace(name.to_string());
        Ok(outcome)
    }

    fn delete_workspace(
        &mut self,
        name: &str,
        force: bool,
        lock_timeout: Option<Duration>,
    ) -> Result<DeleteOutcome, WorkspaceError> {
        if !valid_workspace_name(name) {
            return Err(WorkspaceError::InvalidName(name.to_string()));
        }
        if !self.list()?.iter().any(|w| w == name) {
            return Err(WorkspaceError::DoesNotExist(name.to_string()));
        }
        if self.current_workspace()? == name {
            return Err(WorkspaceError::DeleteCurrent(name.to_string()));
        }
        let previous = std::mem::replace(&mut self.workspace, name.to_string());
        self.snapshot = None;
        self.snapshot_loaded = false;
        let checked = (|| {
            if let Some(timeout) = lock_timeout {
                Backend::lock(self, "OperationTypeInvalid", "", timeout)
                    .map_err(|e| WorkspaceError::State(StateError::Lock(e)))?;
            }
            let read = Backend::read_state(self);
            if self.lock.is_some() {
                Backend::unlock(self).map_err(WorkspaceError::State)?;
            }
            read.map_err(WorkspaceError::State)
        })();
        self.use_workspace(previous);
        let (state, _) = checked?;
        let non_empty = state
            .as_ref()
            .is_some_and(super::local::has_managed_objects);
        if non_empty && !force {
            return Err(WorkspaceError::NotEmpty {
                name: name.to_string(),
                objects: state
                    .as_ref()
                    .map(super::local::tracked_objects)
                    .unwrap_or_default(),
            });
        }
        if name == DEFAULT_WORKSPACE {
            return Err(WorkspaceError::DeleteDefault);
        }
        self.store.delete(name).map_err(WorkspaceError::Io)?;
        Ok(DeleteOutcome {
            was_non_empty: non_empty,
        })
    }

    fn lock(
        &mut self,
        operation: &str,
        info: &str,
        timeout: Duration,
    ) -> Result<String, LockError> {
        let start = Instant::now();
        let mut delay = Duration::from_secs(1);
        loop {
            match self.take_lock(operation, info) {
                Ok(id) => return Ok(id),
                Err(e) => {
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

    fn unlock(&mut self) -> Result<(), StateError> {
        let Some(id) = self.lock.take() else {
            return Err(StateError::NotLocked);
        };
        let workspace = self.workspace.clone();
        self.store.unlock(&workspace, &id).map_err(StateError::Lock)
    }

    fn force_unlock(&mut self, id: &str) -> Result<(), StateError> {
        let workspace = self.workspace.clone();
        self.store
            .force_unlock(&workspace, id)
            .map_err(StateError::Lock)
    }

    fn is_locked(&self) -> bool {
        self.lock.is_some()
    }

    fn read_state(&mut self) -> Result<(Option<State>, Diagnostics), StateError> {
        let workspace = self.workspace.clone();
        self.snapshot_loaded = false;
        let bytes = self
            .store
            .get(&workspace)
            .map_err(|e| StateError::Io(format!("Failed to get state: {e}")))?;
        let Some(bytes) = bytes.filter(|b| !b.is_empty()) else {
            self.snapshot = None;
            self.snapshot_loaded = true;
            return Ok((None, Vec::new()));
        };
        let (state, warnings, status) = super::decode_state(&self.codec, &bytes)?;
        self.needs_migration = status == ReadStatus::Migration;
        self.snapshot = Some(state.clone());
        self.snapshot_loaded = true;
        Ok((Some(state), warnings))
    }

    fn write_state(&mut self, state: &State) -> Result<u64, StateError> {
        if !self.snapshot_loaded {
            Backend::read_state(self)?;
        }
        let mut new = state.clone();
        new.terraform_version = self.version.clone();
        match &self.snapshot {
            Some(prev) => {
                new.lineage = prev.lineage.clone();
                if prev.deep_eq_ignoring_serial(&new) && !self.needs_migration {
                    // Nothing changed: the stored snapshot stays, as
                    // terraform leaves a remote state it has no news for.
                    return Ok(prev.serial);
                }
                new.serial = prev.serial + 1;
            }
            None => {
                if new.lineage.is_empty() {
                    new.lineage = State::new_empty().lineage;
                }
                new.serial = state.serial + 1;
            }
        }
        let serial = new.serial;
        self.persist(new)?;
        Ok(serial)
    }

    fn write_state_for_migration(&mut self, state: &State) -> Result<(), StateError> {
        let mut new = state.clone();
        new.terraform_version = self.version.clone();
        self.persist(new)
    }

    fn snapshot_id(&self) -> Option<(String, u64)> {
        self.snapshot
            .as_ref()
            .map(|s| (s.lineage.clone(), s.serial))
    }

    fn write_errored_state(&self, state: &State) -> Result<PathBuf, StateError> {
        let path = self.dir.join(ERRORED_STATE_FILENAME);
        let mut s = state.clone();
        s.terraform_version = self.version.clone();
        let bytes = super::encode_state(&self.codec, &s)?;
        super::local::atomic_write(&path, &bytes, None).map_err(StateError::Io)?;
        Ok(path)
    }

    fn journal_path(&self) -> PathBuf {
        journal_path_for(
            &self.data_dir,
            self.store.type_name(),
            &self.store.location(&self.workspace),
        )
    }

    fn describe_location(&self) -> String {
        self.store.location(&self.workspace)
    }
}

impl Drop for RemoteBackend {
    fn drop(&mut self) {
        if self.lock.is_some() {
            let _ = Backend::unlock(self);
        }
    }
}

/// `DATA_DIR/journals/TYPE-DIGEST.journal`: a remote workspace's apply
/// journal stays on this machine, named by where the state lives so that
/// two backends or workspaces never share one.
pub fn journal_path_for(data_dir: &Path, type_name: &str, location: &str) -> PathBuf {
    use md5::Digest;
    let digest = md5::Md5::digest(location.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    data_dir
        .join("journals")
        .join(format!("{type_name}-{hex}.journal"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encryption::{KeyProvider, Method, Pbkdf2KeyProvider, Target};
    use std::collections::BTreeMap;
    use std::sync::{Arc, Mutex};

    /// A store in memory, shared with the test that inspects it.
    struct MemoryStore(Arc<Mutex<BTreeMap<String, Vec<u8>>>>);

    impl RemoteStore for MemoryStore {
        fn type_name(&self) -> &'static str {
            "memory"
        }
        fn workspaces(&mut self) -> Result<Vec<String>, String> {
            Ok(vec![DEFAULT_WORKSPACE.to_string()])
        }
        fn get(&mut self, workspace: &str) -> Result<Option<Vec<u8>>, String> {
            Ok(self
                .0
                .lock()
                .map_err(|e| e.to_string())?
                .get(workspace)
                .cloned())
        }
        fn put(&mut self, workspace: &str, bytes: &[u8]) -> Result<(), String> {
            self.0
                .lock()
                .map_err(|e| e.to_string())?
                .insert(workspace.to_string(), bytes.to_vec());
            Ok(())
        }
        fn delete(&mut self, workspace: &str) -> Result<(), String> {
            self.0.lock().map_err(|e| e.to_string())?.remove(workspace);
            Ok(())
        }
        fn lock(&mut self, _: &str, _: &mut LockInfo) -> Result<(), LockError> {
            Ok(())
        }
        fn unlock(&mut self, _: &str, _: &str) -> Result<(), LockError> {
            Ok(())
        }
        fn location(&self, workspace: &str) -> String {
            format!("memory/{workspace}")
        }
    }

    /// A state read through a fallback is stored again with the first
    /// method even when nothing in it changed: that is how a state moves
    /// into encryption (or to a new key) on a remote backend.
    #[test]
    fn an_unchanged_state_read_through_a_fallback_is_rewritten() {
        let stored = Arc::new(Mutex::new(BTreeMap::new()));
        let opts = OpenOptions {
            dir: std::env::temp_dir(),
            data_dir: std::env::temp_dir().join("terrace-remote-migration-test"),
            version: "1.11.4".to_string(),
        };
        let mut plain = RemoteBackend::new(Box::new(MemoryStore(stored.clone())), &opts);
        plain.use_workspace(DEFAULT_WORKSPACE.to_string());
        let state = State::new_empty();
        Backend::write_state(&mut plain, &state).expect("written");
        let before = stored.lock().expect("store")[DEFAULT_WORKSPACE].clone();
        assert!(!crate::encryption::is_envelope(&before));

        let mut keys =
            Pbkdf2KeyProvider::new("key_provider.pbkdf2.k", "correct-horse-battery-staple");
        keys.iterations = crate::encryption::PBKDF2_MINIMUM_ITERATIONS;
        let target = Target::new(
            "state",
            vec![
                Method::AesGcm {
                    address: "method.aes_gcm.k".into(),
                    keys: KeyProvider::Pbkdf2(keys),
                    aad: Vec::new(),
                },
                Method::Unencrypted {
                    address: "method.unencrypted.m".into(),
                },
            ],
            false,
        )
        .expect("valid");
        let mut encrypted = RemoteBackend::new(Box::new(MemoryStore(stored.clone())), &opts)
            .with_encryption(StateCodec(Some(Arc::new(target))));
        encrypted.use_workspace(DEFAULT_WORKSPACE.to_string());
        let (read, _) = Backend::read_state(&mut encrypted).expect("read through the fallback");
        let read = read.expect("a state");
        Backend::write_state(&mut encrypted, &read).expect("written");
        let after = stored.lock().expect("store")[DEFAULT_WORKSPACE].clone();
        assert!(
            crate::encryption::is_envelope(&after),
            "rewritten encrypted"
        );

        // Read with the first method now: an unchanged state stays as it is.
        let (again, _) = Backend::read_state(&mut encrypted).expect("read");
        Backend::write_state(&mut encrypted, &again.expect("a state")).expect("written");
        assert_eq!(stored.lock().expect("store")[DEFAULT_WORKSPACE], after);
    }
}
