//! terrace's own log, as terraform users switch it on: `TF_LOG` (or
//! `TF_LOG_CORE`, which wins for this log) names the least severe level
//! written (`TRACE`, `DEBUG`, `INFO`, `WARN`, `ERROR`; `JSON` is TRACE as
//! one JSON object per line; `OFF` or empty is nothing; anything else is
//! TRACE), and `TF_LOG_PATH` a file the lines are appended to instead of
//! stderr. Provider plugins' own logs follow `TF_LOG_PROVIDER` and go
//! through terrace-plugin's sink to the same place.
//!
//! The library crates log through `tracing`; this module is the one
//! subscriber, writing hclog's text layout (`2026-11-27T02:40:00.123Z
//! [INFO]  message: key=value`). Only terrace's own events are taken
//! (targets under `terrace`), not those of the HTTP and gRPC libraries
//! underneath. What is logged is addresses, actions, paths and counts:
//! never a value from the configuration or the state, so nothing
//! sensitive can reach a log.

use std::fmt::Write as _;
use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::sync::Mutex;
use std::time::SystemTime;
use tracing::field::{Field, Visit};
use tracing::level_filters::LevelFilter;
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Event, Level, Metadata, Subscriber};

/// How log lines are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Text,
    Json,
}

/// What the environment asks for: the level filter and the format, or
/// `None` for no log.
fn settings(value: Option<&str>) -> Option<(LevelFilter, Format)> {
    let value = value?.trim();
    if value.is_empty() || value.eq_ignore_ascii_case("off") {
        return None;
    }
    let level = match value.to_ascii_lowercase().as_str() {
        "json" => return Some((LevelFilter::TRACE, Format::Json)),
        "debug" => LevelFilter::DEBUG,
        "info" => LevelFilter::INFO,
        "warn" | "warning" => LevelFilter::WARN,
        "error" | "err" => LevelFilter::ERROR,
        _ => LevelFilter::TRACE,
    };
    Some((level, Format::Text))
}

enum Output {
    Stderr,
    File(File),
}

struct CoreLog {
    filter: LevelFilter,
    format: Format,
    output: Mutex<Output>,
}

/// Installs the log the environment asks for; nothing when it asks for
/// none. Called once, first thing.
pub fn init_from_env() {
    let value = std::env::var("TF_LOG_CORE")
        .ok()
        .filter(|v| !v.is_empty())
        .or_else(|| std::env::var("TF_LOG").ok());
    let Some((filter, format)) = settings(value.as_deref()) else {
        return;
    };
    let output = match std::env::var_os("TF_LOG_PATH").filter(|p| !p.is_empty()) {
        Some(path) => match OpenOptions::new().create(true).append(true).open(&path) {
            Ok(file) => Output::File(file),
            Err(e) => {
                eprintln!(
                    "Error opening log file {}: {e}",
                    std::path::Path::new(&path).display()
                );
                Output::Stderr
            }
        },
        None => Output::Stderr,
    };
    let log = CoreLog {
        filter,
        format,
        output: Mutex::new(output),
    };
    // Only fails when a subscriber is already set, which nothing else does.
    let _ = tracing::subscriber::set_global_default(log);
}

/// The fields of one event: its message and the other key/value pairs.
#[derive(Default)]
struct Fields {
    message: String,
    pairs: Vec<(String, String)>,
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.message = value.to_string();
        } else {
            self.pairs
                .push((field.name().to_string(), value.to_string()));
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        let text = format!("{value:?}");
        if field.name() == "message" {
            self.message = text;
        } else {
            self.pairs.push((field.name().to_string(), text));
        }
    }
}

/// hclog's timestamp: milliseconds, UTC.
fn timestamp(now: SystemTime) -> String {
    crate::json_ui::timestamp_with_fraction(now, 3)
}

fn level_name(level: &Level) -> &'static str {
    match *level {
        Level::TRACE => "TRACE",
        Level::DEBUG => "DEBUG",
        Level::INFO => "INFO",
        Level::WARN => "WARN",
        Level::ERROR => "ERROR",
    }
}

/// One line in hclog's text layout: the level in brackets padded to
/// seven characters, then the message and `key=value` pairs (values with
/// spaces quoted).
fn text_line(time: &str, level: &Level, fields: &Fields) -> String {
    let mut line = format!(
        "{time} {:<7} {}",
        format!("[{}]", level_name(level)),
        fields.message
    );
    if !fields.pairs.is_empty() {
        line.push(':');
        for (key, value) in &fields.pairs {
            if value.is_empty() || value.contains(char::is_whitespace) {
                let _ = write!(line, " {key}={value:?}");
            } else {
                let _ = write!(line, " {key}={value}");
            }
        }
    }
    line.push('\n');
    line
}

