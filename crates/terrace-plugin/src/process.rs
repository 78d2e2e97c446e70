//! Starting a plugin process the way go-plugin does for Terraform, reading
//! its handshake, forwarding its output to the log, and making sure it is
//! gone afterwards.
//!
//! The plugin runs in a process group of its own, so that ending it also
//! ends anything it started (and a Ctrl-C at the terminal reaches terrace,
//! which then stops providers through the protocol, rather than killing
//! them mid-request). A background task waits for the process, so it never
//! lingers as a zombie.

use crate::error::{PluginError, PluginErrorKind};
use crate::handshake::{Handshake, SUPPORTED_PROTOCOL_VERSIONS};
use crate::log::{LogLevel, LogRecord, LogSink, StderrDecoder};
use std::collections::VecDeque;
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, BufReader};
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// The environment variable and value a Terraform provider checks before
/// serving; without them it refuses to run ("This binary is a plugin").
pub const MAGIC_COOKIE_KEY: &str = "TF_PLUGIN_MAGIC_COOKIE";
pub const MAGIC_COOKIE_VALUE: &str =
    "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2";

/// Longest line kept from a plugin's stdout or stderr; longer lines are
/// split so that a plugin printing without newlines cannot exhaust memory.
const MAX_LINE: usize = 64 * 1024;
/// Lines of ordinary output kept for error messages.
const RECENT_LINES: usize = 20;
/// Lines of a Go panic kept for the crash report, as Terraform does.
const PANIC_LINES: usize = 100;

/// How to run one plugin.
pub(crate) struct SpawnSettings {
    pub provider: String,
    pub executable: PathBuf,
    pub args: Vec<OsString>,
    pub env: Vec<(OsString, OsString)>,
    pub start_timeout: Duration,
    pub min_port: u16,
    pub max_port: u16,
    pub client_certificate_pem: Option<String>,
    pub log: Arc<dyn LogSink>,
}

/// A running (or finished) plugin process.
pub(crate) struct PluginProcess {
    provider: String,
    pid: Option<i32>,
    exit: watch::Receiver<Option<String>>,
    output: Arc<Mutex<OutputRecorder>>,
    stderr_task: Mutex<Option<JoinHandle<()>>>,
}

impl PluginProcess {
    /// Starts the plugin and reads its handshake, within the start timeout.
    /// On any failure the process is killed and reaped before returning.
    pub(crate) async fn start(
        settings: SpawnSettings,
    ) -> Result<(Arc<PluginProcess>, Handshake), PluginError> {
        let provider = settings.provider.clone();
        let mut command = tokio::process::Command::new(&settings.executable);
        command
            .args(&settings.args)
            .envs(settings.env.iter().map(|(k, v)| (k, v)))
            .env(MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE)
            .env("PLUGIN_MIN_PORT", settings.min_port.to_string())
            .env("PLUGIN_MAX_PORT", settings.max_port.to_string())
            .env(
                "PLUGIN_PROTOCOL_VERSIONS",
                SUPPORTED_PROTOCOL_VERSIONS
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(","),
            )
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(false);
        match &settings.client_certificate_pem {
            Some(pem) => command.env("PLUGIN_CLIENT_CERT", pem),
            None => command.env_remove("PLUGIN_CLIENT_CERT"),
        };
        let mut child = command.spawn().map_err(|e| {
            PluginError::new(
                PluginErrorKind::Spawn,
                &provider,
                format!("could not run {}: {e}", settings.executable.display()),
            )
        })?;
        let pid = child.id().and_then(|id| i32::try_from(id).ok());
        if let Some(pid) = pid {
            live_groups(|groups| groups.insert(pid));
        }
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();

        let (exit_sender, exit) = watch::channel(None);
        tokio::spawn(async move {
            let status = match child.wait().await {
                Ok(status) => status.to_string(),
                Err(e) => format!("could not wait for the process: {e}"),
            };
            if let Some(pid) = pid {
                live_groups(|groups| groups.remove(&pid));
            }
            exit_sender.send_replace(Some(status));
        });

        let module = log_module(&settings.executable);
        let output = Arc::new(Mutex::new(OutputRecorder::default()));
        let stderr_task = stderr.map(|stderr| {
            tokio::spawn(forward_stderr(
                BufReader::new(stderr),
                StderrDecoder::new(module.clone()),
                settings.log.clone(),
                output.clone(),
            ))
        });
        let process = Arc::new(PluginProcess {
            provider: provider.clone(),
            pid,
            exit,
            output,
            stderr_task: Mutex::new(stderr_task),
        });

        let Some(stdout) = stdout else {
            return Err(process
                .fail(
                    PluginErrorKind::Internal,
                    "the plugin's stdout was not captured".into(),
                )
                .await);
        };
        let mut stdout = BufReader::new(stdout);
        match process
            .read_handshake(&mut stdout, settings.start_timeout)
            .await
        {
            Ok(handshake) => {
                tokio::spawn(forward_stdout(stdout, module, settings.log));
                Ok((process, handshake))
            }
            Err((kind, message)) => Err(process.fail(kind, message).await),
        }
    }

