//! The apply journal: one line per object the engine records, appended as
//! soon as the provider's answer is in and before the UI reports the
//! object done, so a process killed mid-apply (even with SIGKILL) loses no
//! object it created. Rewriting the whole state after every object would
//! cost O(n) per object; an append costs O(1). The file lives next to the
//! state (`terraform.tfstate.journal`), is created before the apply starts
//! with the state file's permissions, and is removed once the final state
//! is written.
//!
//! The file is a sequence of JSON lines:
//! - first a header, `{"journal":2,"base":{"lineage":L,"serial":N}}`: the
//!   state snapshot the entries apply to (`"base":null` when there was no
//!   state file);
//! - entries, `{"addr":..,"deposed":..,"provider":..,"state":..}`: `state`
//!   is a one-instance state in format 4 holding the new object, or null
//!   when the object is gone (reusing the state format keeps one encoder);
//! - fold marks, `{"folded_into":{"lineage":L,"serial":N}}`: every entry
//!   above is in that snapshot, so only entries after the last mark are
//!   still to be applied, and they apply to it.
//!
//! A journal is replayed only by a command that holds the state lock, only
//! when no process still writes it (the writer holds an exclusive `flock`
//! on it for its whole life), and only onto the snapshot it names. A
//! journal whose snapshot is gone (another tool changed the state since) is
//! dropped when the state already holds everything it records, and is
//! otherwise refused with an error naming each object, never merged into a
//! state it does not belong to. A torn last line (the kill landed inside a
//! write) is skipped.

use serde_json::{json, Value as Json};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};
use terrace_addrs::{AbsProviderConfig, AbsResourceInstance, InstanceKey};
use terrace_gocompat::json as gojson;
use terrace_states::model::{DeposedKey, ObjectState, State};
use terrace_states::statefile;
use terrace_syntax::Diagnostic;

const JOURNAL_FORMAT: u64 = 2;

/// The state snapshot a journal's entries apply to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnapshotId {
    pub lineage: String,
    pub serial: u64,
}

impl SnapshotId {
    pub fn of(state: &State) -> SnapshotId {
        SnapshotId {
            lineage: state.lineage.clone(),
            serial: state.serial,
        }
    }

    fn to_json(&self) -> Json {
        json!({ "lineage": self.lineage, "serial": self.serial })
    }

    fn from_json(j: &Json) -> Option<SnapshotId> {
        Some(SnapshotId {
            lineage: j.get("lineage")?.as_str()?.to_string(),
            serial: j.get("serial")?.as_u64()?,
        })
    }
}

/// The journal of one apply, open for appending.
pub struct Journal {
    path: PathBuf,
    file: Mutex<JournalFile>,
}

struct JournalFile {
    file: Option<File>,
    /// A write failed: said once, not again for every object.
    failure_reported: bool,
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

