//! Operation deadlines and cancellation. Each create, read, update and
//! delete runs with a `Context` whose deadline comes from the resource's
//! `timeouts` block (or its declared defaults), and which also notices
//! Terraform's request to stop. Deadlines are cooperative, as in Go's
//! contexts: long-running operations wait through `Context::sleep` or
//! `Context::retry`, or call `Context::check` between steps.

use crate::error::{Error, Result};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The default limit of every operation, as in Terraform's Go SDK.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(20 * 60);

/// What an operation may consult while it runs.
#[derive(Clone, Debug)]
pub struct Context {
    operation: &'static str,
    limit: Duration,
    deadline: Instant,
    stop: Arc<AtomicBool>,
}

impl Context {
    pub(crate) fn new(operation: &'static str, limit: Duration, stop: Arc<AtomicBool>) -> Context {
        let now = Instant::now();
        Context {
            operation,
            limit,
            deadline: now.checked_add(limit).unwrap_or(now + DEFAULT_TIMEOUT),
            stop,
        }
    }

    /// A context for calling provider code directly (tests, tools): the
    /// given limit, never stopped.
    pub fn detached(operation: &'static str, limit: Duration) -> Context {
        Context::new(operation, limit, Arc::new(AtomicBool::new(false)))
    }

    /// `"create"`, `"read"`, `"update"`, `"delete"`, `"import"`, ...
    pub fn operation(&self) -> &'static str {
        self.operation
    }

    /// The time this operation was given in all.
    pub fn timeout(&self) -> Duration {
        self.limit
    }

    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    pub fn remaining(&self) -> Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }

    pub fn is_stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    /// Fails once the deadline has passed or Terraform asked to stop.
    pub fn check(&self) -> Result<()> {
        if self.is_stopped() {
            return Err(Error::stopped(self.operation));
        }
        if Instant::now() >= self.deadline {
            return Err(Error::timeout(self.operation, self.limit));
        }
        Ok(())
    }

    /// Waits `duration`, or fails early at the deadline or on a stop.
    pub fn sleep(&self, duration: Duration) -> Result<()> {
        let until = Instant::now() + duration;
        loop {
            self.check()?;
            let now = Instant::now();
            if now >= until {
                return Ok(());
            }
            // Short naps so that a stop request is noticed promptly.
            let nap = until
                .min(self.deadline)
                .saturating_duration_since(now)
                .min(Duration::from_millis(50));
            std::thread::sleep(nap.max(Duration::from_millis(1)));
        }
    }

    /// Calls `attempt` until it returns `Done` or `Fatal`, waiting
    /// `interval` after each `Retry`; at the deadline the last retryable
    /// error is returned with the timeout explained.
    pub fn retry<T>(&self, interval: Duration, mut attempt: impl FnMut() -> Retry<T>) -> Result<T> {
        loop {
            match attempt() {
                Retry::Done(value) => return Ok(value),
                Retry::Fatal(error) => return Err(error),
                Retry::Retry(error) => {
                    if let Err(mut stopped) = self.sleep(interval) {
                        for diagnostic in error.into_diagnostics() {
                            stopped.push(diagnostic);
                        }
                        return Err(stopped);
                    }
                }
            }
        }
    }
}

/// The outcome of one attempt under `Context::retry`.
pub enum Retry<T> {
    Done(T),
    /// Worth trying again (the remote system is not ready yet).
    Retry(Error),
    Fatal(Error),
}

/// Parses a duration as Go's `time.ParseDuration` does, which is what
/// users write in `timeouts` blocks: `"10m"`, `"1h30m"`, `"1.5s"`,
/// `"300ms"`. Negative durations are refused: an operation cannot have
/// less than no time.
pub fn parse_duration(text: &str) -> std::result::Result<Duration, String> {
    let invalid = || {
        format!(
            "time: invalid duration {}",
            terrace_value::gostr::quote(text)
        )
    };
    let mut rest = text;
    if let Some(stripped) = rest.strip_prefix('+') {
        rest = stripped;
    } else if rest.starts_with('-') {
        return Err(format!(
            "{}: negative durations are not allowed",
            terrace_value::gostr::quote(text)
        ));
    }
    if rest == "0" {
        return Ok(Duration::ZERO);
    }
    if rest.is_empty() {
        return Err(invalid());
    }
    let mut total_nanos: u128 = 0;
    while !rest.is_empty() {
        let digits_end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let number = &rest[..digits_end];
        if number.is_empty() || number == "." || number.matches('.').count() > 1 {
            return Err(invalid());
        }
        rest = &rest[digits_end..];
        let unit_end = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let unit = &rest[..unit_end];
        rest = &rest[unit_end..];
        let scale: u128 = match unit {
            "ns" => 1,
            "us" | "\u{b5}s" | "\u{3bc}s" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            "" => {
                return Err(format!(
                    "time: missing unit in duration {}",
                    terrace_value::gostr::quote(text)
                ))
            }
            _ => {
                return Err(format!(
                    "time: unknown unit {} in duration {}",
                    terrace_value::gostr::quote(unit),
                    terrace_value::gostr::quote(text)
                ))
            }
        };
        let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
        let whole: u128 = if whole.is_empty() {
            0
        } else {
            whole.parse().map_err(|_| invalid())?
        };
        let mut nanos = whole.checked_mul(scale).ok_or_else(invalid)?;
        // The fraction in units of `scale`, truncated as Go does.
        let mut place = scale;
        for digit in fraction.bytes() {
            place /= 10;
            if place == 0 {
                break;
            }
            nanos += u128::from(digit - b'0') * place;
        }
        total_nanos = total_nanos.checked_add(nanos).ok_or_else(invalid)?;
    }
    if total_nanos > i64::MAX as u128 {
        return Err(invalid());
    }
    let secs = u64::try_from(total_nanos / 1_000_000_000).map_err(|_| invalid())?;
    let nanos = u32::try_from(total_nanos % 1_000_000_000).map_err(|_| invalid())?;
    Ok(Duration::new(secs, nanos))
}

