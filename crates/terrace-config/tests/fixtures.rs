//! Data-driven loader tests: every directory under `tests/fixtures/` is a
//! root module (with child modules in subdirectories), loaded with
//! `load_config`. Its `expected.txt` lists, exactly and in order, the
//! diagnostics (`error FILE:RANGE: Summary; Detail`, newlines in details as
//! `\n`) followed by facts about the loaded tree (`fact: ...`: modules
//! loaded, provider instances from static evaluation, provider references).
//!
//! An optional `options.txt` sets load options, one per line:
//! `var NAME=TEXT` (a `-var` value), `missing-variables=error`,
//! `workspace=NAME`.
//!
//! `UPDATE_EXPECT=1 cargo test -p terrace-config --test fixtures` rewrites
//! the expected files; review the diff before keeping it.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use terrace_config::input_variables::InputValues;
use terrace_config::loader::{load_config, Config, LoadOptions};
use terrace_config::static_eval::MissingRootVariable;
use terrace_syntax::Diagnostic;

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn options_for(dir: &Path) -> LoadOptions {
    let mut options = LoadOptions::default();
    let mut vars = Vec::new();
    let text = std::fs::read_to_string(dir.join("options.txt")).unwrap_or_default();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if let Some(assignment) = line.strip_prefix("var ") {
            if let Some((name, value)) = assignment.split_once('=') {
                vars.push((name.to_string(), value.to_string()));
            }
        } else if line == "missing-variables=error" {
            options.missing_root_variable = MissingRootVariable::Error;
        } else if let Some(ws) = line.strip_prefix("workspace=") {
            options.workspace = ws.to_string();
        } else {
            panic!("{}: unknown option {line:?}", dir.display());
        }
    }
    options.input_values = Arc::new(InputValues::from_text(vars));
    options
}

fn render_diagnostic(d: &Diagnostic, prefix: &str) -> String {
    let severity = if d.is_error() { "error" } else { "warning" };
    let subject = d
        .subject
        .as_ref()
        .map(|s| s.to_string().replace(prefix, ""))
        .unwrap_or_else(|| "<nil>".into());
    let detail = d.detail.replace(prefix, "").replace('\n', "\\n");
    format!("{severity} {subject}: {}; {detail}", d.summary)
}

fn facts(config: &Config, out: &mut Vec<String>) {
    config.deep_each(&mut |c| {
        let here = if c.path.is_empty() {
            "root".to_string()
        } else {
            c.path_string()
        };
        if !c.path.is_empty() {
            out.push(format!("fact: module {here} loaded"));
        }
        for p in c.module.provider_configs.values() {
            if let Some(instances) = &p.instances {
                let keys: Vec<&str> = instances.keys().map(String::as_str).collect();
                out.push(format!(
                    "fact: {here} provider {} instances [{}]",
                    p.module_unique_key(),
                    keys.join(", ")
                ));
            }
        }
        for r in c.module.all_resources() {
            if let Some(p) = &r.provider_config_ref {
                let key = p
                    .key_expression
                    .as_ref()
                    .map(|k| format!(" key {}", k.range()))
                    .unwrap_or_default();
                out.push(format!(
                    "fact: {here} {} uses {}{key}",
                    r.address(),
                    p.config_key()
                ));
            }
        }
        for call in c.module.module_calls.values() {
            for passed in &call.providers {
                let key = passed
                    .in_parent
                    .key_expression
                    .as_ref()
                    .map(|k| format!(" key {}", k.range()))
                    .unwrap_or_default();
                out.push(format!(
                    "fact: {here} module.{} gets {} = {}{key}",
                    call.name,
                    passed.in_child.config_key(),
                    passed.in_parent.config_key()
                ));
            }
        }
    });
}

fn run_case(dir: &Path) -> String {
    let (config, diags) = load_config(dir, &options_for(dir));
    let prefix = format!("{}/", dir.to_string_lossy());
    let bare = dir.to_string_lossy().into_owned();
    let mut lines: Vec<String> = diags
        .iter()
        .map(|d| render_diagnostic(d, &prefix).replace(&bare, "."))
        .collect();
    let mut fact_lines = Vec::new();
    facts(&config, &mut fact_lines);
    lines.extend(fact_lines.into_iter().map(|l| l.replace(&prefix, "")));
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

#[test]
fn loader_fixtures() {
    let update = std::env::var_os("UPDATE_EXPECT").is_some();
    let mut cases: Vec<PathBuf> = std::fs::read_dir(fixtures_dir())
        .map(|it| {
            it.filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    cases.sort();
    assert!(cases.len() >= 40, "only {} fixture cases", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let got = run_case(case);
        let expected_path = case.join("expected.txt");
        if update {
            if let Err(e) = std::fs::write(&expected_path, &got) {
                failures.push(format!("{}: cannot write: {e}", case.display()));
            }
            continue;
        }
        let want = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if want != got {
            failures.push(format!(
                "{}:\n--- want\n{want}--- got\n{got}",
                case.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default()
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}
