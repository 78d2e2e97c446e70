//! The real-world differential suite (see `realworld_support`): the
//! examples of ten terraform-aws-modules modules, run by terraform and by
//! terrace against moto and compared step by step. CI runs a small
//! subset; `TERRACE_REALWORLD=all` (or `scripts/realworld`) runs every
//! case.

mod engine_support;
mod realworld_support;

use engine_support::{have_aws_and_moto, have_terraform, missing_tool};
use realworld_support::{known, prepare, report, run_all, selected, Outcome};

#[test]
fn realworld_examples_behave_as_under_terraform() {
    if !have_terraform() || !have_aws_and_moto() {
        return;
    }
    let root = realworld_support::realworld_root();
    if !root.join("SOURCES.txt").is_file() {
        missing_tool(&format!(
            "the real-world modules are not at {} (the shared directory's realworld/, or TERRACE_REALWORLD_DIR)",
            root.display()
        ));
        return;
    }
    let examples = selected(&prepare::discover(&root));
    let results = run_all(&examples, known::ENTRIES);
    let text = report(&results);
    realworld_support::progress(&format!("report:\n{text}"));
    if let Ok(path) = std::env::var("TERRACE_REALWORLD_REPORT") {
        std::fs::write(&path, &text).unwrap_or_else(|e| panic!("writing {path}: {e}"));
    }
    let failures: Vec<String> = results.iter().flat_map(|r| r.failures()).collect();
    assert!(
        failures.is_empty(),
        "{} step(s) diverge from terraform:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    // The CI subset must run in full: a case left out or a step not run
    // there would make CI pass without checking what it claims to.
    if std::env::var("TERRACE_REALWORLD")
        .unwrap_or_default()
        .trim()
        .is_empty()
    {
        for case in &results {
            assert!(
                case.left_out.is_none(),
                "{} was left out: {:?}",
                case.id,
                case.left_out
            );
            // A known divergence (listed, or the check-results gap, which
            // is compared only once everything else is equal) is allowed.
            for step in &case.steps {
                assert!(
                    matches!(
                        step.outcome,
                        Outcome::Pass | Outcome::PassNote(_) | Outcome::Known(..)
                    ),
                    "{} {}: {:?}",
                    case.id,
                    step.step.name(),
                    step.outcome
                );
            }
        }
    }
}
