//! The formatter against `terraform fmt`, live: every native-syntax file of
//! the real-world modules in `../shared/realworld` (read in place), each
//! also in mis-formatted variants made here by deterministic mutations
//! (indentation, spaces and tabs around `=` and inside brackets, blank
//! lines, trailing comments, one-line blocks, heredocs, legacy
//! interpolation-only values, unquoted labels and quoted types), plus the
//! project's own fixtures in `tests/fmt/`. All of them are written to one
//! temporary directory, terraform formats it in one run, and terrace's
//! result must be byte-identical for every file (or, for a file that does
//! not parse, both must refuse it).
//!
//! The recorded expectations of the fixtures are checked without terraform
//! by `fmt_fixtures.rs`. `TERRACE_FMT_EXTRA_CORPUS=DIR` adds the native
//! files under DIR (say, a module checked out for the occasion) to the
//! corpus, mutations and all.

mod fmt_support;

use fmt_support::{fixture_inputs, mutations, terrace_fmt, FmtResult};
use std::path::{Path, PathBuf};
use std::process::Command;

fn native_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        if path.is_dir() {
            native_files(&path, out);
        } else if [".tf", ".tfvars", ".tftest.hcl"]
            .iter()
            .any(|ext| name.ends_with(ext))
        {
            out.push(path);
        }
    }
}

fn extension(name: &str) -> &'static str {
    if name.ends_with(".tfvars") {
        ".tfvars"
    } else if name.ends_with(".tftest.hcl") {
        ".tftest.hcl"
    } else {
        ".tf"
    }
}

#[test]
fn terrace_formats_real_modules_and_their_misformatted_variants_as_terraform_does() {
    if !terrace_testsupport::require_terraform() {
        return;
    }
    let Some(realworld) = terrace_testsupport::shared("realworld") else {
        return;
    };
    let mut sources = Vec::new();
    native_files(&realworld, &mut sources);
    let extra = std::env::var_os("TERRACE_FMT_EXTRA_CORPUS").map(PathBuf::from);
    if let Some(extra) = &extra {
        native_files(extra, &mut sources);
    }
    assert!(
        sources.len() > 100,
        "expected the real-world modules' files under {}",
        realworld.display()
    );

    // (name in the work directory, input text, where it came from)
    let mut corpus: Vec<(String, String, String)> = Vec::new();
    for (index, path) in sources.iter().enumerate() {
        let Ok(text) = std::fs::read_to_string(path) else {
            panic!("cannot read {}", path.display());
        };
        let origin = path
            .strip_prefix(&realworld)
            .or_else(|_| path.strip_prefix(extra.as_deref().unwrap_or(Path::new(""))))
            .unwrap_or(path)
            .display()
            .to_string();
        let ext = extension(&origin);
        for (variant, (mutated, how)) in mutations(index, &text).into_iter().enumerate() {
            corpus.push((
                format!("rw{index:04}_{variant}{ext}"),
                mutated,
                format!("{origin} ({how})"),
            ));
        }
    }
    for (name, text) in fixture_inputs() {
        corpus.push((
            format!("fixture_{name}.tf"),
            text,
            format!("fixture {name}"),
        ));
    }

    let work = std::env::temp_dir().join(format!("terrace-fmt-corpus-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).expect("create the work directory");
    for (name, text, _) in &corpus {
        std::fs::write(work.join(name), text).expect("write a corpus file");
    }
    let output = Command::new("terraform")
        .args(["fmt", "-no-color", "."])
        .current_dir(&work)
        .env("TF_CLI_CONFIG_FILE", "/dev/null")
        .env_remove("TF_CLI_ARGS")
        .env_remove("TF_CLI_ARGS_fmt")
        .env("CHECKPOINT_DISABLE", "1")
        .output()
        .expect("run terraform fmt");
    let listed = String::from_utf8_lossy(&output.stdout).into_owned();
    let errors = String::from_utf8_lossy(&output.stderr).into_owned();
    let listed: std::collections::BTreeSet<&str> = listed.lines().collect();

    let mut identical = 0;
    let mut refused_by_both = 0;
    let mut failures = Vec::new();
    for (name, input, origin) in &corpus {
        let terraform_text = std::fs::read_to_string(work.join(name)).unwrap_or_default();
        let terraform_refused = errors.contains(&format!("on {name} line"));
        match terrace_fmt(name, input) {
            FmtResult::Refused(summary) => {
                if terraform_refused {
                    refused_by_both += 1;
                } else {
                    failures.push(format!(
                        "{name} from {origin}: terrace refused it ({summary}), terraform formatted it"
                    ));
                }
            }
            FmtResult::Formatted(ours) => {
                if terraform_refused {
                    failures.push(format!(
                        "{name} from {origin}: terraform refused it, terrace formatted it"
                    ));
                } else if ours != terraform_text {
                    failures.push(format!(
                        "{name} from {origin}: output differs\n{}",
                        first_difference(&terraform_text, &ours)
                    ));
                } else if (ours != *input) != listed.contains(name.as_str()) {
                    failures.push(format!("{name} from {origin}: listed differently"));
                } else {
                    identical += 1;
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    let changed = listed.len();
    let _ = std::io::Write::write_all(
        &mut std::io::stderr(),
        format!(
            "fmt corpus: {} files ({} real-world originals), {identical} byte-identical, {refused_by_both} refused by both, {changed} changed by terraform\n",
            corpus.len(),
            sources.len()
        )
        .as_bytes(),
    );
    assert!(
        failures.is_empty(),
        "{} of {} files differ from terraform fmt:\n{}",
        failures.len(),
        corpus.len(),
        failures
            .iter()
            .take(8)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n\n")
    );
    // The mutations must mostly keep files parseable, or the comparison
    // would be of refusals.
    assert!(
        refused_by_both * 20 < corpus.len(),
        "{refused_by_both} of {} files did not parse",
        corpus.len()
    );
}

fn first_difference(expected: &str, actual: &str) -> String {
    let expected_lines: Vec<&str> = expected.split_inclusive('\n').collect();
    let actual_lines: Vec<&str> = actual.split_inclusive('\n').collect();
    let at = expected_lines
        .iter()
        .zip(&actual_lines)
        .position(|(a, b)| a != b)
        .unwrap_or(expected_lines.len().min(actual_lines.len()));
    let from = at.saturating_sub(3);
    let show = |lines: &[&str]| {
        lines
            .iter()
            .skip(from)
            .take(at - from + 4)
            .map(|l| format!("    {l:?}"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    format!(
        "  at line {}\n  terraform:\n{}\n  terrace:\n{}",
        at + 1,
        show(&expected_lines),
        show(&actual_lines)
    )
}
