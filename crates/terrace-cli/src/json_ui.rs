//! The machine-readable UI of `plan`, `apply`, `destroy`, `refresh` and
//! `init` with `-json`: one JSON object per line, as terraform's
//! structured logger writes it, so CI systems and wrappers that parse
//! terraform's stream parse terrace's.
//!
//! Every line has `@level`, `@message`, `@module` (`terraform.ui`) and
//! `@timestamp` (UTC, microseconds), then the message's own fields; the
//! top-level keys are in lexical order (the logger writes a map) while
//! the objects inside keep their fields' declared order. `<`, `>` and `&`
//! are escaped (`\u003c`), as Go's encoder does by default.

use crate::jsondiag::{diagnostic_json, Sources};
use serde_json::{json, Map, Value as Json};
use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};
use terrace_addrs::{AbsResourceInstance, InstanceKey, ResourceMode};
use terrace_gocompat::json::escape_html;
use terrace_plans::model::{Action, ActionReason, OutputChange, ResourceInstanceChange};
use terrace_syntax::render::SourceMap;
use terrace_syntax::Diagnostic;
use terrace_value::Value;

/// The version of the message format, as terraform 1.11 reports it.
pub const UI_VERSION: &str = "1.2";

/// Lines from the engine's worker threads must not interleave.
static WRITE: Mutex<()> = Mutex::new(());

/// RFC 3339 in UTC with exactly `digits` (3 or 6) fractional digits, as
/// hclog writes its timestamps.
pub(crate) fn timestamp_with_fraction(now: SystemTime, digits: usize) -> String {
    let since = now.duration_since(UNIX_EPOCH).unwrap_or_default();
    let whole = UNIX_EPOCH + std::time::Duration::from_secs(since.as_secs());
    let seconds = terrace_states::backend::rfc3339_nano(whole);
    let base = seconds.trim_end_matches('Z');
    let fraction = format!("{:09}", since.subsec_nanos());
    format!("{base}.{}Z", &fraction[..digits.min(9)])
}

/// `2026-11-27T01:43:33.066772Z`: the UI logger's timestamp layout.
fn timestamp_micros(now: SystemTime) -> String {
    timestamp_with_fraction(now, 6)
}

/// `2026-11-27T01:43:33Z`: init's own messages carry whole seconds.
fn timestamp_seconds(now: SystemTime) -> String {
    let since = now.duration_since(UNIX_EPOCH).unwrap_or_default();
    terrace_states::backend::rfc3339_nano(
        UNIX_EPOCH + std::time::Duration::from_secs(since.as_secs()),
    )
}

/// One line: the common keys, then `fields` in lexical key order.
fn line_text(level: &str, message: &str, timestamp: &str, fields: Vec<(&str, Json)>) -> String {
    let mut all: BTreeMap<&str, Json> = fields.into_iter().collect();
    all.insert("@level", Json::from(level));
    all.insert("@message", Json::from(message));
    all.insert("@module", Json::from("terraform.ui"));
    all.insert("@timestamp", Json::from(timestamp));
    let object: Map<String, Json> = all.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    let text = serde_json::to_string(&Json::Object(object)).unwrap_or_default();
    escape_html(&text)
}

fn emit(level: &str, message: &str, fields: Vec<(&str, Json)>) {
    emit_at(level, message, &timestamp_micros(SystemTime::now()), fields);
}

fn emit_at(level: &str, message: &str, timestamp: &str, fields: Vec<(&str, Json)>) {
    let text = line_text(level, message, timestamp, fields);
    let _guard = WRITE.lock().unwrap_or_else(PoisonError::into_inner);
    outln!("{text}");
}

/// The first line of every stream: which terraform release the messages
/// follow and the format's version.
pub fn version() {
    let product = crate::PRODUCT;
    let own = env!("CARGO_PKG_VERSION");
    emit(
        "info",
        &format!("{product} {own}"),
        vec![
            ("type", Json::from("version")),
            (
                "terraform",
                Json::from(crate::commands::operation::TERRAFORM_VERSION),
            ),
            ("ui", Json::from(UI_VERSION)),
        ],
    );
}

