//! Whole saved plans against Terraform 1.11.4's: each case under
//! `tests/show_json_plans/` applies `step1.tf` (when there is one), plans
//! `main.tf` with `-out` (and the arguments in `args`), and compares
//! `terrace show -json` with `expected.json` and `terrace show -no-color`
//! with `expected.txt`, both recorded from terraform by
//! `tests/show_json_plans/record.sh`. What differs between any two runs of
//! the same tool is left out of the comparison: the objects' random ids,
//! the plan's timestamp, and the order of `relevant_attributes`, which
//! terraform writes in no fixed order.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const CASES: [&str; 3] = ["outputs", "outputs_refresh_only", "data_reads"];

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/show_json_plans")
}

use terrace_testsupport::TempDir as Scratch;

/// Copies what a case's configurations share (its modules and data
/// files, not its root configurations or recordings) into `to`.
fn copy_case(from: &Path, to: &Path, top: bool) {
    for entry in std::fs::read_dir(from).expect("read case directory") {
        let entry = entry.expect("read case directory entry");
        let path = entry.path();
        let target = to.join(entry.file_name());
        let name = entry.file_name().to_string_lossy().into_owned();
        let own = matches!(
            name.as_str(),
            "expected.json" | "expected.txt" | "args" | "main.tf" | "step1.tf"
        );
        if path.is_dir() {
            std::fs::create_dir_all(&target).expect("create directory");
            copy_case(&path, &target, false);
        } else if !(top && own) {
            std::fs::copy(&path, &target).expect("copy case file");
        }
    }
}

fn terrace(dir: &Path, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_terrace"))
        .args(args)
        .current_dir(dir)
        .env("TF_CLI_CONFIG_FILE", "/dev/null")
        .env("CHECKPOINT_DISABLE", "1")
        .env_remove("TF_WORKSPACE")
        .env_remove("TF_DATA_DIR")
        .output()
        .unwrap_or_else(|e| panic!("run terrace: {e}"));
    assert!(
        out.status.success(),
        "terrace {args:?} failed in {}:\n{}{}",
        dir.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("output is UTF-8")
}

/// Whether `s` is a UUID as `terraform_data` makes them.
fn is_uuid(s: &str) -> bool {
    let groups: Vec<&str> = s.split('-').collect();
    groups.iter().map(|g| g.len()).eq([8, 4, 4, 4, 12])
        && groups
            .iter()
            .all(|g| g.chars().all(|c| c.is_ascii_hexdigit()))
}

/// `text` with every UUID replaced by `<uuid>`.
fn without_uuids(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while !rest.is_empty() {
        if rest.len() >= 36 && rest.is_char_boundary(36) && is_uuid(&rest[..36]) {
            out.push_str("<uuid>");
            rest = &rest[36..];
            continue;
        }
        let c = rest.chars().next().unwrap_or_default();
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// The document with what varies between runs taken out.
fn comparable(doc: &str) -> Value {
    let mut v: Value = serde_json::from_str(&without_uuids(doc))
        .unwrap_or_else(|e| panic!("show -json printed no JSON ({e}):\n{doc}"));
    if let Some(o) = v.as_object_mut() {
        o.remove("timestamp");
        if let Some(Value::Array(attrs)) = o.get_mut("relevant_attributes") {
            attrs.sort_by_key(|a| a.to_string());
        }
    }
    v
}

/// Where two documents first differ, as a path and both values.
fn first_difference(path: &str, want: &Value, got: &Value) -> Option<String> {
    match (want, got) {
        (Value::Object(a), Value::Object(b)) => {
            let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter().find_map(|k| match (a.get(k), b.get(k)) {
                (Some(x), Some(y)) => first_difference(&format!("{path}.{k}"), x, y),
                (x, y) => Some(format!("{path}.{k}: terraform {x:?}, terrace {y:?}")),
            })
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .enumerate()
            .find_map(|(i, (x, y))| first_difference(&format!("{path}[{i}]"), x, y)),
        _ if want == got => None,
        _ => Some(format!("{path}: terraform {want}, terrace {got}")),
    }
}

#[test]
fn saved_plans_match_recorded_terraform_plans() {
    let mut failures = Vec::new();
    for case in CASES {
        let dir = cases_dir().join(case);
        let scratch = Scratch::new(case);
        copy_case(&dir, scratch.path(), true);
        if dir.join("step1.tf").is_file() {
            std::fs::copy(dir.join("step1.tf"), scratch.path().join("main.tf"))
                .expect("copy step1.tf");
            terrace(scratch.path(), &["apply", "-auto-approve", "-no-color"]);
        }
        std::fs::copy(dir.join("main.tf"), scratch.path().join("main.tf")).expect("copy main.tf");
        let extra = std::fs::read_to_string(dir.join("args")).unwrap_or_default();
        let mut args = vec!["plan", "-no-color", "-out=plan.out"];
        args.extend(extra.split_whitespace());
        terrace(scratch.path(), &args);

        let want_json = std::fs::read_to_string(dir.join("expected.json")).expect("expected.json");
        let got_json = terrace(scratch.path(), &["show", "-json", "plan.out"]);
        if let Some(d) = first_difference("$", &comparable(&want_json), &comparable(&got_json)) {
            failures.push(format!("{case}: show -json differs at {d}"));
        }

        // Recorded from terraform, whose messages name terraform.
        let want_text = terrace_testsupport::product::as_terrace(
            &std::fs::read_to_string(dir.join("expected.txt")).expect("expected.txt"),
        );
        let got_text = terrace(scratch.path(), &["show", "-no-color", "plan.out"]);
        if without_uuids(&got_text) != without_uuids(&want_text) {
            failures.push(format!(
                "{case}: show differs\n--- terraform\n{}\n--- terrace\n{}",
                without_uuids(&want_text),
                without_uuids(&got_text)
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

#[test]
fn uuids_are_found_anywhere_in_text() {
    assert_eq!(
        without_uuids("id=\"37491ab6-050b-f701-5392-19504a6e8458\"]"),
        "id=\"<uuid>\"]"
    );
    assert_eq!(without_uuids("é 37491ab6-050b"), "é 37491ab6-050b");
}
