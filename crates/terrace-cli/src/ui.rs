//! What `plan` and `apply` print while the engine works, as terraform
//! prints it: `Refreshing state...`, `Creating...`, `Still creating...
//! [10s elapsed]`, `Creation complete after 2s [id=...]`. What Ctrl-C
//! does is `interrupt`'s business; the engine hears of it here.

use crate::interrupt::Interrupt;
use crate::journal::Journal;
use crate::json_ui;
use serde_json::{json, Value as Json};
use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};
use terrace_addrs::{AbsProviderConfig, AbsResourceInstance, InstanceKey};
use terrace_engine::{EphemeralOp, Hooks};
use terrace_plans::model::Action;
use terrace_states::model::{DeposedKey, ObjectState};

#[derive(Clone, Copy, Debug, Default)]
pub struct Counts {
    pub added: usize,
    pub changed: usize,
    pub destroyed: usize,
    pub imported: usize,
}

struct InFlight {
    action: Action,
    id: Option<String>,
    started: Instant,
    reported: u64,
}

struct Shared {
    color: bool,
    /// `-json`: every event is a line of the machine-readable stream.
    json: AtomicBool,
    in_flight: Mutex<HashMap<String, InFlight>>,
    counts: Mutex<Counts>,
    done: AtomicBool,
    out: Mutex<PendingOutput>,
}

/// How long a progress line may wait to be written with the ones after
/// it. A plan or apply of many quick objects prints a line or two per
/// object, and one `write` per line cost a tenth of a 100,000-object
/// apply's time when the output goes to a pipe (as in CI). A line after a
/// quiet spell is written at once; lines in a burst go out together, at
/// most this late. A line announcing a change to a real object
/// (`Creating...`, `Provisioning with...`) is written before the change
/// starts, with everything before it.
const OUTPUT_DELAY: Duration = Duration::from_millis(20);

/// Progress text not yet written to stdout.
struct PendingOutput {
    text: Vec<u8>,
    last_write: Option<Instant>,
}

impl PendingOutput {
    fn push(&mut self, line: std::fmt::Arguments<'_>) {
        let _ = self.text.write_fmt(line);
        self.text.push(b'\n');
        let quiet = self
            .last_write
            .is_none_or(|at| at.elapsed() >= OUTPUT_DELAY);
        if quiet || self.text.len() >= 1 << 16 {
            self.write();
        }
    }

    fn write(&mut self) {
        if self.text.is_empty() {
            return;
        }
        let mut stdout = std::io::stdout().lock();
        let _ = stdout.write_all(&self.text);
        let _ = stdout.flush();
        self.text.clear();
        self.last_write = Some(Instant::now());
    }
}

/// Go's `%q` of a string.
fn go_quote(s: &str) -> String {
    terrace_value::gostr::quote(s)
}

impl Shared {
    /// A progress line followed by an indented plain note line.
    fn line_with_note(&self, addr: &str, message: &str, note: &str) {
        let mut out = self.output();
        if self.color {
            out.push(format_args!(
                "\x1b[0m\x1b[1m{addr}: {message}\x1b[0m\n{note}"
            ))
        } else {
            out.push(format_args!("{addr}: {message}\n{note}"))
        }
    }

    fn output(&self) -> std::sync::MutexGuard<'_, PendingOutput> {
        self.out.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// One progress line; terraform resets colours twice after lines that
    /// announce work and once after lines that report its end.
    fn line(&self, addr: &str, message: &str) {
        let resets =
            if message.ends_with("...") || message.ends_with(']') && message.contains("...") {
                "\x1b[0m\x1b[0m"
            } else {
                "\x1b[0m"
            };
        self.line_with_resets(addr, message, resets);
    }

    /// A line announcing a change to a real object, written at once with
    /// everything before it: what the provider is about to change is on
    /// screen before it starts, so a process killed in the middle leaves
    /// the user a list of every object that may have changed without being
    /// recorded.
    fn announce(&self, addr: &str, message: &str) {
        self.line(addr, message);
        self.output().write();
    }