/// A plain informational line.
pub fn log(message: &str) {
    emit("info", message, vec![("type", Json::from("log"))]);
}

/// The state written out as the last resort when it could be saved
/// nowhere else.
pub fn state_dump(state_json: &str) {
    let state = serde_json::from_str::<Json>(state_json).unwrap_or(Json::Null);
    emit(
        "info",
        "Emergency state dump",
        vec![("type", Json::from("log")), ("state", state)],
    );
}

/// One of `init`'s own messages, identified by its code.
pub fn init_output(message_code: &str, message: &str) {
    emit_at(
        "info",
        message,
        &timestamp_seconds(SystemTime::now()),
        vec![
            ("type", Json::from("init_output")),
            ("message_code", Json::from(message_code)),
        ],
    );
}

pub fn diagnostics(diags: &[Diagnostic], source_map: &SourceMap) {
    for diag in diags {
        let files = diag
            .subject
            .iter()
            .chain(diag.context.iter())
            .filter_map(|range| source_map.source(&range.filename).cloned());
        let mut sources = Sources::new(files);
        let body = diagnostic_json(diag, &mut sources);
        let (level, prefix) = if diag.is_error() {
            ("error", "Error")
        } else {
            ("warn", "Warning")
        };
        emit(
            level,
            &format!("{prefix}: {}", diag.summary),
            vec![("type", Json::from("diagnostic")), ("diagnostic", body)],
        );
    }
}

/// A resource instance address taken apart.
pub fn resource_addr(addr: &AbsResourceInstance) -> Json {
    let key = match &addr.resource.key {
        InstanceKey::None => Json::Null,
        InstanceKey::Int(i) => Json::from(*i),
        InstanceKey::String(s) => Json::from(s.to_string()),
    };
    let resource = &addr.resource.resource;
    json!({
        "addr": addr.to_string(),
        "module": addr.module.to_string(),
        "resource": addr.resource.to_string(),
        "implied_provider": resource.implied_provider(),
        "resource_type": resource.type_name.to_string(),
        "resource_name": resource.name.to_string(),
        "resource_key": key,
    })
}

/// The action names of planned changes.
pub fn change_action(action: Action) -> &'static str {
    match action {
        Action::NoOp => "noop",
        Action::Create => "create",
        Action::Read => "read",
        Action::Update => "update",
        Action::DeleteThenCreate | Action::CreateThenDelete => "replace",
        Action::Delete => "delete",
        Action::Forget => "remove",
    }
}

/// The stream's name for why a change is planned: the plan document's
/// names, except that replacements are named shorter and a forgotten
/// object is reported as having no configuration.
fn change_reason(reason: ActionReason) -> Option<&'static str> {
    match reason {
        ActionReason::ReplaceBecauseTainted => Some("tainted"),
        ActionReason::ReplaceByRequest => Some("requested"),
        ActionReason::ReplaceByTriggers => Some("replace_triggered_by"),
        ActionReason::ReplaceBecauseCannotUpdate => Some("cannot_update"),
        ActionReason::ForgotBecauseLifecycleDestroyInState
        | ActionReason::ForgotBecauseLifecycleDestroyInConfig => {
            ActionReason::DeleteBecauseNoResourceConfig.json_name()
        }
        other => other.json_name(),
    }
}

