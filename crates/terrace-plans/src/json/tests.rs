//! The recorded cases: terrace's `show -json` documents against
//! Terraform's, byte for byte (the plan's `configuration`, which this
//! crate does not produce, cut out of Terraform's).

use super::*;
use crate::render::tests::{case_dirs, case_mode};
use crate::testutil::{load_schemas, lookup, plan_from_json, read_json, state_from_json};

/// The text of `doc` without its top-level `"configuration"` member.
fn without_configuration(doc: &str) -> String {
    let Some(start) = doc.find(",\"configuration\":") else {
        return doc.to_string();
    };
    let bytes = doc.as_bytes();
    let mut i = start + ",\"configuration\":".len();
    let mut depth = 0usize;
    let mut in_string = false;
    while i < bytes.len() {
        let c = bytes[i];
        if in_string {
            if c == b'\\' {
                i += 1;
            } else if c == b'"' {
                in_string = false;
            }
        } else if c == b'"' {
            in_string = true;
        } else if c == b'{' || c == b'[' {
            depth += 1;
        } else if c == b'}' || c == b']' {
            depth -= 1;
            if depth == 0 {
                return format!("{}{}", &doc[..start], &doc[i + 1..]);
            }
        }
        i += 1;
    }
    doc.to_string()
}

fn first_difference(got: &str, want: &str) -> String {
    let at = got
        .bytes()
        .zip(want.bytes())
        .position(|(a, b)| a != b)
        .unwrap_or(got.len().min(want.len()));
    let from = at.saturating_sub(80);
    format!(
        "at byte {at}:\n  got:  {}\n  want: {}",
        &got.get(from..(at + 80).min(got.len())).unwrap_or_default(),
        &want
            .get(from..(at + 80).min(want.len()))
            .unwrap_or_default()
    )
}

#[test]
fn recorded_plans_as_terraform_writes_them() {
    let mut failures = Vec::new();
    for dir in case_dirs() {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        let schemas = load_schemas(&read_json(&dir.join("schemas.json")));
        let raw = std::fs::read_to_string(dir.join("plan.json")).unwrap_or_default();
        let plan = plan_from_json(
            &read_json(&dir.join("plan.json")),
            case_mode(&dir),
            &schemas,
        );
        let opts = PlanJsonOptions {
            terraform_version: "1.11.4",
            configuration: None,
        };
        let look = lookup(&schemas);
        let result = plan_json(&plan, &look, &opts);
        match result {
            Ok(got) => {
                let want = without_configuration(raw.trim_end());
                if got != want {
                    failures.push(format!(
                        "{name}/plan.json {}",
                        first_difference(&got, &want)
                    ));
                }
            }
            Err(e) => failures.push(format!("{name}/plan.json: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn recorded_states_as_terraform_writes_them() {
    let mut failures = Vec::new();
    let mut seen = 0;
    for dir in case_dirs() {
        let Ok(raw) = std::fs::read_to_string(dir.join("state.json")) else {
            continue;
        };
        seen += 1;
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        let schemas = load_schemas(&read_json(&dir.join("schemas.json")));
        let state = state_from_json(&read_json(&dir.join("state.json")), &schemas);
        let look = lookup(&schemas);
        let result = state_json(Some(&state), &look);
        match result {
            Ok(got) if got == raw.trim_end() => {}
            Ok(got) => failures.push(format!(
                "{name}/state.json {}",
                first_difference(&got, raw.trim_end())
            )),
            Err(e) => failures.push(format!("{name}/state.json: {e}")),
        }
    }
    assert!(seen > 0, "no recorded states");
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn empty_state_is_just_the_version() {
    let schemas = crate::testutil::Schemas::new();
    assert_eq!(
        state_json(None, &lookup(&schemas)),
        Ok("{\"format_version\":\"1.0\"}".to_string())
    );
    let empty = State::new_with_lineage("x");
    assert_eq!(
        state_json(Some(&empty), &lookup(&schemas)),
        Ok("{\"format_version\":\"1.0\"}".to_string())
    );
}

#[test]
fn cutting_configuration() {
    assert_eq!(
        without_configuration(r#"{"a":1,"configuration":{"x":["}",{"y":"\""}]},"b":2}"#),
        r#"{"a":1,"b":2}"#
    );
}