    /// Creates the journal of an apply over `base` (`None`: no state file
    /// yet), with the permissions of the state file at `state_path` when
    /// it exists. Fails when a journal is already there: another apply
    /// writes it, or one was interrupted and not yet recovered.
    pub fn create(
        path: PathBuf,
        base: Option<&SnapshotId>,
        state_path: &Path,
    ) -> Result<Journal, Box<Diagnostic>> {
        let failed = |detail: String| {
            Box::new(Diagnostic::error(
                "Failed to create the apply journal",
                format!(
                    "{} records every object an apply changes in {} before reporting it, so that an interrupted apply loses nothing, and it could not create that file: {detail}. Nothing was changed.",
                    crate::PRODUCT,
                    path.display()
                ),
            ))
        };
        let mut options = OpenOptions::new();
        options.write(true).append(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            // Never wider than the state it mirrors (sensitive values are
            // in it): created private, then given the state file's mode.
            options.mode(0o600);
        }
        let mut file = match options.open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                return Err(Box::new(journal_in_use(&path)));
            }
            Err(e) => return Err(failed(e.to_string())),
        };
        let mode = match std::fs::metadata(state_path) {
            Ok(meta) => Some(meta.permissions()),
            Err(_) => default_file_permissions(),
        };
        if let Some(mode) = mode {
            if let Err(e) = file.set_permissions(mode) {
                let _ = std::fs::remove_file(&path);
                return Err(failed(e.to_string()));
            }
        }
        if let Err(e) = lock_exclusive(&file, false) {
            let _ = std::fs::remove_file(&path);
            return Err(failed(e.to_string()));
        }
        let header = json!({
            "journal": JOURNAL_FORMAT,
            "base": base.map(SnapshotId::to_json),
        });
        let mut line = header.to_string();
        line.push('\n');
        if let Err(e) = file.write_all(line.as_bytes()) {
            let _ = std::fs::remove_file(&path);
            return Err(failed(e.to_string()));
        }
        Ok(Journal {
            path,
            file: Mutex::new(JournalFile {
                file: Some(file),
                failure_reported: false,
            }),
        })
    }

    fn file(&self) -> MutexGuard<'_, JournalFile> {
        self.file.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Appends one object change. A failed write is reported on stderr
    /// once and does not stop the apply: the final state write still
    /// records everything, and its own failure is handled loudly.
    pub fn record(
        &self,
        addr: &AbsResourceInstance,
        deposed: Option<&DeposedKey>,
        provider: &AbsProviderConfig,
        provider_key: &InstanceKey,
        object: Option<&ObjectState>,
    ) {
        let state = object.map(|object| {
            statefile::write_compact_one("journal", addr, deposed, provider, provider_key, object).0
        });
        // The line is assembled as text, the state embedded as the state
        // writer gives it: parsing it into a JSON tree only to print it
        // again cost a third of an apply's time.
        let mut line = String::from("{\"addr\":");
        gojson::write_string(&mut line, &addr.to_string());
        line.push_str(",\"deposed\":");
        match deposed {
            Some(key) => gojson::write_string(&mut line, &key.to_string()),
            None => line.push_str("null"),
        }
        line.push_str(",\"provider\":");
        gojson::write_string(&mut line, &provider.to_string());
        line.push_str(",\"state\":");
        line.push_str(state.as_deref().unwrap_or("null"));
        line.push('}');
        self.append_text(line);
    }

    fn append(&self, line: &Json) {
        self.append_text(line.to_string());
    }

    fn append_text(&self, mut text: String) {
        text.push('\n');
        let mut guard = self.file();
        let Some(file) = guard.file.as_mut() else {
            return;
        };
        // One write per line: an append of a few KiB is not interleaved,
        // and a kill leaves at worst a torn last line.
        if let Err(e) = file.write_all(text.as_bytes()) {
            if !guard.failure_reported {
                guard.failure_reported = true;
                eprintln!(
                    "{}: cannot write the apply journal {}: {e}",
                    crate::PRODUCT,
                    self.path.display()
                );
            }
        }
    }

    /// The state holding every entry so far was written as `snapshot`:
    /// recorded first, so that a kill before the journal is removed leaves
    /// a journal recovery knows to be folded already.
    pub fn folded_into(&self, snapshot: &SnapshotId) {
        self.append(&json!({ "folded_into": snapshot.to_json() }));
    }

    /// The apply is over and its state written: the journal has nothing
    /// more to give.
    pub fn finish(&self, snapshot: &SnapshotId) {
        self.folded_into(snapshot);
        let mut guard = self.file();
        guard.file = None;
        let _ = std::fs::remove_file(&self.path);
    }

    /// An emergency save: `save` folds the journal (at the path it is
    /// given) into the state and returns the snapshot it wrote, with
    /// appends held off meanwhile. After a save the journal takes no more
    /// entries and is removed; without one it stays for recovery.
    pub fn fold_in_emergency(&self, save: impl FnOnce(&Path) -> Option<SnapshotId>) {
        let mut guard = self.file();
        if let Some(snapshot) = save(&self.path) {
            let mut line = json!({ "folded_into": snapshot.to_json() }).to_string();
            line.push('\n');
            if let Some(file) = guard.file.as_mut() {
                let _ = file.write_all(line.as_bytes());
            }
            guard.file = None;
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

fn journal_in_use(path: &Path) -> Diagnostic {
    Diagnostic::error(
        "Apply journal in use",
        format!(
            "The apply journal {} exists: another {} apply is running without the state lock, or an interrupted apply has not been recovered yet. Run the command again without -lock=false once no other apply is running; it recovers an interrupted apply's objects into the state first.",
            path.display(),
            crate::PRODUCT
        ),
    )
}

/// 0666 less the process's umask: what a new state file gets.
fn default_file_permissions() -> Option<std::fs::Permissions> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // SAFETY: umask(2) cannot fail; it is set straight back.
        let mask = unsafe {
            let m = libc::umask(0o022);
            libc::umask(m);
            m
        };
        Some(std::fs::Permissions::from_mode(0o666 & !(mask as u32)))
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// An exclusive `flock` on the whole file; `nonblocking`: fail at once
/// when someone else holds it.
fn lock_exclusive(file: &File, nonblocking: bool) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::io::AsRawFd;
        let op = if nonblocking {
            libc::LOCK_EX | libc::LOCK_NB
        } else {
            libc::LOCK_EX
        };
        // SAFETY: the descriptor is open for the duration of the call.
        if unsafe { libc::flock(file.as_raw_fd(), op) } == -1 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    }
    #[cfg(not(unix))]
    {
        let _ = (file, nonblocking);
        Ok(())
    }
}