/// A change as the stream describes it; a move or an import that changes
/// nothing else is named by what it does.
fn change_json(change: &ResourceInstanceChange) -> (String, Json) {
    let mut action = change_action(change.action);
    let mut object = Map::new();
    object.insert("resource".into(), resource_addr(&change.addr));
    if change.moved() {
        if change.action == Action::NoOp {
            action = "move";
        }
        object.insert(
            "previous_resource".into(),
            resource_addr(&change.prev_run_addr),
        );
    }
    if change.importing.is_some() && change.action == Action::NoOp {
        action = "import";
    }
    object.insert("action".into(), Json::from(action));
    if let Some(reason) = change_reason(change.action_reason) {
        object.insert("reason".into(), Json::from(reason));
    }
    if let Some(id) = &change.importing {
        object.insert("importing".into(), json!({ "id": id }));
    }
    if let Some(generated) = change.generated_config.as_deref().filter(|g| !g.is_empty()) {
        object.insert("generated_config".into(), Json::from(generated));
    }
    (action.to_string(), Json::Object(object))
}

/// Whether the stream shows a planned change at all: data sources'
/// deletions are bookkeeping, and a no-op is news only when it moves or
/// imports the object.
fn shown(change: &ResourceInstanceChange) -> bool {
    if is_data_source_deletion(change) {
        return false;
    }
    if change.addr.resource.resource.mode == ResourceMode::Ephemeral {
        return false;
    }
    change.action != Action::NoOp || change.moved() || change.importing.is_some()
}

/// A data source dropped from the state: bookkeeping the stream neither
/// shows nor counts.
fn is_data_source_deletion(change: &ResourceInstanceChange) -> bool {
    change.addr.resource.resource.mode == ResourceMode::Data && change.action == Action::Delete
}

pub fn planned_change(change: &ResourceInstanceChange) {
    if !shown(change) {
        return;
    }
    let (action, body) = change_json(change);
    emit(
        "info",
        &format!("{}: Plan to {action}", change.addr),
        vec![("type", Json::from("planned_change")), ("change", body)],
    );
}

pub fn resource_drift(change: &ResourceInstanceChange) {
    let (action, body) = change_json(change);
    emit(
        "info",
        &format!("{}: Drift detected ({action})", change.addr),
        vec![("type", Json::from("resource_drift")), ("change", body)],
    );
}

/// What the summary line counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChangeSummary {
    pub add: usize,
    pub change: usize,
    pub import: usize,
    pub remove: usize,
}

impl ChangeSummary {
    /// The counts of a plan's changes, as the plan's summary line has them.
    pub fn of_plan(changes: &[ResourceInstanceChange]) -> ChangeSummary {
        let mut summary = ChangeSummary::default();
        for change in changes {
            if is_data_source_deletion(change) {
                continue;
            }
            if change.importing.is_some() {
                summary.import += 1;
            }
            match change.action {
                Action::Create => summary.add += 1,
                Action::Delete => summary.remove += 1,
                Action::Update => summary.change += 1,
                Action::DeleteThenCreate | Action::CreateThenDelete => {
                    summary.add += 1;
                    summary.remove += 1;
                }
                _ => {}
            }
        }
        summary
    }
}

/// Which operation a summary closes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SummaryOf {
    Plan,
    Apply,
    Destroy,
}

pub fn change_summary(summary: ChangeSummary, of: SummaryOf) {
    let ChangeSummary {
        add,
        change,
        import,
        remove,
    } = summary;
    let (message, operation) = match of {
        SummaryOf::Plan => {
            let imports = if import > 0 {
                format!("{import} to import, ")
            } else {
                String::new()
            };
            (
                format!("Plan: {imports}{add} to add, {change} to change, {remove} to destroy."),
                "plan",
            )
        }
        SummaryOf::Apply => {
            let imports = if import > 0 {
                format!("{import} imported, ")
            } else {
                String::new()
            };
            (
                format!(
                    "Apply complete! Resources: {imports}{add} added, {change} changed, {remove} destroyed."
                ),
                "apply",
            )
        }
        SummaryOf::Destroy => (
            format!("Destroy complete! Resources: {remove} destroyed."),
            "destroy",
        ),
    };
    emit(
        "info",
        &message,
        vec![
            ("type", Json::from("change_summary")),
            (
                "changes",
                json!({
                    "add": add,
                    "change": change,
                    "import": import,
                    "remove": remove,
                    "operation": operation,
                }),
            ),
        ],
    );
}