    async fn read_handshake<R: AsyncBufRead + Unpin>(
        &self,
        stdout: &mut R,
        timeout: Duration,
    ) -> Result<Handshake, (PluginErrorKind, String)> {
        let mut exit = self.exit.clone();
        let line = tokio::select! {
            biased;
            line = read_line(stdout) => line,
            _ = exit.wait_for(Option::is_some) => None,
            _ = tokio::time::sleep(timeout) => {
                return Err((
                    PluginErrorKind::Timeout,
                    format!(
                        "timeout while waiting for plugin to start: no handshake within {}",
                        describe_duration(timeout)
                    ),
                ));
            }
        };
        match line {
            Some(line) => {
                Handshake::parse(&line).map_err(|message| (PluginErrorKind::Handshake, message))
            }
            None => {
                // Closing stdout usually means exiting; give the exit a
                // moment to be observed so the message can say how.
                let status = self.wait_exit(Duration::from_secs(2)).await;
                let message = match status {
                    Some(status) => {
                        format!("plugin exited before completing the handshake ({status})")
                    }
                    None => "plugin closed its stdout without completing the handshake".into(),
                };
                Err((PluginErrorKind::Exited, message))
            }
        }
    }

    /// Kills and reaps the process, collects its output and makes the
    /// error.
    pub(crate) async fn fail(&self, kind: PluginErrorKind, message: String) -> PluginError {
        self.kill();
        self.wait_exit(Duration::from_secs(5)).await;
        self.finish_output(Duration::from_secs(2)).await;
        PluginError::new(kind, &self.provider, message).with_output(self.recent_output())
    }

    pub(crate) fn pid(&self) -> Option<i32> {
        self.pid
    }

    /// How the process ended, once it has.
    pub(crate) fn exit_status(&self) -> Option<String> {
        self.exit.borrow().clone()
    }

    /// Waits up to `timeout` for the process to end; its exit status if it
    /// did.
    pub(crate) async fn wait_exit(&self, timeout: Duration) -> Option<String> {
        let mut exit = self.exit.clone();
        let waited = tokio::time::timeout(timeout, async {
            exit.wait_for(Option::is_some)
                .await
                .ok()
                .and_then(|s| s.clone())
        })
        .await;
        match waited {
            Ok(Some(status)) => Some(status),
            _ => self.exit_status(),
        }
    }

    /// SIGKILL to the plugin's whole process group. Harmless when it is
    /// already gone.
    pub(crate) fn kill(&self) {
        let Some(pid) = self.pid.filter(|pid| *pid > 0) else {
            return;
        };
        // SAFETY: kill(2) has no memory-safety preconditions; a negative
        // pid addresses the process group the plugin leads (it was started
        // with process_group(0), so its group id is its pid).
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }

    /// Waits (bounded) until all stderr output has been read, so that
    /// error messages include the last words of a dying plugin.
    pub(crate) async fn finish_output(&self, timeout: Duration) {
        let task = self
            .stderr_task
            .lock()
            .ok()
            .and_then(|mut task| task.take());
        if let Some(task) = task {
            let _ = tokio::time::timeout(timeout, task).await;
        }
    }

    /// The last lines the plugin wrote to stderr that were not structured
    /// log records (or were error records).
    pub(crate) fn recent_output(&self) -> String {
        self.output
            .lock()
            .map(|output| output.recent())
            .unwrap_or_default()
    }

    /// The Go panic the plugin printed, if it printed one.
    pub(crate) fn panic_output(&self) -> Option<String> {
        self.output.lock().ok().and_then(|output| output.panic())
    }
}

/// The logger name of a plugin's output, as go-plugin names it:
/// `provider.terraform-provider-aws_v5.100.0_x5`.
pub(crate) fn log_module(executable: &std::path::Path) -> String {
    format!(
        "provider.{}",
        executable
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default()
    )
}

/// What is kept of a plugin's stderr for error messages.
#[derive(Default)]
struct OutputRecorder {
    recent: VecDeque<String>,
    panic: Vec<String>,
}

impl OutputRecorder {
    fn record(&mut self, line: &str, in_panic: bool) {
        if in_panic {
            if self.panic.len() < PANIC_LINES {
                self.panic.push(line.to_string());
            }
            return;
        }
        if self.recent.len() == RECENT_LINES {
            self.recent.pop_front();
        }
        self.recent.push_back(line.to_string());
    }

    fn recent(&self) -> String {
        let mut text = String::new();
        for line in self.recent.iter().chain(self.panic.iter()) {
            text.push_str(line);
            text.push('\n');
        }
        text
    }

    fn panic(&self) -> Option<String> {
        if self.panic.is_empty() {
            None
        } else {
            Some(self.panic.join("\n"))
        }
    }
}

