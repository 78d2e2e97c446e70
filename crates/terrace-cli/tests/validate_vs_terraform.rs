//! `terrace validate` against `terraform validate`: every case directory
//! under `tests/validate/` holds a configuration (`config/`) and what
//! terraform 1.11.4 printed for it (`expected.json` for `-json`,
//! `expected.no-color.txt` and `expected.color.txt` with the exit status
//! and both streams), recorded by `scripts/record-validate-expectations`.
//! terrace must print the same bytes, after terraform's product name is
//! swapped for terrace's where a message names the product.

use std::path::{Path, PathBuf};
use std::process::Command;
use terrace_testsupport::recording;

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/validate")
}

/// terraform's text as terrace prints it (terrace's name where terraform
/// names itself).
fn normalize(text: &str) -> String {
    terrace_testsupport::product::as_terrace(text)
}

fn terrace(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_terrace"))
        .arg("validate")
        .args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .env_remove("TF_DATA_DIR")
        // As recorded: a CLI configuration with nothing in it.
        .env("TF_CLI_CONFIG_FILE", "/dev/null")
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

/// The same bytes; or, when the order of the diagnostics is all that
/// differs, the same diagnostics: terraform's concurrent walk lists them
/// in the order it happens to meet them, terrace's in source order.
fn same_document(got: &str, want: &str) -> bool {
    if got == want {
        return true;
    }
    let sorted = |text: &str| -> Option<serde_json::Value> {
        let mut doc: serde_json::Value = serde_json::from_str(text).ok()?;
        if let Some(diags) = doc
            .get_mut("diagnostics")
            .and_then(serde_json::Value::as_array_mut)
        {
            diags.sort_by_key(|d| d.to_string());
        }
        Some(doc)
    };
    match (sorted(got), sorted(want)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
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

#[test]
fn validate_matches_terraform() {
    let names = case_names();
    assert!(names.len() >= 10, "only {} cases", names.len());
    let mut failures = Vec::new();
    for name in &names {
        let case = cases_dir().join(name);
        let config = case.join("config");

        let want_json = std::fs::read_to_string(case.join("expected.json")).unwrap_or_default();
        let (code, out, err) = terrace(&config, &["-json"]);
        let want_code = i32::from(want_json.contains("\"valid\": false"));
        if !same_document(&out, &normalize(&want_json)) || !err.is_empty() || code != want_code {
            failures.push(format!(
                "{name} -json: exit {code} (want {want_code})\n--- terraform\n{}\n--- terrace\n{out}{err}",
                normalize(&want_json)
            ));
        }

        for (file, args) in [
            ("expected.no-color.txt", &["-no-color"][..]),
            ("expected.color.txt", &[][..]),
        ] {
            let Some(recorded) = recording::read(&case.join(file)) else {
                failures.push(format!("{name}: unreadable {file}"));
                continue;
            };
            let got = terrace(&config, args);
            let want = (
                recorded.exit,
                normalize(&recorded.stdout),
                normalize(&recorded.stderr),
            );
            if got != want {
                failures.push(format!(
                    "{name} {args:?}:\n--- terraform (exit {})\n{}{}\n--- terrace (exit {})\n{}{}",
                    want.0, want.1, want.2, got.0, got.1, got.2
                ));
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

/// Beyond terraform: a `for_each` set whose elements can never be strings
/// (a `set(number)` variable, its value not known while validating) is
/// refused by `validate` already, where terraform 1.11 finds it only when
/// planning with a value.
#[test]
fn validate_refuses_a_set_that_can_never_hold_instance_keys() {
    let dir = std::env::temp_dir().join(format!("terrace-validate-set-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(
        dir.join("main.tf"),
        "variable \"numbers\" {\n  type = set(number)\n}\n\nvariable \"names\" {\n  type = set(string)\n}\n\nresource \"terraform_data\" \"by_number\" {\n  for_each = var.numbers\n}\n\nresource \"terraform_data\" \"by_name\" {\n  for_each = var.names\n}\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let (code, out, err) = terrace(&dir, &["-no-color"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("Error: Invalid for_each argument"), "{err}");
    assert!(
        err.contains("\"for_each\" supports sets\nof strings, but you have provided a set containing type number."),
        "{err}"
    );
    assert!(err.contains("var.numbers is a set of number"), "{err}");
    assert_eq!(
        err.matches("Error:").count(),
        1,
        "a set of strings is fine\n{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