/// A duration as Go's `Duration.String` writes it: `20m0s`, `1h30m0s`,
/// `1.5s`, `300ms`.
pub fn format_duration(duration: Duration) -> String {
    let nanos = duration.as_nanos();
    if nanos == 0 {
        return "0s".into();
    }
    if nanos < 1_000_000_000 {
        let (value, unit, scale) = if nanos < 1_000 {
            (nanos, "ns", 1)
        } else if nanos < 1_000_000 {
            (nanos, "\u{b5}s", 1_000)
        } else {
            (nanos, "ms", 1_000_000)
        };
        return format!("{}{unit}", fraction(value, scale));
    }
    let total_seconds = nanos / 1_000_000_000;
    let sub = nanos % 1_000_000_000;
    let hours = total_seconds / 3600;
    let minutes = (total_seconds % 3600) / 60;
    let seconds = total_seconds % 60;
    let seconds = fraction(seconds * 1_000_000_000 + sub, 1_000_000_000);
    let mut text = String::new();
    if hours > 0 {
        text.push_str(&format!("{hours}h"));
    }
    if hours > 0 || minutes > 0 {
        text.push_str(&format!("{minutes}m"));
    }
    text.push_str(&format!("{seconds}s"));
    text
}

/// `value / scale` with the fraction's trailing zeros removed.
fn fraction(value: u128, scale: u128) -> String {
    let whole = value / scale;
    let rest = value % scale;
    if rest == 0 {
        return whole.to_string();
    }
    let width = scale.to_string().len() - 1;
    let digits = format!("{rest:0width$}");
    format!("{whole}.{}", digits.trim_end_matches('0'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_go_durations() {
        let cases = [
            ("10m", Duration::from_secs(600)),
            ("1h30m", Duration::from_secs(5400)),
            ("1.5s", Duration::from_millis(1500)),
            ("300ms", Duration::from_millis(300)),
            ("2us", Duration::from_micros(2)),
            ("0", Duration::ZERO),
            ("+5s", Duration::from_secs(5)),
            (".5h", Duration::from_secs(1800)),
        ];
        for (text, want) in cases {
            assert_eq!(parse_duration(text), Ok(want), "{text}");
        }
    }

    #[test]
    fn rejects_bad_durations() {
        let cases = [
            ("", "time: invalid duration \"\""),
            ("10", "time: missing unit in duration \"10\""),
            ("10x", "time: unknown unit \"x\" in duration \"10x\""),
            ("-1s", "\"-1s\": negative durations are not allowed"),
            ("1..2s", "time: invalid duration \"1..2s\""),
            ("h", "time: invalid duration \"h\""),
        ];
        for (text, want) in cases {
            assert_eq!(parse_duration(text).unwrap_err(), want, "{text}");
        }
    }

    #[test]
    fn formats_like_go() {
        let cases = [
            (Duration::from_secs(1200), "20m0s"),
            (Duration::from_secs(5400), "1h30m0s"),
            (Duration::from_millis(1500), "1.5s"),
            (Duration::from_millis(300), "300ms"),
            (Duration::ZERO, "0s"),
            (Duration::from_secs(3600), "1h0m0s"),
        ];
        for (duration, want) in cases {
            assert_eq!(format_duration(duration), want);
        }
    }

    #[test]
    fn contexts_time_out_and_stop() {
        let context = Context::detached("create", Duration::ZERO);
        let error = context.check().unwrap_err();
        assert_eq!(
            error.diagnostics().0[0].summary,
            "Timeout while waiting for create"
        );
        let stop = Arc::new(AtomicBool::new(false));
        let context = Context::new("delete", Duration::from_secs(60), stop.clone());
        assert!(context.check().is_ok());
        stop.store(true, Ordering::SeqCst);
        assert_eq!(
            context
                .sleep(Duration::from_secs(60))
                .unwrap_err()
                .diagnostics()
                .0[0]
                .summary,
            "Operation cancelled"
        );
    }

    #[test]
    fn retry_gives_up_at_the_deadline() {
        let context = Context::detached("update", Duration::from_millis(30));
        let mut attempts = 0;
        let result: Result<()> = context.retry(Duration::from_millis(5), || {
            attempts += 1;
            Retry::Retry(Error::new("not yet", ""))
        });
        let error = result.unwrap_err();
        let summaries: Vec<&str> = error
            .diagnostics()
            .iter()
            .map(|d| d.summary.as_str())
            .collect();
        assert_eq!(
            summaries,
            vec!["Timeout while waiting for update", "not yet"]
        );
        assert!(attempts >= 1);
        let done = context.retry(Duration::from_millis(1), || Retry::Done(7));
        assert_eq!(done, Ok(7));
        let quick = Context::detached("update", Duration::from_secs(60));
        let mut count = 0;
        let value = quick.retry(Duration::from_millis(1), || {
            count += 1;
            if count < 3 {
                Retry::Retry(Error::new("again", ""))
            } else {
                Retry::Done(count)
            }
        });
        assert_eq!(value, Ok(3));
    }
}
