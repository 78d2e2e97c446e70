//! The `configuration` object of `terrace show -json PLAN` against
//! Terraform 1.11.4's, byte for byte: each case under `tests/show_json/`
//! is planned with `terrace plan -out` and shown, and the object is
//! compared with `CASE/configuration.json`, recorded from terraform by
//! `tests/show_json/record.sh`. Where terraform runs here, the case is also
//! planned with it live and the two outputs compared directly.

use std::path::{Path, PathBuf};
use std::process::Command;

const CASES: [&str; 4] = ["basic", "refs", "modules", "misc"];

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/show_json")
}

use terrace_testsupport::TempDir as Scratch;

/// Copies a case's configuration (not its recorded output) into `to`.
fn copy_case(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).expect("read case directory") {
        let entry = entry.expect("read case directory entry");
        let path = entry.path();
        let target = to.join(entry.file_name());
        if path.is_dir() {
            std::fs::create_dir_all(&target).expect("create directory");
            copy_case(&path, &target);
        } else if entry.file_name() != "configuration.json" {
            std::fs::copy(&path, &target).expect("copy case file");
        }
    }
}

fn run(program: &str, dir: &Path, args: &[&str]) -> String {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("TF_CLI_CONFIG_FILE", "/dev/null")
        .env("CHECKPOINT_DISABLE", "1")
        .env_remove("TF_WORKSPACE")
        .env_remove("TF_DATA_DIR")
        .output()
        .unwrap_or_else(|e| panic!("run {program}: {e}"));
    assert!(
        out.status.success(),
        "{program} {args:?} failed in {}:\n{}{}",
        dir.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("output is UTF-8")
}

/// The exact text of the top-level `configuration` value of a compact
/// JSON document, found by scanning (re-encoding could change numbers
/// and escapes, which are part of what is compared).
fn configuration_text(doc: &str) -> Option<&str> {
    let key = "\"configuration\":";
    let bytes = doc.as_bytes();
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
        } else if depth == 1 && doc[i..].starts_with(key) {
            let start = i + key.len();
            return value_end(&doc[start..]).map(|len| &doc[start..start + len]);
        } else {
            match b {
                b'"' => in_string = true,
                b'{' | b'[' => depth += 1,
                b'}' | b']' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        i += 1;
    }
    None
}

/// The length of the object or array `text` starts with.
fn value_end(text: &str) -> Option<usize> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, b) in text.bytes().enumerate() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// The `configuration` text of `show -json` of a plan of `case` made by
/// `program` (`init` first for terraform).
fn planned_configuration(program: &str, case: &str) -> String {
    let scratch = Scratch::new(case);
    copy_case(&cases_dir().join(case), scratch.path());
    if program == "terraform" {
        run(program, scratch.path(), &["init", "-no-color"]);
    }
    run(
        program,
        scratch.path(),
        &["plan", "-no-color", "-out=plan.out"],
    );
    let doc = run(program, scratch.path(), &["show", "-json", "plan.out"]);
    serde_json::from_str::<serde_json::Value>(&doc)
        .unwrap_or_else(|e| panic!("{program} show -json is not JSON ({e}):\n{doc}"));
    configuration_text(doc.trim_end())
        .unwrap_or_else(|| panic!("no configuration object in {program}'s document:\n{doc}"))
        .to_string()
}

#[test]
fn configuration_matches_recorded_terraform_output() {
    for case in CASES {
        let recorded = std::fs::read_to_string(cases_dir().join(case).join("configuration.json"))
            .expect("read recorded configuration");
        let got = planned_configuration(env!("CARGO_BIN_EXE_terrace"), case);
        assert_eq!(
            got,
            recorded.trim_end(),
            "case {case}: terrace's configuration object differs from terraform's"
        );
    }
}

#[test]
fn configuration_matches_live_terraform() {
    // Without terraform the recorded outputs are still compared, by the
    // test above.
    if !terrace_testsupport::require_terraform() {
        return;
    }
    for case in CASES {
        let want = planned_configuration("terraform", case);
        let got = planned_configuration(env!("CARGO_BIN_EXE_terrace"), case);
        assert_eq!(got, want, "case {case}: differs from live terraform");
    }
}

#[test]
fn configuration_text_is_found_at_the_top_level_only() {
    let doc =
        r#"{"a":{"configuration":1},"s":"\"configuration\":","configuration":{"x":["}"]},"z":2}"#;
    assert_eq!(configuration_text(doc), Some(r#"{"x":["}"]}"#));
    assert_eq!(configuration_text(r#"{"a":{"configuration":{}}}"#), None);
}