/// What recovery found.
pub enum Recovery {
    /// No journal.
    None,
    /// The state with the journal's outstanding entries applied (`applied`
    /// of them); the caller writes it, then removes the journal.
    Replayed { state: State, applied: usize },
    /// The state already holds everything the journal records; the caller
    /// removes the journal.
    AlreadyFolded,
}

/// Who is asking to recover a journal.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Recoverer {
    /// A command holding the state lock: the journal is recovered unless a
    /// live process still writes it.
    LockHolder,
    /// A reader that takes the journal as it is now, live or not: the
    /// process writing it, saving in an emergency with appends held off
    /// (`Journal::fold_in_emergency`), or a state command showing or
    /// editing the state with what the journal adds.
    Unchecked,
}

/// One parsed journal.
struct Parsed {
    base: Option<SnapshotId>,
    /// A journal without a header (written before headers existed): its
    /// base is unknown.
    legacy: bool,
    /// Entries after the last fold mark.
    outstanding: Vec<Json>,
    /// Every entry, folded or not.
    all: Vec<Json>,
}

fn parse(text: &str) -> Parsed {
    let mut parsed = Parsed {
        base: None,
        legacy: true,
        outstanding: Vec::new(),
        all: Vec::new(),
    };
    for (i, line) in text.lines().enumerate() {
        let Ok(entry) = serde_json::from_str::<Json>(line) else {
            // A torn line: the kill landed in the middle of it.
            continue;
        };
        if i == 0 && entry.get("journal").is_some() {
            parsed.legacy = false;
            parsed.base = entry.get("base").and_then(SnapshotId::from_json);
            continue;
        }
        if let Some(mark) = entry.get("folded_into") {
            parsed.base = SnapshotId::from_json(mark);
            parsed.outstanding.clear();
            continue;
        }
        parsed.outstanding.push(entry.clone());
        parsed.all.push(entry);
    }
    parsed
}