    fn line_with_resets(&self, addr: &str, message: &str, resets: &str) {
        let mut out = self.output();
        if self.color {
            out.push(format_args!("\x1b[0m\x1b[1m{addr}: {message}{resets}"))
        } else {
            out.push(format_args!("{addr}: {message}"))
        }
    }
}

/// The lines of a provisioner message the stream reports: split at line
/// ends (`\n`, `\r\n` or a lone `\r`), trailing blanks dropped, empty
/// lines skipped.
fn provision_lines(message: &str) -> Vec<&str> {
    message
        .split('\n')
        .flat_map(|line| line.strip_suffix('\r').unwrap_or(line).split('\r'))
        .map(str::trim_end)
        .filter(|line| !line.is_empty())
        .collect()
}

/// Terraform's rendering of one provisioner message: split into lines at
/// `\n` (or, in a piece without one, at `\r`), trailing blanks dropped,
/// empty lines skipped, each line after the `ADDR (TYPE): ` prefix. A
/// message with nothing to show is an empty line.
fn provision_text(color: bool, addr: &str, type_name: &str, message: &str) -> String {
    let prefix = if color {
        format!("\x1b[0m\x1b[1m{addr} ({type_name}):\x1b[0m \x1b[0m")
    } else {
        format!("{addr} ({type_name}): ")
    };
    let mut out = String::new();
    let mut rest = message;
    while !rest.is_empty() {
        let (line, next) = match rest.find('\n').or_else(|| rest.find('\r')) {
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (rest, ""),
        };
        let line = line.strip_suffix('\r').unwrap_or(line).trim_end();
        if !line.is_empty() {
            out.push_str(&prefix);
            out.push_str(line);
            out.push('\n');
        }
        rest = next;
    }
    out.trim().to_string()
}

/// The engine's hooks for the command line.
pub struct ApplyUi {
    shared: Arc<Shared>,
    /// `terrace import`, which words the import steps differently from an
    /// `import` block's plan.
    import_command: bool,
    /// Objects being imported by `terrace import`: their first refresh is
    /// announced as "Import prepared!".
    importing: Mutex<HashMap<String, String>>,
    interrupt: Interrupt,
    journal: Mutex<Option<Arc<Journal>>>,
    stop_sent: AtomicBool,
    /// The ids objects had when their refresh began, for the stream's
    /// `refresh_complete` line.
    refreshing_ids: Mutex<HashMap<String, Option<String>>>,
}

impl ApplyUi {
    pub fn new(color: bool, interrupt: Interrupt, journal: Option<Arc<Journal>>) -> ApplyUi {
        let shared = Arc::new(Shared {
            color,
            json: AtomicBool::new(false),
            in_flight: Mutex::new(HashMap::new()),
            counts: Mutex::new(Counts::default()),
            done: AtomicBool::new(false),
            out: Mutex::new(PendingOutput {
                text: Vec::new(),
                last_write: None,
            }),
        });
        let ticker = shared.clone();
        std::thread::spawn(move || still_working(ticker));
        ApplyUi {
            shared,
            import_command: false,
            importing: Mutex::new(HashMap::new()),
            interrupt,
            journal: Mutex::new(journal),
            stop_sent: AtomicBool::new(false),
            refreshing_ids: Mutex::new(HashMap::new()),
        }
    }

    /// Events go out as `-json` stream lines instead of text.
    pub fn json(self) -> ApplyUi {
        self.shared.json.store(true, Ordering::SeqCst);
        self
    }

    fn is_json(&self) -> bool {
        self.shared.json.load(Ordering::SeqCst)
    }

    /// Where the objects the engine records from now on are journaled.
    pub fn attach_journal(&self, journal: Arc<Journal>) {
        *self.journal.lock().unwrap_or_else(PoisonError::into_inner) = Some(journal);
    }

    /// Remembers a running action for the ten-second progress lines.
    fn track(&self, name: &str, action: Action, id: Option<&str>) {
        self.shared
            .in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(
                name.to_string(),
                InFlight {
                    action,
                    id: id.map(str::to_string),
                    started: Instant::now(),
                    reported: 0,
                },
            );
    }

