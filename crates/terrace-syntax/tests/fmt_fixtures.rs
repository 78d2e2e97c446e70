//! The formatter against terraform's recorded results for the fixtures in
//! `tests/fmt/`: `NAME.in` must become exactly `NAME.out`, or be refused
//! when terraform refused it (`NAME.refused`). Recorded by
//! `scripts/record-fmt-fixtures`; no terraform needed here.

mod fmt_support;

use fmt_support::{fixture_inputs, fixtures_dir, terrace_fmt, FmtResult};

#[test]
fn terrace_formats_every_fixture_as_terraform_recorded() {
    let fixtures = fixture_inputs();
    assert!(
        fixtures.len() >= 10,
        "fixtures missing from {}",
        fixtures_dir().display()
    );
    let mut failures = Vec::new();
    for (name, input) in &fixtures {
        let out = fixtures_dir().join(format!("{name}.out"));
        let refused = fixtures_dir().join(format!("{name}.refused"));
        let ours = terrace_fmt(&format!("{name}.tf"), input);
        match (std::fs::read_to_string(&out), refused.exists(), ours) {
            (Ok(expected), false, FmtResult::Formatted(ours)) => {
                if ours != expected {
                    failures.push(format!(
                        "{name}: terraform recorded\n{expected:?}\nterrace wrote\n{ours:?}"
                    ));
                }
            }
            (Err(_), true, FmtResult::Refused(_)) => {}
            (Ok(_), false, FmtResult::Refused(summary)) => {
                failures.push(format!("{name}: terrace refused it ({summary}); terraform formatted it"))
            }
            (Err(_), true, FmtResult::Formatted(_)) => {
                failures.push(format!("{name}: terraform refused it; terrace formatted it"))
            }
            _ => failures.push(format!(
                "{name}: needs exactly one of {name}.out and {name}.refused (scripts/record-fmt-fixtures)"
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
