//! Where plugin output goes. A provider writes its log to stderr, one
//! hclog JSON object per line (`{"@level":"debug","@message":...}`), plus
//! plain text for panics and stray prints; each line becomes a `LogRecord`
//! at the level the provider gave it and is handed to a `LogSink`.
//!
//! `EnvLogSink` is the sink Terraform users expect: `TF_LOG` (or
//! `TF_LOG_PROVIDER` for provider output) chooses the level, `TF_LOG_PATH`
//! a file to append to instead of stderr, and lines read like hclog's
//! text format.

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::sync::Mutex;

/// hclog's levels, lowest first, so `level >= threshold` filters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    Trace,
    Debug,
    Info,
    Warn,
    Error,
}

impl LogLevel {
    /// hclog's `LevelFromString`: case-insensitive, with its aliases.
    pub fn parse(text: &str) -> Option<LogLevel> {
        match text.trim().to_ascii_lowercase().as_str() {
            "trace" => Some(LogLevel::Trace),
            "debug" => Some(LogLevel::Debug),
            "info" => Some(LogLevel::Info),
            "warn" | "warning" => Some(LogLevel::Warn),
            "error" | "err" => Some(LogLevel::Error),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Trace => "TRACE",
            LogLevel::Debug => "DEBUG",
            LogLevel::Info => "INFO",
            LogLevel::Warn => "WARN",
            LogLevel::Error => "ERROR",
        }
    }
}

impl fmt::Display for LogLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One line of plugin output, decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogRecord {
    pub level: LogLevel,
    /// Who wrote it: `provider.terraform-provider-aws_v5.100.0_x5`, with
    /// the plugin's own `@module` appended when it names one.
    pub module: String,
    pub message: String,
    /// The provider's timestamp, as written (`@timestamp`).
    pub timestamp: Option<String>,
    /// The remaining key/value pairs, values as JSON text unless strings.
    pub fields: Vec<(String, String)>,
}

/// Receives plugin log records. Called from background tasks, so it must
/// not block for long.
pub trait LogSink: Send + Sync {
    /// Whether records at `level` are wanted; lines below it are not
    /// decoded at all.
    fn enabled(&self, level: LogLevel) -> bool;
    fn log(&self, record: &LogRecord);
}

/// Drops everything.
#[derive(Clone, Copy, Debug, Default)]
pub struct NullLogSink;

impl LogSink for NullLogSink {
    fn enabled(&self, _level: LogLevel) -> bool {
        false
    }
    fn log(&self, _record: &LogRecord) {}
}

/// Writes records at or above a level to stderr or a file, one line each.
pub struct EnvLogSink {
    threshold: Option<LogLevel>,
    output: Mutex<Output>,
}

enum Output {
    Stderr,
    File(File),
}

impl EnvLogSink {
    /// The sink Terraform's environment variables describe:
    /// `TF_LOG_PROVIDER`, else `TF_LOG`, gives the level (`JSON` and
    /// unrecognised values mean TRACE, as in Terraform; unset means off);
    /// `TF_LOG_PATH` names a file to append to. A file that cannot be
    /// opened falls back to stderr, with a note there.
    pub fn from_env() -> EnvLogSink {
        let level = std::env::var("TF_LOG_PROVIDER")
            .ok()
            .filter(|v| !v.is_empty())
            .or_else(|| std::env::var("TF_LOG").ok());
        let path = std::env::var_os("TF_LOG_PATH").filter(|p| !p.is_empty());
        let threshold = level.as_deref().and_then(threshold_from_env);
        let output = match path {
            Some(path) if threshold.is_some() => {
                match OpenOptions::new().create(true).append(true).open(&path) {
                    Ok(file) => Output::File(file),
                    Err(err) => {
                        eprintln!(
                            "Error opening log file {}: {err}",
                            std::path::Path::new(&path).display()
                        );
                        Output::Stderr
                    }
                }
            }
            _ => Output::Stderr,
        };
        EnvLogSink {
            threshold,
            output: Mutex::new(output),
        }
    }

    /// A sink writing to stderr at `threshold` (None: off).
    pub fn stderr(threshold: Option<LogLevel>) -> EnvLogSink {
        EnvLogSink {
            threshold,
            output: Mutex::new(Output::Stderr),
        }
    }
}