    fn json_finished(
        &self,
        addr: &AbsResourceInstance,
        action: Action,
        id: Option<&str>,
        elapsed: Duration,
        ok: bool,
    ) {
        let noun = match action {
            Action::Create => "Creation",
            Action::Update => "Modifications",
            Action::Delete => "Destruction",
            Action::Read => "Refresh",
            _ => return,
        };
        // Whole seconds, as the stream measures from rounded start and end.
        let secs = (elapsed.as_millis() + 500) / 1000;
        let after = go_duration(Duration::from_secs(secs as u64));
        let action_json = ("action", Json::from(json_ui::change_action(action)));
        // A data source whose read fails is reported by its diagnostics
        // alone: terraform's read ends before the hook that would say so.
        if !ok && action == Action::Read {
            return;
        }
        if !ok {
            json_ui::hook(
                "apply_errored",
                &format!("{addr}: {noun} errored after {after}"),
                hook_body(
                    addr,
                    &[action_json, ("elapsed_seconds", Json::from(secs as u64))],
                    None,
                ),
            );
            return;
        }
        self.count(action);
        // A destroyed object has no id left to show.
        let id = if action == Action::Delete { None } else { id };
        let mut body = hook_body(addr, &[action_json], id);
        if let Json::Object(fields) = &mut body {
            fields.insert("elapsed_seconds".into(), Json::from(secs as u64));
        }
        json_ui::hook(
            "apply_complete",
            &format!("{addr}: {noun} complete after {after}{}", id_suffix(id)),
            body,
        );
    }

    fn count(&self, action: Action) {
        let mut counts = self
            .shared
            .counts
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        match action {
            Action::Create => counts.added += 1,
            Action::Update => counts.changed += 1,
            Action::Delete => counts.destroyed += 1,
            _ => {}
        }
    }

    pub fn for_import_command(mut self) -> ApplyUi {
        self.import_command = true;
        self
    }

    /// Writes the progress lines still waiting: called when the engine
    /// returns, before anything else is printed after them.
    pub fn flush_output(&self) {
        self.shared.output().write();
    }