/// One line in hclog's JSON layout.
fn json_line(time: &str, level: &Level, module: &str, fields: &Fields) -> String {
    let mut object = serde_json::Map::new();
    object.insert(
        "@level".into(),
        level_name(level).to_ascii_lowercase().into(),
    );
    object.insert("@message".into(), fields.message.clone().into());
    object.insert("@module".into(), module.into());
    object.insert("@timestamp".into(), time.into());
    for (key, value) in &fields.pairs {
        object.insert(key.clone(), value.clone().into());
    }
    let mut line = serde_json::Value::Object(object).to_string();
    line.push('\n');
    line
}

impl CoreLog {
    fn wanted(&self, metadata: &Metadata<'_>) -> bool {
        metadata.target().starts_with("terrace") && *metadata.level() <= self.filter
    }
}

impl Subscriber for CoreLog {
    fn register_callsite(&self, metadata: &'static Metadata<'static>) -> Interest {
        if self.wanted(metadata) {
            Interest::always()
        } else {
            Interest::never()
        }
    }

    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        self.wanted(metadata)
    }

    fn max_level_hint(&self) -> Option<LevelFilter> {
        Some(self.filter)
    }

    // Spans carry no meaning in this log: each is the same placeholder.
    fn new_span(&self, _span: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }

    fn record(&self, _span: &Id, _values: &Record<'_>) {}

    fn record_follows_from(&self, _span: &Id, _follows: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let mut fields = Fields::default();
        event.record(&mut fields);
        let time = timestamp(SystemTime::now());
        let metadata = event.metadata();
        let line = match self.format {
            Format::Text => text_line(&time, metadata.level(), &fields),
            Format::Json => json_line(&time, metadata.level(), crate::PRODUCT, &fields),
        };
        let Ok(mut output) = self.output.lock() else {
            return;
        };
        // A log line that cannot be written is no reason to fail a run.
        let _ = match &mut *output {
            Output::Stderr => std::io::stderr().write_all(line.as_bytes()),
            Output::File(file) => file.write_all(line.as_bytes()),
        };
    }

    fn enter(&self, _span: &Id) {}

    fn exit(&self, _span: &Id) {}
}

/// The command line as the log shows it: values of `-var` (which may be
/// secrets) and of `-backend-config` pairs left out.
pub fn redacted_args(argv: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(argv.len());
    let mut hide_next = false;
    for arg in argv {
        if hide_next {
            out.push("(value not logged)".to_string());
            hide_next = false;
            continue;
        }
        let flag = arg.trim_start_matches('-');
        let hidden_flag = ["var", "backend-config"]
            .iter()
            .find(|name| flag == **name || flag.starts_with(&format!("{name}=")));
        match hidden_flag {
            Some(name) if flag == *name => {
                out.push(arg.clone());
                hide_next = true;
            }
            Some(name) => out.push(format!("-{name}=(value not logged)")),
            None => out.push(arg.clone()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::UNIX_EPOCH;

    #[test]
    fn the_environment_chooses_level_and_format() {
        assert_eq!(settings(None), None);
        assert_eq!(settings(Some("")), None);
        assert_eq!(settings(Some("off")), None);
        assert_eq!(
            settings(Some("DEBUG")),
            Some((LevelFilter::DEBUG, Format::Text))
        );
        assert_eq!(
            settings(Some("json")),
            Some((LevelFilter::TRACE, Format::Json))
        );
        assert_eq!(
            settings(Some("nonsense")),
            Some((LevelFilter::TRACE, Format::Text))
        );
    }

    #[test]
    fn lines_are_laid_out_as_hclog_lays_them_out() {
        let fields = Fields {
            message: "starting provider".into(),
            pairs: vec![("path".into(), "/a b".into()), ("pid".into(), "7".into())],
        };
        assert_eq!(
            text_line("T", &Level::INFO, &fields),
            "T [INFO]  starting provider: path=\"/a b\" pid=7\n"
        );
        assert_eq!(
            text_line("T", &Level::DEBUG, &Fields::default()),
            "T [DEBUG] \n"
        );
        let json = json_line("T", &Level::WARN, "terrace", &fields);
        let parsed: serde_json::Value = serde_json::from_str(&json).unwrap_or_default();
        assert_eq!(parsed["@level"], "warn");
        assert_eq!(parsed["pid"], "7");
        let t = UNIX_EPOCH + std::time::Duration::new(1_795_744_213, 66_772_999);
        assert_eq!(timestamp(t), "2026-11-27T01:50:13.066Z");
    }

    #[test]
    fn variable_values_are_not_logged() {
        let args: Vec<String> = [
            "plan",
            "-var",
            "pw=s3cret",
            "-var=x=y",
            "-backend-config=k=v",
            "-out=p",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            redacted_args(&args),
            vec![
                "plan",
                "-var",
                "(value not logged)",
                "-var=(value not logged)",
                "-backend-config=(value not logged)",
                "-out=p"
            ]
        );
    }
}