/// Terraform's reading of a level variable: empty is off, `OFF` is off,
/// a level name is that level, anything else (including `JSON`) is TRACE.
fn threshold_from_env(value: &str) -> Option<LogLevel> {
    let value = value.trim();
    if value.is_empty() || value.eq_ignore_ascii_case("off") {
        return None;
    }
    Some(LogLevel::parse(value).unwrap_or(LogLevel::Trace))
}

impl LogSink for EnvLogSink {
    fn enabled(&self, level: LogLevel) -> bool {
        self.threshold.is_some_and(|threshold| level >= threshold)
    }

    fn log(&self, record: &LogRecord) {
        if !self.enabled(record.level) {
            return;
        }
        let line = format_record(record);
        let Ok(mut output) = self.output.lock() else {
            return;
        };
        // A log line that cannot be written is not worth failing a plan.
        let _ = match &mut *output {
            Output::Stderr => std::io::stderr().write_all(line.as_bytes()),
            Output::File(file) => file.write_all(line.as_bytes()),
        };
    }
}

/// hclog's text layout: `TIMESTAMP [LEVEL] module: message: k=v k=v`.
pub fn format_record(record: &LogRecord) -> String {
    let mut line = String::new();
    if let Some(timestamp) = &record.timestamp {
        line.push_str(timestamp);
        line.push(' ');
    }
    line.push('[');
    line.push_str(record.level.as_str());
    line.push_str("] ");
    if !record.module.is_empty() {
        line.push_str(&record.module);
        line.push_str(": ");
    }
    line.push_str(&record.message);
    if !record.fields.is_empty() {
        line.push(':');
        for (key, value) in &record.fields {
            line.push(' ');
            line.push_str(key);
            line.push('=');
            if value.contains(char::is_whitespace) || value.is_empty() {
                line.push_str(&format!("{value:?}"));
            } else {
                line.push_str(value);
            }
        }
    }
    line.push('\n');
    line
}

/// Turns stderr lines of one plugin into records, tracking Go panics:
/// once a line starts a panic, every later plain line is part of it and
/// logged as an error (go-plugin does the same), and it is kept for the
/// crash report.
pub(crate) struct StderrDecoder {
    module: String,
    in_panic: bool,
}

impl StderrDecoder {
    pub(crate) fn new(module: String) -> StderrDecoder {
        StderrDecoder {
            module,
            in_panic: false,
        }
    }

    pub(crate) fn in_panic(&self) -> bool {
        self.in_panic
    }

    /// Decodes one line (without its newline).
    pub(crate) fn decode(&mut self, line: &str) -> DecodedLine {
        if let Some(record) = self.decode_json(line) {
            return DecodedLine {
                record,
                structured: true,
            };
        }
        let level = if line.starts_with("panic: ") || line.starts_with("fatal error: ") {
            self.in_panic = true;
            LogLevel::Error
        } else if self.in_panic {
            LogLevel::Error
        } else {
            plain_line_level(line)
        };
        DecodedLine {
            record: LogRecord {
                level,
                module: self.module.clone(),
                message: line.to_string(),
                timestamp: None,
                fields: Vec::new(),
            },
            structured: false,
        }
    }

    /// `None` when the line is not an hclog JSON object.
    fn decode_json(&self, line: &str) -> Option<LogRecord> {
        if !line.starts_with('{') {
            return None;
        }
        let serde_json::Value::Object(mut object) = serde_json::from_str(line).ok()? else {
            return None;
        };
        // go-plugin logs records with a level it does not know at DEBUG.
        let level = match object.remove("@level") {
            Some(serde_json::Value::String(level)) => {
                LogLevel::parse(&level).unwrap_or(LogLevel::Debug)
            }
            _ => LogLevel::Debug,
        };
        let message = match object.remove("@message") {
            Some(serde_json::Value::String(message)) => message,
            Some(other) => other.to_string(),
            None => String::new(),
        };
        let timestamp = match object.remove("@timestamp") {
            Some(serde_json::Value::String(timestamp)) => Some(timestamp),
            _ => None,
        };
        let module = match object.remove("@module") {
            Some(serde_json::Value::String(module)) if !module.is_empty() => {
                format!("{}.{module}", self.module)
            }
            _ => self.module.clone(),
        };
        object.remove("@caller");
        let fields = object
            .into_iter()
            .map(|(key, value)| {
                let value = match value {
                    serde_json::Value::String(s) => s,
                    other => other.to_string(),
                };
                (key, value)
            })
            .collect();
        Some(LogRecord {
            level,
            module,
            message,
            timestamp,
            fields,
        })
    }
}