/// Reads the journal at `path` and decides what it means for `current`
/// (the state as stored now; `None` when there is no state file).
pub fn recover(
    path: &Path,
    current: Option<&State>,
    who: Recoverer,
) -> Result<Recovery, Box<Diagnostic>> {
    let read_failed = |e: std::io::Error| {
        Box::new(Diagnostic::error(
            "Failed to read the apply journal",
            format!("{}: {e}", path.display()),
        ))
    };
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Recovery::None),
        Err(e) => return Err(read_failed(e)),
    };
    if who == Recoverer::LockHolder {
        match lock_exclusive(&file, true) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                return Err(Box::new(journal_in_use(path)));
            }
            Err(e) => return Err(read_failed(e)),
        }
    }
    let text = std::fs::read_to_string(path).map_err(read_failed)?;
    let parsed = parse(&text);
    let empty = State::new_empty();
    let current_state = current.unwrap_or(&empty);
    let base_matches = match (&parsed.base, current) {
        _ if parsed.legacy => true,
        (None, None) => true,
        (Some(base), Some(state)) => *base == SnapshotId::of(state),
        _ => false,
    };
    if base_matches {
        if parsed.outstanding.is_empty() {
            return Ok(Recovery::AlreadyFolded);
        }
        let mut state = current_state.clone();
        let applied = replay(&parsed.outstanding, &mut state);
        return Ok(Recovery::Replayed { state, applied });
    }
    // The state moved on since the journal was written. If it holds every
    // object the journal records, the journal was folded into it (a kill
    // between the state write and the journal's removal).
    let mut replayed = current_state.clone();
    replay(&parsed.all, &mut replayed);
    if replayed.deep_eq_ignoring_serial(current_state) {
        return Ok(Recovery::AlreadyFolded);
    }
    Err(Box::new(mismatch_diagnostic(path, &parsed, current_state)))
}

fn mismatch_diagnostic(path: &Path, parsed: &Parsed, current: &State) -> Diagnostic {
    let base = match &parsed.base {
        Some(b) => format!("state lineage {:?} serial {}", b.lineage, b.serial),
        None => "an empty state".to_string(),
    };
    let mut objects = Vec::new();
    for entry in &parsed.all {
        let addr = entry.get("addr").and_then(Json::as_str).unwrap_or("?");
        let id = entry
            .get("state")
            .and_then(|s| s.get("resources"))
            .and_then(|r| r.get(0))
            .and_then(|r| r.get("instances"))
            .and_then(|i| i.get(0))
            .and_then(|i| i.get("attributes"))
            .and_then(|a| a.get("id"))
            .and_then(Json::as_str);
        let line = match (entry.get("state"), id) {
            (Some(s), _) if s.is_null() => format!("  - {addr}: removed"),
            (_, Some(id)) => format!("  - {addr} [id={id}]"),
            _ => format!("  - {addr}"),
        };
        if !objects.contains(&line) {
            objects.push(line);
        }
    }
    Diagnostic::error(
        "Apply journal does not match the state",
        format!(
            "An interrupted apply recorded the objects below in {} on top of {base}, but the state is now lineage {:?} serial {}: another run changed it since. {} will not merge the journal into a state it does not belong to.\n\nObjects the journal records:\n{}\n\nCompare them with the state and the real infrastructure: import the objects that exist and are not in the state, or delete them, then remove {} to continue.",
            path.display(),
            current.lineage,
            current.serial,
            crate::PRODUCT,
            objects.join("\n"),
            path.display()
        ),
    )
}

/// Applies journal entries to `state`; returns how many applied.
fn replay(entries: &[Json], state: &mut State) -> usize {
    let mut applied = 0;
    for entry in entries {
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
    applied
}

/// Whether `state` already holds every object the journal at `path`
/// records: the `errored.tfstate` of the apply that wrote the journal
/// does, so pushing it settles the journal whatever the stored state has
/// become meanwhile (a backend that lost its data).
pub fn folded_into(path: &Path, state: &State) -> bool {
    let Ok(text) = std::fs::read_to_string(path) else {
        return false;
    };
    let parsed = parse(&text);
    if parsed.legacy || parsed.all.is_empty() {
        return false;
    }
    let mut replayed = state.clone();
    replay(&parsed.all, &mut replayed);
    replayed.deep_eq_ignoring_serial(state)
}

pub fn remove(path: &Path) {
    let _ = std::fs::remove_file(path);
}
