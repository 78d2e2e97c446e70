//! Results as text: the JUnit XML document `-junit-xml` writes, in the
//! shape terraform 1.11 writes it (a `testsuite` per file, a `testcase`
//! per run with its time and start timestamp, `failure` for failed
//! assertions, `error` for errors, `skipped` for runs after an error,
//! warnings as `system-err`, diagnostics rendered without colour).

use crate::runner::{FileReport, RunReport, Status, SuiteReport};
use std::time::{SystemTime, UNIX_EPOCH};
use terrace_syntax::render::{render_diagnostic, RenderStyle, SourceMap};

const JUNIT_WIDTH: usize = 80;
use terrace_syntax::Diagnostic;

/// XML attribute and text escaping as Go's `encoding/xml` does it.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&#34;"),
            '\'' => out.push_str("&#39;"),
            '\t' => out.push_str("&#x9;"),
            '\n' => out.push_str("&#xA;"),
            '\r' => out.push_str("&#xD;"),
            c => out.push(c),
        }
    }
    out
}

/// Text inside a CDATA section: a `]]>` in it splits the section.
fn cdata(text: &str) -> String {
    format!("<![CDATA[{}]]>", text.replace("]]>", "]]]]><![CDATA[>"))
}

fn render_all<'a>(diags: impl Iterator<Item = &'a Diagnostic>, sources: &SourceMap) -> String {
    let mut out = String::new();
    for d in diags {
        // terraform writes the report at 80 columns, not the terminal's 78.
        let text = render_diagnostic(d, sources, RenderStyle::Plain, JUNIT_WIDTH);
        out.push('\n');
        out.push_str(text.trim_start_matches('\n'));
        if !out.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// RFC 3339 in UTC, to the second.
pub fn rfc3339(time: SystemTime) -> String {
    let secs = time
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (h, m, s) = (rem / 3600, (rem % 3600) / 60, rem % 60);
    // Howard Hinnant's days-to-civil.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let mo = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if mo <= 2 { y + 1 } else { y };
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{m:02}:{s:02}Z")
}

fn testcase(
    file: &FileReport,
    run: &RunReport,
    previous_error: Option<&str>,
    sources: &SourceMap,
) -> String {
    let name = escape(&run.name);
    let class = escape(&file.name);
    if run.status == Status::Skip {
        let mut out = format!("    <testcase name=\"{name}\" classname=\"{class}\">\n");
        match previous_error {
            Some(prev) => out.push_str(&format!(
                "      <skipped message=\"Testcase skipped due to a previous testcase error\">{}</skipped>\n",
                cdata(&format!("Previous testcase {prev:?} ended in error, which caused the remaining tests in the file to be skipped"))
            )),
            None => out.push_str("      <skipped></skipped>\n"),
        }
        out.push_str("    </testcase>\n");
        return out;
    }
    let started = run.started.map(rfc3339).unwrap_or_default();
    let mut out = format!(
        "    <testcase name=\"{name}\" classname=\"{class}\" time=\"{}\" timestamp=\"{started}\">",
        run.elapsed.as_secs_f64()
    );
    let errors: Vec<&Diagnostic> = run.diagnostics.iter().filter(|d| d.is_error()).collect();
    let warnings: Vec<&Diagnostic> = run.diagnostics.iter().filter(|d| !d.is_error()).collect();
    let mut inner = String::new();
    match run.status {
        Status::Fail => {
            let failed: Vec<&&Diagnostic> = errors
                .iter()
                .filter(|d| d.summary == "Test assertion failed")
                .collect();
            let first = failed
                .first()
                .map(|d| d.detail.as_str())
                .unwrap_or_default();
            inner.push_str(&format!(
                "      <failure message=\"{}\">{}</failure>\n",
                escape(&format!(
                    "{} of {} assertions failed: {first}",
                    failed.len(),
                    run.assertions
                )),
                cdata(&render_all(errors.iter().copied(), sources))
            ));
        }
        Status::Error => {
            inner.push_str(&format!(
                "      <error message=\"Encountered an error\">{}</error>\n",
                cdata(&render_all(errors.iter().copied(), sources))
            ));
        }
        _ => {}
    }
    if !warnings.is_empty() {
        inner.push_str(&format!(
            "      <system-err>{}</system-err>\n",
            cdata(&render_all(warnings.iter().copied(), sources))
        ));
    }
    if inner.is_empty() {
        out.push_str("</testcase>\n");
    } else {
        out.push('\n');
        out.push_str(&inner);
        out.push_str("    </testcase>\n");
    }
    out
}

/// The `-junit-xml` document.
pub fn junit_xml(report: &SuiteReport, sources: &SourceMap) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?><testsuites>\n");
    for file in &report.files {
        let count = |s: Status| file.runs.iter().filter(|r| r.status == s).count();
        out.push_str(&format!(
            "  <testsuite name=\"{}\" tests=\"{}\" skipped=\"{}\" failures=\"{}\" errors=\"{}\">\n",
            escape(&file.name),
            file.runs.len(),
            count(Status::Skip),
            count(Status::Fail),
            count(Status::Error)
        ));
        let mut previous_error: Option<&str> = None;
        for run in &file.runs {
            out.push_str(&testcase(file, run, previous_error, sources));
            if run.status == Status::Error && previous_error.is_none() {
                previous_error = Some(&run.name);
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_utc_seconds() {
        let t = UNIX_EPOCH + std::time::Duration::from_secs(1_795_741_223);
        assert_eq!(rfc3339(t), "2026-11-27T01:00:23Z");
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00Z");
    }

    #[test]
    fn attributes_escape_as_go_does() {
        assert_eq!(escape("a\"b'<c>&\n"), "a&#34;b&#39;&lt;c&gt;&amp;&#xA;");
        assert_eq!(cdata("x]]>y"), "<![CDATA[x]]]]><![CDATA[>y]]>");
    }
}