/// A decoded stderr line; `structured` when it was hclog JSON rather than
/// plain text.
pub(crate) struct DecodedLine {
    pub record: LogRecord,
    pub structured: bool,
}

/// go-plugin's reading of unstructured lines: a `[LEVEL]` prefix as the
/// standard logger writes it, else DEBUG.
fn plain_line_level(line: &str) -> LogLevel {
    for (prefix, level) in [
        ("[TRACE]", LogLevel::Trace),
        ("[DEBUG]", LogLevel::Debug),
        ("[INFO]", LogLevel::Info),
        ("[WARN]", LogLevel::Warn),
        ("[ERROR]", LogLevel::Error),
    ] {
        if line.starts_with(prefix) {
            return level;
        }
    }
    LogLevel::Debug
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(lines: &[&str], threshold: LogLevel) -> Vec<LogRecord> {
        let mut decoder = StderrDecoder::new("provider.p".into());
        lines
            .iter()
            .map(|line| decoder.decode(line).record)
            .filter(|record| record.level >= threshold)
            .collect()
    }

    #[test]
    fn hclog_json_lines() {
        let records = decode_all(
            &[
                r#"{"@level":"debug","@message":"hello","@module":"sdk.proto","@timestamp":"2025-01-02T03:04:05.000006Z","tf_rpc":"GetProviderSchema","n":3}"#,
                r#"{"@level":"trace","@message":"too low"}"#,
                r#"{"@level":"WARN","@message":"upper case level"}"#,
            ],
            LogLevel::Debug,
        );
        assert_eq!(records.len(), 2);
        assert_eq!(records[0].level, LogLevel::Debug);
        assert_eq!(records[0].module, "provider.p.sdk.proto");
        assert_eq!(records[0].message, "hello");
        assert_eq!(
            records[0].timestamp.as_deref(),
            Some("2025-01-02T03:04:05.000006Z")
        );
        let mut fields = records[0].fields.clone();
        fields.sort();
        assert_eq!(
            fields,
            vec![
                ("n".to_string(), "3".to_string()),
                ("tf_rpc".to_string(), "GetProviderSchema".to_string())
            ]
        );
        assert_eq!(records[1].level, LogLevel::Warn);
        assert_eq!(
            format_record(&records[1]),
            "[WARN] provider.p: upper case level\n"
        );
    }

    #[test]
    fn plain_lines_and_panics() {
        let records = decode_all(
            &[
                "[INFO] starting",
                "something plain",
                "{not json",
                "panic: runtime error: index out of range",
                "goroutine 1 [running]:",
                r#"{"@level":"info","@message":"json still parsed"}"#,
            ],
            LogLevel::Trace,
        );
        let levels: Vec<LogLevel> = records.iter().map(|r| r.level).collect();
        assert_eq!(
            levels,
            vec![
                LogLevel::Info,
                LogLevel::Debug,
                LogLevel::Debug,
                LogLevel::Error,
                LogLevel::Error,
                LogLevel::Info
            ]
        );
    }

    #[test]
    fn env_thresholds() {
        let cases = [
            ("", None),
            ("off", None),
            ("OFF", None),
            ("trace", Some(LogLevel::Trace)),
            ("DEBUG", Some(LogLevel::Debug)),
            ("warn", Some(LogLevel::Warn)),
            ("JSON", Some(LogLevel::Trace)),
            ("nonsense", Some(LogLevel::Trace)),
        ];
        for (value, want) in cases {
            assert_eq!(threshold_from_env(value), want, "{value:?}");
        }
        let sink = EnvLogSink::stderr(Some(LogLevel::Info));
        assert!(!sink.enabled(LogLevel::Debug));
        assert!(sink.enabled(LogLevel::Error));
        assert!(!EnvLogSink::stderr(None).enabled(LogLevel::Error));
    }
}