    pub fn counts(&self) -> Counts {
        *self
            .shared
            .counts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for ApplyUi {
    fn drop(&mut self) {
        self.shared.done.store(true, Ordering::SeqCst);
        self.flush_output();
    }
}

/// Writes waiting progress lines, and prints `Still creating... [10s
/// elapsed]` every ten seconds for each action still running.
fn still_working(shared: Arc<Shared>) {
    while !shared.done.load(Ordering::SeqCst) {
        std::thread::sleep(OUTPUT_DELAY);
        shared.output().write();
        let mut due = Vec::new();
        {
            let mut in_flight = shared
                .in_flight
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            for (addr, op) in in_flight.iter_mut() {
                let tens = op.started.elapsed().as_secs() / 10;
                if tens > op.reported {
                    op.reported = tens;
                    due.push((addr.clone(), op.action, op.id.clone(), tens * 10));
                }
            }
        }
        due.sort();
        for (addr, action, id, secs) in due {
            if shared.json.load(Ordering::SeqCst) {
                json_progress(&addr, action, secs);
                continue;
            }
            let verb = match action {
                Action::Create => "Still creating...",
                Action::Update => "Still modifying...",
                Action::Delete => "Still destroying...",
                Action::Read => "Still reading...",
                _ => continue,
            };
            let id = match id {
                Some(id) if action != Action::Create => format!("id={id}, "),
                _ => String::new(),
            };
            let elapsed = go_duration(Duration::from_secs(secs));
            shared.line(&addr, &format!("{verb} [{id}{elapsed} elapsed]"));
        }
    }
}

/// The stream's present participle of an action, lower case.
fn json_progress(addr: &str, action: Action, secs: u64) {
    let verb = match action {
        Action::Create => "creating",
        Action::Update => "modifying",
        Action::Delete => "destroying",
        Action::Read => "refreshing",
        _ => return,
    };
    let Ok(parsed) = AbsResourceInstance::parse_str(addr) else {
        return;
    };
    let elapsed = go_duration(Duration::from_secs(secs));
    json_ui::hook(
        "apply_progress",
        &format!("{addr}: Still {verb}... [{elapsed} elapsed]"),
        json!({
            "resource": json_ui::resource_addr(&parsed),
            "action": json_ui::change_action(action),
            "elapsed_seconds": secs,
        }),
    );
}

/// A hook body: the resource, then the given fields, then `id_key` and
/// `id_value` when the object has an id.
fn hook_body(addr: &AbsResourceInstance, fields: &[(&str, Json)], id: Option<&str>) -> Json {
    let mut body = serde_json::Map::new();
    body.insert("resource".into(), json_ui::resource_addr(addr));
    for (k, v) in fields {
        body.insert(k.to_string(), v.clone());
    }
    if let Some(id) = id.filter(|id| !id.is_empty()) {
        body.insert("id_key".into(), Json::from("id"));
        body.insert("id_value".into(), Json::from(id));
    }
    Json::Object(body)
}

/// An object's address in progress lines: a deposed object is named after
/// its instance, "ADDR (deposed object KEY)".
fn shown_address(addr: &AbsResourceInstance, deposed: Option<&DeposedKey>) -> String {
    match deposed {
        Some(key) => format!("{addr} (deposed object {key})"),
        None => addr.to_string(),
    }
}

fn id_suffix(id: Option<&str>) -> String {
    match id.filter(|id| !id.is_empty()) {
        Some(id) => format!(" [id={id}]"),
        None => String::new(),
    }
}

/// Go's `time.Duration.String()` of a whole number of seconds.
pub fn go_duration(d: Duration) -> String {
    let secs = d.as_secs();
    let (h, m, s) = (secs / 3600, (secs / 60) % 60, secs % 60);
    if h > 0 {
        format!("{h}h{m}m{s}s")
    } else if m > 0 {
        format!("{m}m{s}s")
    } else {
        format!("{s}s")
    }
}

impl Hooks for ApplyUi {
    fn importing(&self, addr: &AbsResourceInstance, id: &str) {
        if self.is_json() {
            return;
        }
        let name = addr.to_string();
        if self.import_command {
            self.importing
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(name.clone(), addr.resource.resource.type_name.to_string());
            self.shared
                .line(&name, &format!("Importing from ID {}...", go_quote(id)));
        } else {
            self.shared
                .line(&name, &format!("Preparing import... [id={id}]"));
        }
    }

    fn refreshing(
        &self,
        addr: &AbsResourceInstance,
        deposed: Option<&DeposedKey>,
        id: Option<&str>,
    ) {
        // terraform's JSON messages never name a deposed object.
        if self.is_json() {
            self.refreshing_ids
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(addr.to_string(), id.map(str::to_string));
            json_ui::hook(
                "refresh_start",
                &format!("{addr}: Refreshing state...{}", id_suffix(id)),
                hook_body(addr, &[], id),
            );
            return;
        }
        let prepared = self
            .importing
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&addr.to_string());
        if let Some(type_name) = prepared {
            self.shared.line_with_note(
                &addr.to_string(),
                "Import prepared!",
                &format!("  Prepared {type_name} for import"),
            );
        }
        let message = match id {
            Some(id) => format!("Refreshing state... [id={id}]"),
            None => "Refreshing state...".to_string(),
        };
        // terraform's format for this line ends without a reset of its
        // own, so only the closing one is written.
        self.shared
            .line_with_resets(&shown_address(addr, deposed), &message, "\x1b[0m");
    }

    fn refreshed(&self, addr: &AbsResourceInstance, ok: bool) {
        if !self.is_json() {
            return;
        }
        let id = self
            .refreshing_ids
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&addr.to_string())
            .flatten();
        if ok {
            json_ui::hook(
                "refresh_complete",
                &format!("{addr}: Refresh complete{}", id_suffix(id.as_deref())),
                hook_body(addr, &[], id.as_deref()),
            );
        }
    }

