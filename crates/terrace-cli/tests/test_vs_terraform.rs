//! `terrace test` against `terraform test`: every case directory under
//! `tests/test_command/` holds a module with test files (`config/`),
//! optionally extra arguments (`args`, one per line), and what terraform
//! 1.11.4 printed for it (`expected.no-color.txt` and `expected.color.txt`
//! with the exit status and both streams, `expected.junit.xml` when the
//! arguments ask for a JUnit report), recorded by
//! `scripts/record-test-expectations`. terrace must give every run the same
//! status and print the same bytes, after terraform's product name is
//! swapped for terrace's where a message names the product, and with
//! generated UUIDs blanked in both; JUnit reports are compared with their
//! times blanked. Mock providers and real ones run
//! through the bundled providers as development overrides, as when they
//! were recorded.

mod engine_support;

use engine_support::{Overrides, Work};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use terrace_testsupport::recording;

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/test_command")
}

fn case_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(cases_dir())
        .map(|it| {
            it.filter_map(|e| e.ok())
                .filter(|e| e.path().join("config").is_dir())
                .filter_map(|e| e.file_name().into_string().ok())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// terraform's text as terrace prints it: terrace's name where terraform's
/// messages name terraform, and generated ids blanked.
fn normalize(text: &str) -> String {
    blank_uuids(&terrace_testsupport::product::as_terrace(text))
}

/// Every UUID (what `terraform_data` generates for its `id`) written as
/// zeros, the same length so that alignment is kept: they differ run to
/// run.
fn blank_uuids(text: &str) -> String {
    const GROUPS: [usize; 5] = [8, 4, 4, 4, 12];
    let bytes = text.as_bytes();
    let is_uuid_at = |at: usize| {
        let mut i = at;
        for (n, len) in GROUPS.iter().enumerate() {
            if n > 0 {
                if bytes.get(i) != Some(&b'-') {
                    return false;
                }
                i += 1;
            }
            for _ in 0..*len {
                if !bytes
                    .get(i)
                    .is_some_and(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
                {
                    return false;
                }
                i += 1;
            }
        }
        true
    };
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    while at < text.len() {
        if is_uuid_at(at) {
            out.push_str("00000000-0000-0000-0000-000000000000");
            at += 36;
            continue;
        }
        let Some(c) = text[at..].chars().next() else {
            break;
        };
        out.push(c);
        at += c.len_utf8();
    }
    out
}

/// `time="..."` and `timestamp="..."` blanked: they differ run to run.
fn blank_times(xml: &str) -> String {
    let mut out = String::new();
    let mut rest = xml;
    loop {
        let next = ["time=\"", "timestamp=\""]
            .iter()
            .filter_map(|k| rest.find(k).map(|i| (i, *k)))
            .min();
        let Some((at, key)) = next else {
            out.push_str(rest);
            return out;
        };
        out.push_str(&rest[..at + key.len()]);
        rest = &rest[at + key.len()..];
        match rest.find('"') {
            Some(end) => rest = &rest[end..],
            None => return out,
        }
    }
}

/// JSON lines without their timestamps, and the version line's message
/// (each tool names itself there), a plan's relevant attributes in one
/// order.
fn normalize_json_lines(text: &str) -> String {
    text.lines()
        .map(|line| {
            let Ok(serde_json::Value::Object(mut m)) = serde_json::from_str(line) else {
                return line.to_string();
            };
            m.remove("@timestamp");
            if m.get("type").and_then(|t| t.as_str()) == Some("version") {
                m.remove("@message");
            }
            // terraform lists a plan's relevant attributes in an order that
            // changes from run to run: compared as a set.
            if let Some(serde_json::Value::Array(relevant)) = m
                .get_mut("test_plan")
                .and_then(|p| p.get_mut("relevant_attributes"))
            {
                relevant.sort_by_key(|r| r.to_string());
            }
            serde_json::Value::Object(m).to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn copy_dir(from: &Path, to: &Path) {
    let _ = std::fs::create_dir_all(to);
    let Ok(entries) = std::fs::read_dir(from) else {
        return;
    };
    for e in entries.filter_map(|e| e.ok()) {
        let target = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            let _ = std::fs::copy(e.path(), &target);
        }
    }
}

fn case_args(case: &Path) -> Vec<String> {
    std::fs::read_to_string(case.join("args"))
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect()
}

fn terrace_test(work: &Work, args: &[String]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_terrace"))
        .arg("test")
        .args(args)
        .current_dir(&work.dir)
        .env("TF_CLI_CONFIG_FILE", work.dir.with_extension("tfrc"))
        .env("CHECKPOINT_DISABLE", "1")
        .env("TF_IN_AUTOMATION", "1")
        .env_remove("NO_COLOR")
        .env_remove("TF_DATA_DIR")
        .env_remove("TF_LOG")
        .stdin(Stdio::null())
        .output();
    match out {
        Ok(o) => (
            o.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        ),
        Err(e) => (-1, String::new(), format!("cannot run terrace: {e}")),
    }
}

/// The `run "NAME"... STATUS` lines of an output, to name what differs
/// first when a case fails.
fn statuses(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .filter(|l| l.trim_start().starts_with("run \""))
        .collect()
}

#[test]
fn test_command_matches_terraform() {
    let names = case_names();
    let files = names
        .iter()
        .map(|n| {
            let mut count = 0;
            let mut stack = vec![cases_dir().join(n).join("config")];
            while let Some(dir) = stack.pop() {
                for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                    let p = e.path();
                    if p.is_dir() {
                        stack.push(p);
                    } else if p.to_string_lossy().contains(".tftest.") {
                        count += 1;
                    }
                }
            }
            count
        })
        .sum::<usize>();
    assert!(files >= 30, "only {files} test files");
    let mut failures = Vec::new();
    for name in &names {
        let case = cases_dir().join(name);
        let args = case_args(&case);
        for (file, extra) in [
            ("expected.no-color.txt", Some("-no-color")),
            ("expected.color.txt", None),
            ("expected.json.txt", Some("-json")),
        ] {
            let Some(recorded) = recording::read(&case.join(file)) else {
                failures.push(format!("{name}: unreadable {file}"));
                continue;
            };
            let work = Work::new(
                &format!("test-{name}"),
                Overrides {
                    bundled: true,
                    aws: false,
                },
            );
            copy_dir(&case.join("config"), &work.dir);
            let mut all_args: Vec<String> = extra.map(str::to_string).into_iter().collect();
            all_args.extend(args.iter().cloned());
            let (code, out, err) = terrace_test(&work, &all_args);
            let mut got = (code, blank_uuids(&out), blank_uuids(&err));
            let mut want = (
                recorded.exit,
                normalize(&recorded.stdout),
                normalize(&recorded.stderr),
            );
            if extra == Some("-json") {
                got.1 = normalize_json_lines(&got.1);
                want.1 = normalize_json_lines(&want.1);
            }
            if statuses(&got.1) != statuses(&want.1) {
                failures.push(format!(
                    "{name} {all_args:?}: run statuses differ\n--- terraform\n{}\n--- terrace\n{}",
                    statuses(&want.1).join("\n"),
                    statuses(&got.1).join("\n")
                ));
            }
            if got != want {
                failures.push(format!(
                    "{name} {all_args:?}:\n--- terraform (exit {})\n{}{}\n--- terrace (exit {})\n{}{}",
                    want.0, want.1, want.2, got.0, got.1, got.2
                ));
            }
            let junit = all_args
                .iter()
                .find_map(|a| a.strip_prefix("-junit-xml="))
                .map(|p| work.dir.join(p));
            if let Some(report) = junit {
                let want =
                    std::fs::read_to_string(case.join("expected.junit.xml")).unwrap_or_default();
                let got = std::fs::read_to_string(&report).unwrap_or_default();
                if blank_times(&got) != blank_times(&normalize(&want)) {
                    failures.push(format!(
                        "{name}: JUnit reports differ\n--- terraform\n{want}\n--- terrace\n{got}"
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

#[test]
fn uuids_are_blanked_and_nothing_else() {
    assert_eq!(
        blank_uuids("id = \"919fda7c-2bce-1e8f-a2a0-5c3dc801ab19\" and 919fda7c-2bce-1e8f"),
        "id = \"00000000-0000-0000-0000-000000000000\" and 919fda7c-2bce-1e8f"
    );
    assert_eq!(blank_uuids("╷ ok"), "╷ ok");
}

#[test]
fn junit_times_are_blanked() {
    assert_eq!(
        blank_times("<a time=\"0.5\" timestamp=\"2026-01-01T00:00:00Z\">x</a>"),
        "<a time=\"\" timestamp=\"\">x</a>"
    );
}
