//! The apply journal: one line per object the engine records, appended as
//! soon as the provider's answer is in, so a process killed mid-apply
//! (even with SIGKILL) loses no object it created. Rewriting the whole
//! state after every object would cost O(n) per object; an append costs
//! O(1). The file lives next to the state (`terraform.tfstate.journal`);
//! after the final state write it is removed, and a command that finds
//! one folds it into the state before anything else (`recover`).
//!
//! Each line is a JSON object: `addr` (the resource instance), `deposed`
//! (its deposed key, or null), and `state`: a one-instance state in
//! format 4 holding the new object, or null when the object is gone.
//! Reusing the state format keeps one encoder for objects. A torn last
//! line (the kill landed inside a write) is skipped.

use serde_json::{json, Value as Json};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use terrace_addrs::{AbsProviderConfig, AbsResourceInstance, InstanceKey};
use terrace_states::model::{DeposedKey, ObjectState, State};
use terrace_states::statefile;
use terrace_syntax::Diagnostic;

pub struct Journal {
    path: PathBuf,
    file: Mutex<Option<File>>,
}

impl Journal {
    /// The journal of the state written to `state_path` (relative to
    /// `dir` unless absolute).
    pub fn path_for(state_path: &Path, dir: &Path) -> PathBuf {
        let full = if state_path.is_absolute() {
            state_path.to_path_buf()
        } else {
            dir.join(state_path)
        };
        let mut name = full.file_name().unwrap_or_default().to_os_string();
        name.push(".journal");
        full.with_file_name(name)
    }

    pub fn new(path: PathBuf) -> Journal {
        Journal {
            path,
            file: Mutex::new(None),
        }
    }

    /// Appends one object change. Failures to write are reported on
    /// stderr once per failure and do not stop the apply: the final state
    /// write still records everything.
    pub fn record(
        &self,
        addr: &AbsResourceInstance,
        deposed: Option<&DeposedKey>,
        provider: &AbsProviderConfig,
        provider_key: &InstanceKey,
        object: Option<&ObjectState>,
    ) {
        let state = object.map(|object| {
            let mut one = State::new_with_lineage("journal");
            match deposed {
                None => one.set_current(
                    addr,
                    provider.clone(),
                    provider_key.clone(),
                    Some(object.clone()),
                ),
                Some(key) => one.set_deposed(
                    addr,
                    key.clone(),
                    provider.clone(),
                    provider_key.clone(),
                    Some(object.clone()),
                ),
            }
            serde_json::from_slice::<Json>(&statefile::write(&one)).unwrap_or(Json::Null)
        });
        let line = json!({
            "addr": addr.to_string(),
            "deposed": deposed.map(|k| k.to_string()),
            "provider": provider.to_string(),
            "state": state,
        });
        let mut text = line.to_string();
        text.push('\n');
        let mut guard = self.file.lock().unwrap_or_else(PoisonError::into_inner);
        if guard.is_none() {
            match OpenOptions::new()
                .create(true)
                .append(true)
                .open(&self.path)
            {
                Ok(f) => *guard = Some(f),
                Err(e) => {
                    eprintln!(
                        "terrace: cannot write the apply journal {}: {e}",
                        self.path.display()
                    );
                    return;
                }
            }
        }
        if let Some(file) = guard.as_mut() {
            // One write per line: an append of a few KiB is not interleaved,
            // and a kill leaves at worst a torn last line.
            if let Err(e) = file.write_all(text.as_bytes()) {
                eprintln!(
                    "terrace: cannot write the apply journal {}: {e}",
                    self.path.display()
                );
            }
        }
    }

    /// The apply finished and its state is written: the journal has
    /// nothing more to give.
    pub fn finish(&self) {
        let mut guard = self.file.lock().unwrap_or_else(PoisonError::into_inner);
        *guard = None;
        Journal::remove(&self.path);
    }

    pub fn remove(path: &Path) {
        let _ = std::fs::remove_file(path);
    }

    /// Folds a journal left by an interrupted apply into `state`; the
    /// number of changes applied (0 when there is no journal).
    pub fn recover(path: &Path, mut state: State) -> Result<(State, usize), Box<Diagnostic>> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((state, 0)),
            Err(e) => {
                return Err(Box::new(Diagnostic::error(
                    "Failed to read the apply journal",
                    format!("{}: {e}", path.display()),
                )))
            }
        };
        let mut applied = 0;
        for line in text.lines() {
            let Ok(entry) = serde_json::from_str::<Json>(line) else {
                // A torn line: the kill landed in the middle of it.
                continue;
            };
            let Some(addr) = entry
                .get("addr")
                .and_then(Json::as_str)
                .and_then(|a| AbsResourceInstance::parse_str(a).ok())
            else {
                continue;
            };
            let deposed = entry
                .get("deposed")
                .and_then(Json::as_str)
                .and_then(DeposedKey::parse);
            match entry.get("state") {
                Some(one) if !one.is_null() => {
                    let bytes = one.to_string().into_bytes();
                    let Ok((one, _)) = statefile::read(&bytes) else {
                        continue;
                    };
                    let Some(resource) = one.resources.get(&addr.containing_resource()) else {
                        continue;
                    };
                    let Some(instance) = resource.instances.get(&addr.resource.key) else {
                        continue;
                    };
                    let provider = resource.provider.clone();
                    let key = instance.provider_key.clone();
                    match &deposed {
                        None => state.set_current(&addr, provider, key, instance.current.clone()),
                        Some(d) => {
                            let object = instance.deposed.get(d).cloned();
                            state.set_deposed(&addr, d.clone(), provider, key, object)
                        }
                    }
                }
                _ => {
                    let Some(existing) = state.provider_instance(&addr) else {
                        continue;
                    };
                    let (config, key) = (existing.config.clone(), existing.key.clone());
                    match &deposed {
                        None => state.set_current(&addr, config, key, None),
                        Some(d) => state.set_deposed(&addr, d.clone(), config, key, None),
                    }
                }
            }
            applied += 1;
        }
        Ok((state, applied))
    }
}