async fn forward_stderr<R: AsyncBufRead + Unpin>(
    mut stderr: R,
    mut decoder: StderrDecoder,
    sink: Arc<dyn LogSink>,
    output: Arc<Mutex<OutputRecorder>>,
) {
    while let Some(line) = read_line(&mut stderr).await {
        let decoded = decoder.decode(&line);
        let keep = !decoded.structured || decoded.record.level >= LogLevel::Error;
        if keep {
            if let Ok(mut output) = output.lock() {
                let text = if decoded.structured {
                    decoded.record.message.as_str()
                } else {
                    line.as_str()
                };
                output.record(text, decoder.in_panic());
            }
        }
        if sink.enabled(decoded.record.level) {
            sink.log(&decoded.record);
        }
    }
}

/// After the handshake nothing more is expected on stdout; whatever comes
/// is logged (and read, so the plugin never blocks writing it).
async fn forward_stdout<R: AsyncBufRead + Unpin>(
    mut stdout: R,
    module: String,
    sink: Arc<dyn LogSink>,
) {
    while let Some(line) = read_line(&mut stdout).await {
        if sink.enabled(LogLevel::Warn) {
            sink.log(&LogRecord {
                level: LogLevel::Warn,
                module: module.clone(),
                message: "unexpected data on stdout".into(),
                timestamp: None,
                fields: vec![("stdout".into(), line)],
            });
        }
    }
}

/// One line without its line ending, at most `MAX_LINE` bytes (longer
/// lines come back in pieces); `None` at end of input or on a read error.
async fn read_line<R: AsyncBufRead + Unpin>(reader: &mut R) -> Option<String> {
    let mut line = Vec::new();
    while let Ok(available) = reader.fill_buf().await {
        if available.is_empty() {
            break;
        }
        let room = MAX_LINE - line.len();
        if let Some(newline) = available.iter().take(room).position(|b| *b == b'\n') {
            line.extend_from_slice(&available[..newline]);
            reader.consume(newline + 1);
            return Some(finish_line(line));
        }
        let take = available.len().min(room);
        line.extend_from_slice(&available[..take]);
        reader.consume(take);
        if line.len() >= MAX_LINE {
            return Some(finish_line(line));
        }
    }
    if line.is_empty() {
        None
    } else {
        Some(finish_line(line))
    }
}

fn finish_line(mut line: Vec<u8>) -> String {
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    String::from_utf8_lossy(&line).into_owned()
}

fn describe_duration(duration: Duration) -> String {
    let millis = duration.as_millis();
    if millis.is_multiple_of(1000) {
        format!("{}s", millis / 1000)
    } else {
        format!("{millis}ms")
    }
}

/// The process groups of plugins started and not yet reaped, so that a
/// process leaving in a hurry (a second Ctrl-C) can take them with it.
static LIVE_PLUGIN_GROUPS: std::sync::Mutex<std::collections::BTreeSet<i32>> =
    std::sync::Mutex::new(std::collections::BTreeSet::new());

fn live_groups<T>(f: impl FnOnce(&mut std::collections::BTreeSet<i32>) -> T) -> T {
    let mut groups = LIVE_PLUGIN_GROUPS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    f(&mut groups)
}

/// SIGKILL to every plugin this process started that is still running
/// (and everything those plugins started). For an exit that cannot wait
/// for orderly shutdowns; plugins otherwise outlive their host.
pub fn kill_all_plugins() {
    for pid in live_groups(std::mem::take) {
        if pid > 0 {
            // SAFETY: kill(2) has no memory-safety preconditions; each pid
            // leads its own process group (process_group(0) at spawn).
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8]) -> Vec<String> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime.block_on(async {
            let mut reader = BufReader::with_capacity(7, input);
            let mut out = Vec::new();
            while let Some(line) = read_line(&mut reader).await {
                out.push(line);
            }
            out
        })
    }

    #[test]
    fn line_reading() {
        assert_eq!(lines(b""), Vec::<String>::new());
        assert_eq!(lines(b"a\nbb\r\n\nlast"), vec!["a", "bb", "", "last"]);
        assert_eq!(lines("é\n".as_bytes()), vec!["é"]);
        let long = vec![b'x'; MAX_LINE + 3];
        let got = lines(&long);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].len(), MAX_LINE);
        assert_eq!(got[1], "xxx");
    }

    #[test]
    fn recorder_keeps_recent_and_panic() {
        let mut recorder = OutputRecorder::default();
        for i in 0..30 {
            recorder.record(&format!("line {i}"), false);
        }
        recorder.record("panic: boom", true);
        recorder.record("goroutine 1", true);
        let recent = recorder.recent();
        assert!(recent.starts_with("line 10\n"));
        assert!(recent.ends_with("panic: boom\ngoroutine 1\n"));
        assert_eq!(
            recorder.panic().as_deref(),
            Some("panic: boom\ngoroutine 1")
        );
    }

    #[test]
    fn durations() {
        assert_eq!(describe_duration(Duration::from_secs(60)), "60s");
        assert_eq!(describe_duration(Duration::from_millis(1500)), "1500ms");
    }
}