    fn apply_started(
        &self,
        addr: &AbsResourceInstance,
        deposed: Option<&DeposedKey>,
        action: Action,
        id: Option<&str>,
    ) {
        let name = addr.to_string();
        if self.is_json() {
            let verb = match action {
                Action::Create => "Creating",
                Action::Update => "Modifying",
                Action::Delete => "Destroying",
                Action::Read => "Refreshing",
                _ => return,
            };
            // A new object has no id yet.
            let id = if action == Action::Create { None } else { id };
            self.track(&name, action, id);
            json_ui::hook(
                "apply_start",
                &format!("{name}: {verb}...{}", id_suffix(id)),
                hook_body(
                    addr,
                    &[("action", Json::from(json_ui::change_action(action)))],
                    id,
                ),
            );
            return;
        }
        let message = match (action, id) {
            (Action::Create, _) => "Creating...".to_string(),
            (Action::Update, Some(id)) => format!("Modifying... [id={id}]"),
            (Action::Update, None) => "Modifying...".to_string(),
            (Action::Delete, Some(id)) => format!("Destroying... [id={id}]"),
            (Action::Delete, None) => "Destroying...".to_string(),
            (Action::Read, _) => "Reading...".to_string(),
            _ => return,
        };
        // "Still destroying..." names the instance alone, as terraform's.
        self.track(&name, action, id);
        self.shared
            .announce(&shown_address(addr, deposed), &message);
    }

