//! Scenario tests for the provider rules (inheritance, `providers` maps,
//! aliases, provider iteration): each directory
//! under `tests/provider_rules/` is a configuration (a root module, its
//! child modules as local paths, maybe test files) with an `expected`
//! file listing exactly the diagnostics `terrace validate` must report for
//! it before any provider is involved:
//!
//! ```text
//! # comment
//! error main.tf:3,14-25: Invalid resource provider configuration
//! warning child/main.tf:1,1-15: Redundant empty provider block
//! error -: Provider configuration not present       (no source range)
//! no diagnostics
//! requires registry.terraform.io/hashicorp/aws      (all of them, in order)
//! instances aws.by_region: eu, us                   (a root provider's keys)
//! ```
//!
//! Diagnostics are compared as multisets, both ways. Set `TERRACE_BLESS=1`
//! to print what each case produces instead of failing (the expectations
//! are written by hand from the rules, then checked against this output).

use std::path::{Path, PathBuf};
use terrace_config::loader::{LoadOptions, LocalSourceBase};
use terrace_config::provider_resolution::resolve_resource_providers;
use terrace_config::testfile::DEFAULT_TEST_DIRECTORY;
use terrace_config::validation::load_and_validate;
use terrace_syntax::diagnostic::has_errors;
use terrace_syntax::Diagnostic;

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/provider_rules")
}

fn case_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(cases_dir())
        .map(|it| {
            it.filter_map(|e| e.ok())
                .filter(|e| e.path().is_dir())
                .filter_map(|e| e.file_name().into_string().ok())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

fn diag_line(d: &Diagnostic, prefix: &str) -> String {
    let sev = if d.is_error() { "error" } else { "warning" };
    let range = match &d.subject {
        Some(s) => {
            let mut s = s.clone();
            if let Some(rest) = s.filename.strip_prefix(prefix) {
                s.filename = rest.to_string();
            }
            s.to_string()
        }
        None => "-".to_string(),
    };
    format!("{sev} {range}: {}", d.summary)
}

/// What one case produces, in the `expected` file's form.
fn run_case(name: &str) -> Vec<String> {
    let dir = cases_dir().join(name);
    let options = LoadOptions {
        use_module_manifest: false,
        local_source_base: LocalSourceBase::CallingModule,
        ..LoadOptions::default()
    };
    let validated = load_and_validate(&dir, &options, Some(DEFAULT_TEST_DIRECTORY));
    let mut diags = validated.diagnostics.clone();
    if !has_errors(&diags) {
        let (_, more) = resolve_resource_providers(&validated.config);
        diags.extend(more);
    }
    let prefix = format!("{}/", dir.display());
    let mut lines: Vec<String> = diags.iter().map(|d| diag_line(d, &prefix)).collect();
    lines.sort();
    if lines.is_empty() {
        lines.push("no diagnostics".into());
    }
    for p in validated.requirements.provider_types() {
        lines.push(format!("requires {p}"));
    }
    for (key, pc) in &validated.config.module.provider_configs {
        if let Some(instances) = &pc.instances {
            let keys: Vec<&str> = instances.keys().map(String::as_str).collect();
            lines.push(format!("instances {key}: {}", keys.join(", ")));
        }
    }
    lines
}

fn expected(name: &str) -> Option<Vec<String>> {
    let text = std::fs::read_to_string(cases_dir().join(name).join("expected")).ok()?;
    Some(
        text.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(str::to_string)
            .collect(),
    )
}

/// The produced lines restricted to the kinds the expectation states:
/// `requires` and `instances` lines are compared only when the case lists
/// some.
fn comparable(got: &[String], want: &[String]) -> Vec<String> {
    let wants = |prefix: &str| want.iter().any(|l| l.starts_with(prefix));
    let mut out: Vec<String> = got
        .iter()
        .filter(|l| {
            (!l.starts_with("requires ") || wants("requires "))
                && (!l.starts_with("instances ") || wants("instances "))
        })
        .cloned()
        .collect();
    out.sort();
    out
}

#[test]
fn provider_rule_scenarios() {
    let bless = std::env::var_os("TERRACE_BLESS").is_some();
    let names = case_names();
    assert!(names.len() >= 40, "only {} scenarios", names.len());
    let mut failures = Vec::new();
    for name in &names {
        let got = run_case(name);
        if bless {
            println!("== {name}\n{}", got.join("\n"));
            continue;
        }
        let Some(mut want) = expected(name) else {
            failures.push(format!("{name}: no expected file"));
            continue;
        };
        want.sort();
        let got = comparable(&got, &want);
        if got != want {
            failures.push(format!(
                "{name}:\n  want:\n    {}\n  got:\n    {}",
                want.join("\n    "),
                got.join("\n    ")
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}
