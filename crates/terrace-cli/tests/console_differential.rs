//! The differential console suite: every expression in
//! `tests/console/expressions.txt` is run through `terrace console` in
//! `tests/console/workdir`, and stdout, stderr and the exit status are
//! compared with what `terraform console -no-color` printed
//! (`tests/console/expected.txt`, recorded by
//! `scripts/record-console-expectations`).
//!
//! Every expression whose output differs must be listed, with its reason, in
//! `tests/console/known-differences.txt`; the test fails on an unlisted
//! difference, on a listed expression that now matches (so the list stays
//! true), and when fewer than 98% of the expressions match exactly.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

struct Expectation {
    expression: String,
    exit: i32,
    stdout: String,
    stderr: String,
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Reads the captured text of one stream: lines prefixed with `| `, ending
/// with a newline unless the recorder marked otherwise.
fn read_stream(lines: &mut std::iter::Peekable<std::str::Split<'_, char>>) -> String {
    let mut out = String::new();
    while let Some(line) = lines.peek() {
        if let Some(rest) =
            line.strip_prefix("| ")
                .or_else(|| if *line == "|" { Some("") } else { None })
        {
            out.push_str(rest);
            out.push('\n');
            lines.next();
        } else if *line == "\\ no newline at end" {
            out.pop();
            lines.next();
        } else {
            break;
        }
    }
    out
}

fn parse_expectations(text: &str) -> (Vec<String>, Vec<Expectation>) {
    let mut args = Vec::new();
    let mut out = Vec::new();
    // Split on \n only: recorded output may contain carriage returns.
    let mut lines = text.split('\n').peekable();
    while let Some(line) = lines.next() {
        if let Some(header) = line.strip_prefix("# recorded with: ") {
            if let Some((_, a)) = header.split_once("args: ") {
                args = a.split_whitespace().skip(2).map(String::from).collect();
            }
            continue;
        }
        let Some(expression) = line.strip_prefix(">>> ") else {
            continue;
        };
        let exit = lines
            .next()
            .and_then(|l| l.strip_prefix("exit: "))
            .and_then(|c| c.parse().ok())
            .unwrap_or(-1);
        assert_eq!(
            lines.next(),
            Some("stdout:"),
            "malformed record for {expression}"
        );
        let stdout = read_stream(&mut lines);
        assert_eq!(
            lines.next(),
            Some("stderr:"),
            "malformed record for {expression}"
        );
        let stderr = read_stream(&mut lines);
        out.push(Expectation {
            expression: expression.to_string(),
            exit,
            stdout,
            stderr,
        });
    }
    (args, out)
}

fn known_differences(root: &Path) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(root.join("tests/console/known-differences.txt"))
        .unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            l.split_once('\t')
                .map(|(e, r)| (e.to_string(), r.to_string()))
        })
        .collect()
}

struct Outcome {
    exit: i32,
    stdout: String,
    stderr: String,
}

fn run_terrace(workdir: &Path, args: &[String], expression: &str) -> Outcome {
    let mut child = Command::new(env!("CARGO_BIN_EXE_terrace"))
        .arg("console")
        .args(args)
        .current_dir(workdir)
        .env_remove("TF_WORKSPACE")
        // As recorded: a CLI configuration that reads as empty.
        .env("TF_CLI_CONFIG_FILE", "/dev/null")
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the terrace binary runs");
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(format!("{expression}\n").as_bytes());
    }
    let output = child.wait_with_output().expect("terrace console finishes");
    Outcome {
        exit: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

#[test]
fn console_matches_terraform() {
    let root = repo_root();
    let text = std::fs::read_to_string(root.join("tests/console/expected.txt"))
        .expect("expected.txt exists");
    let (args, expectations) = parse_expectations(&text);
    assert!(
        expectations.len() >= 300,
        "the corpus has {} expressions",
        expectations.len()
    );
    let workdir = root.join("tests/console/workdir");
    let known = known_differences(&root);

    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .min(4);
    let chunks: Vec<&[Expectation]> = expectations
        .chunks(expectations.len().div_ceil(threads))
        .collect();
    let results: Vec<(String, Option<String>)> = std::thread::scope(|s| {
        let handles: Vec<_> = chunks
            .iter()
            .map(|chunk| {
                let workdir = &workdir;
                let args = &args;
                s.spawn(move || {
                    chunk
                        .iter()
                        .map(|e| {
                            let got = run_terrace(workdir, args, &e.expression);
                            let mismatch = if got.exit != e.exit {
                                Some(format!(
                                    "exit {} (terraform {})\nstdout: {:?}\nstderr: {:?}",
                                    got.exit, e.exit, got.stdout, got.stderr
                                ))
                            } else if got.stdout != e.stdout {
                                Some(format!(
                                    "stdout {:?}\n terraform {:?}",
                                    got.stdout, e.stdout
                                ))
                            } else if got.stderr
                                // terraform's diagnostics name terraform.
                                != terrace_testsupport::product::as_terrace(&e.stderr)
                            {
                                Some(format!(
                                    "stderr {:?}\n terraform {:?}",
                                    got.stderr, e.stderr
                                ))
                            } else {
                                None
                            };
                            (e.expression.clone(), mismatch)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("worker thread"))
            .collect()
    });

    let total = results.len();
    let mut matched = 0;
    let mut unlisted = Vec::new();
    let mut stale = Vec::new();
    for (expression, mismatch) in &results {
        match (mismatch, known.contains_key(expression)) {
            (None, false) => matched += 1,
            (None, true) => {
                matched += 1;
                stale.push(expression.clone());
            }
            (Some(_), true) => {}
            (Some(why), false) => unlisted.push(format!(">>> {expression}\n{why}")),
        }
    }
    let percent = matched as f64 * 100.0 / total as f64;
    println!("console differential: {matched} of {total} identical to terraform ({percent:.2}%)");
    for u in &unlisted {
        println!("{u}\n");
    }
    assert!(
        unlisted.is_empty(),
        "{} differences are not listed in tests/console/known-differences.txt",
        unlisted.len()
    );
    assert!(stale.is_empty(), "listed as different but now identical (remove them from known-differences.txt): {stale:#?}");
    assert!(percent >= 98.0, "only {percent:.2}% identical");
}