fn outputs_line(outputs: Map<String, Json>) {
    let count = outputs.len();
    emit(
        "info",
        &format!("Outputs: {count}"),
        vec![
            ("type", Json::from("outputs")),
            ("outputs", Json::Object(outputs)),
        ],
    );
}

/// The planned changes of the root module's outputs (no values: they may
/// not be known yet).
pub fn planned_outputs(changes: &[OutputChange]) {
    if changes.is_empty() {
        return;
    }
    let mut sorted: Vec<&OutputChange> = changes.iter().collect();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));
    let outputs = sorted
        .into_iter()
        .map(|c| {
            (
                c.name.clone(),
                json!({ "sensitive": c.sensitive, "action": change_action(c.action) }),
            )
        })
        .collect();
    outputs_line(outputs);
}

/// The root module's outputs after an apply: type always, value only when
/// not sensitive.
pub fn applied_outputs(outputs: &BTreeMap<String, (Value, bool)>) {
    let mut lines = Map::new();
    for (name, (value, sensitive)) in outputs {
        let (value, _) = value.unmark_deep();
        let ty = value.ty().clone();
        let type_json = serde_json::from_str::<Json>(&terrace_value::typejson::type_to_json(&ty))
            .unwrap_or(Json::Null);
        let mut entry = Map::new();
        entry.insert("sensitive".into(), Json::from(*sensitive));
        entry.insert("type".into(), type_json);
        if !sensitive {
            let text = terrace_value::json::to_json(&value, &ty).unwrap_or_default();
            entry.insert(
                "value".into(),
                serde_json::from_str::<Json>(&text).unwrap_or(Json::Null),
            );
        }
        lines.insert(name.clone(), Json::Object(entry));
    }
    outputs_line(lines);
}

/// A hook line: something happening to one resource instance.
pub fn hook(kind: &str, message: &str, body: Json) {
    emit(
        "info",
        message,
        vec![("type", Json::from(kind)), ("hook", body)],
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_have_microseconds_and_init_ones_whole_seconds() {
        let t = UNIX_EPOCH + std::time::Duration::new(1_795_744_213, 66_772_999);
        assert_eq!(timestamp_micros(t), "2026-11-27T01:50:13.066772Z");
        assert_eq!(timestamp_seconds(t), "2026-11-27T01:50:13Z");
        let whole = UNIX_EPOCH + std::time::Duration::from_secs(1_795_744_213);
        assert_eq!(timestamp_micros(whole), "2026-11-27T01:50:13.000000Z");
    }

    #[test]
    fn top_level_keys_are_sorted_and_html_is_escaped() {
        let text = line_text(
            "info",
            "a <b> & c",
            "T",
            vec![
                ("type", Json::from("log")),
                ("hook", json!({"z": 1, "a": "\u{2028}"})),
            ],
        );
        assert_eq!(
            text,
            r#"{"@level":"info","@message":"a \u003cb\u003e \u0026 c","@module":"terraform.ui","@timestamp":"T","hook":{"z":1,"a":"\u2028"},"type":"log"}"#
        );
    }

    #[test]
    fn addresses_are_taken_apart() {
        let addr = AbsResourceInstance::parse_str("module.m[\"k\"].aws_instance.web[2]")
            .unwrap_or_else(|d| panic!("{d:?}"));
        assert_eq!(
            serde_json::to_string(&resource_addr(&addr)).unwrap_or_default(),
            r#"{"addr":"module.m[\"k\"].aws_instance.web[2]","module":"module.m[\"k\"]","resource":"aws_instance.web[2]","implied_provider":"aws","resource_type":"aws_instance","resource_name":"web","resource_key":2}"#
        );
    }
}