    /// terraform 1.11 names a deposed object when its destroy starts, not
    /// when it completes, so `_deposed` is not shown.
    fn apply_finished(
        &self,
        addr: &AbsResourceInstance,
        _deposed: Option<&DeposedKey>,
        action: Action,
        id: Option<&str>,
        elapsed: Duration,
        ok: bool,
    ) {
        let name = addr.to_string();
        self.shared
            .in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&name);
        if self.is_json() {
            self.json_finished(addr, action, id, elapsed, ok);
            return;
        }
        if !ok {
            return;
        }
        let after = go_duration(elapsed);
        let id_part = id.map(|id| format!(" [id={id}]")).unwrap_or_default();
        let message = match action {
            Action::Create => format!("Creation complete after {after}{id_part}"),
            Action::Update => format!("Modifications complete after {after}{id_part}"),
            Action::Delete => format!("Destruction complete after {after}"),
            Action::Read => format!("Read complete after {after}{id_part}"),
            _ => return,
        };
        self.count(action);
        self.shared.line(&name, &message);
    }

    fn ephemeral_started(&self, addr: &AbsResourceInstance, op: EphemeralOp) {
        let message = format!("{}...", op.progressive());
        if self.is_json() {
            json_ui::hook(
                "ephemeral_op_start",
                &format!("{addr}: {message}"),
                hook_body(addr, &[("action", Json::from(op.name()))], None),
            );
            return;
        }
        self.shared.line(&addr.to_string(), &message);
    }

    fn ephemeral_finished(
        &self,
        addr: &AbsResourceInstance,
        op: EphemeralOp,
        elapsed: Duration,
        ok: bool,
    ) {
        let after = go_duration(elapsed);
        if self.is_json() {
            let (kind, outcome) = if ok {
                ("ephemeral_op_complete", "complete")
            } else {
                ("ephemeral_op_errored", "errored")
            };
            json_ui::hook(
                kind,
                &format!("{addr}: {} {outcome} after {after}", op.progressive()),
                hook_body(
                    addr,
                    &[
                        ("action", Json::from(op.name())),
                        ("elapsed_seconds", Json::from(elapsed.as_secs())),
                    ],
                    None,
                ),
            );
            return;
        }
        // A failure shows as its diagnostics only, as for other actions.
        if ok {
            self.shared.line(
                &addr.to_string(),
                &format!("{} complete after {after}", op.progressive()),
            );
        }
    }

    fn import_applying(&self, addr: &AbsResourceInstance, id: &str) {
        if self.is_json() {
            return;
        }
        // Unlike the other "..." lines, terraform resets colours once after
        // this one.
        self.shared.line_with_resets(
            &addr.to_string(),
            &format!("Importing... [id={id}]"),
            "\x1b[0m",
        );
    }

    fn import_applied(&self, addr: &AbsResourceInstance, id: &str) {
        self.shared
            .counts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .imported += 1;
        if self.is_json() {
            return;
        }
        self.shared
            .line(&addr.to_string(), &format!("Import complete [id={id}]"));
    }

    fn provisioning(&self, addr: &AbsResourceInstance, type_name: &str) {
        if self.is_json() {
            json_ui::hook(
                "provision_start",
                &format!("{addr}: Provisioning with '{type_name}'..."),
                hook_body(addr, &[("provisioner", Json::from(type_name))], None),
            );
            return;
        }
        self.shared.announce(
            &addr.to_string(),
            &format!("Provisioning with '{type_name}'..."),
        );
    }

    fn provision_output(&self, addr: &AbsResourceInstance, type_name: &str, message: &str) {
        if self.is_json() {
            for line in provision_lines(message) {
                json_ui::hook(
                    "provision_progress",
                    &format!("{addr}: ({type_name}): {line}"),
                    hook_body(
                        addr,
                        &[
                            ("provisioner", Json::from(type_name)),
                            ("output", Json::from(line)),
                        ],
                        None,
                    ),
                );
            }
            return;
        }
        let text = provision_text(self.shared.color, &addr.to_string(), type_name, message);
        self.shared.output().push(format_args!("{text}"));
    }

    fn provisioned(&self, addr: &AbsResourceInstance, type_name: &str, ok: bool) {
        if !self.is_json() {
            return;
        }
        let (kind, outcome) = if ok {
            ("provision_complete", "Provisioning complete")
        } else {
            ("provision_errored", "Provisioning errored")
        };
        json_ui::hook(
            kind,
            &format!("{addr}: ({type_name}) {outcome}"),
            hook_body(addr, &[("provisioner", Json::from(type_name))], None),
        );
    }

    fn object_changed(
        &self,
        addr: &AbsResourceInstance,
        deposed: Option<&DeposedKey>,
        provider: &AbsProviderConfig,
        provider_key: &InstanceKey,
        object: Option<&ObjectState>,
    ) {
        let journal = self
            .journal
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        if let Some(journal) = journal {
            journal.record(addr, deposed, provider, provider_key, object);
        }
    }

    fn stopping(&self) -> bool {
        let requested = self.interrupt.requested();
        if requested && !self.stop_sent.swap(true, Ordering::SeqCst) {
            self.flush_output();
            let _ = std::io::stderr().flush();
        }
        requested
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provisioner_messages_print_as_terraform_prints_them() {
        let a = "terraform_data.a";
        let cases: &[(bool, &str, &str)] = &[
            (false, "hi", "terraform_data.a (local-exec): hi"),
            (false, "  a  ", "terraform_data.a (local-exec):   a"),
            (false, "", ""),
            (false, "   ", ""),
            (
                false,
                "y\rz",
                "terraform_data.a (local-exec): y\nterraform_data.a (local-exec): z",
            ),
            (false, "x\r", "terraform_data.a (local-exec): x"),
            (
                true,
                "hi",
                "\x1b[0m\x1b[1mterraform_data.a (local-exec):\x1b[0m \x1b[0mhi",
            ),
        ];
        for (color, message, want) in cases {
            assert_eq!(
                provision_text(*color, a, "local-exec", message),
                *want,
                "{message:?}"
            );
        }
    }

    #[test]
    fn durations_print_as_go_does() {
        assert_eq!(go_duration(Duration::from_millis(400)), "0s");
        assert_eq!(go_duration(Duration::from_secs(65)), "1m5s");
        assert_eq!(go_duration(Duration::from_secs(3600)), "1h0m0s");
    }

    #[test]
    fn elapsed_times_read_as_go_durations() {
        assert_eq!(go_duration(Duration::from_secs(10)), "10s");
        assert_eq!(go_duration(Duration::from_secs(60)), "1m0s");
        assert_eq!(go_duration(Duration::from_secs(850)), "14m10s");
        assert_eq!(go_duration(Duration::from_secs(3610)), "1h0m10s");
    }
}
