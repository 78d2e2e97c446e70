//! The recorded cases under `tests/render`: each holds what Terraform
//! 1.11.4 printed for a small configuration (`expected.txt`, and
//! `expected.color.txt` without `-no-color`) and the plan as `show -json`
//! gave it; the plan is read back into terrace's model and rendered.

use super::*;
use crate::testutil::{load_schemas, lookup, plan_from_json, read_json};
use std::path::{Path, PathBuf};

pub(crate) fn case_dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/render");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("plan.json").is_file())
        .collect();
    dirs.sort();
    dirs
}

pub(crate) fn case_mode(dir: &Path) -> PlanMode {
    let args = std::fs::read_to_string(dir.join("args")).unwrap_or_default();
    if args.contains("-destroy") {
        PlanMode::Destroy
    } else if args.contains("-refresh-only") {
        PlanMode::RefreshOnly
    } else {
        PlanMode::Normal
    }
}

fn first_difference(got: &str, want: &str) -> String {
    for (i, (g, w)) in got.lines().zip(want.lines()).enumerate() {
        if g != w {
            return format!("line {}:\n  got:  {g:?}\n  want: {w:?}", i + 1);
        }
    }
    format!(
        "lengths differ: got {} lines, want {} lines (trailing: got {:?}, want {:?})",
        got.lines().count(),
        want.lines().count(),
        got.chars().rev().take(20).collect::<String>(),
        want.chars().rev().take(20).collect::<String>()
    )
}

#[test]
fn recorded_cases_render_as_terraform_does() {
    let mut failures = Vec::new();
    let dirs = case_dirs();
    assert!(!dirs.is_empty(), "no recorded cases");
    for dir in dirs {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        let schemas = load_schemas(&read_json(&dir.join("schemas.json")));
        let plan = plan_from_json(
            &read_json(&dir.join("plan.json")),
            case_mode(&dir),
            &schemas,
        );
        for (file, color) in [("expected.txt", false), ("expected.color.txt", true)] {
            // Recorded from terraform, whose messages name terraform.
            let want = terrace_testsupport::product::as_terrace(
                &std::fs::read_to_string(dir.join(file)).unwrap_or_default(),
            );
            let got = render_plan(&plan, &lookup(&schemas), &RenderOptions::new(color));
            if got != want {
                failures.push(format!("{name}/{file}: {}", first_difference(&got, &want)));
            }
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
fn word_wrap_matches_go_wordwrap() {
    let cases = [
        ("short", 78, "short"),
        ("aaa bbb ccc", 8, "aaa bbb\nccc"),
        (
            "  indented line stays as it is",
            8,
            "  indented line stays as it is",
        ),
        ("a\n\nb c", 4, "a\n\nb c"),
        ("averyveryverylongword x", 8, "averyveryverylongword\nx"),
    ];
    for (input, width, want) in cases {
        assert_eq!(word_wrap(input, width), want, "{input:?}");
    }
}

#[test]
fn apply_summary_and_outputs() {
    let plain = RenderOptions::new(false);
    assert_eq!(
        render_apply_summary(false, 1, 0, 0, 0, &plain),
        "\nApply complete! Resources: 1 added, 0 changed, 0 destroyed.\n"
    );
    assert_eq!(
        render_apply_summary(true, 0, 0, 3, 0, &plain),
        "\nDestroy complete! Resources: 3 destroyed.\n"
    );
    assert_eq!(
        render_apply_summary(false, 0, 1, 0, 2, &RenderOptions::new(true)),
        "\x1b[0m\x1b[1m\x1b[32m\nApply complete! Resources: 2 imported, 0 added, 1 changed, 0 destroyed.\n\x1b[0m"
    );
    let outputs = BTreeMap::from([
        ("s".to_string(), (Value::string("q"), true)),
        (
            "z".to_string(),
            (Value::tuple(vec![Value::int(1), Value::string("x")]), false),
        ),
    ]);
    assert_eq!(
        render_outputs(&outputs, &RenderOptions::new(true)),
        "\x1b[0m\x1b[1m\x1b[32m\nOutputs:\n\n\x1b[0ms = <sensitive>\nz = [\n  1,\n  \"x\",\n]\n"
    );
    assert_eq!(render_outputs(&BTreeMap::new(), &plain), "");
}

#[test]
fn plan_footers() {
    let rule = "─".repeat(77);
    assert_eq!(
        render_plan_footer(Some("x.plan"), &RenderOptions::new(true)),
        format!("\x1b[90m\n{rule}\x1b[0m\n\nSaved the plan to: x.plan\n\nTo perform exactly these actions, run the following command to apply:\n    terrace apply \"x.plan\"\n")
    );
    assert_eq!(
        render_plan_footer(None, &RenderOptions::new(false)),
        format!("\n{rule}\n\nNote: You didn't use the -out option to save this plan, so terrace can't\nguarantee to take exactly these actions if you run \"terrace apply\" now.\n")
    );
}

#[test]
fn each_item_text_is_the_part_of_the_plan_text_it_stands_for() {
    let mut items = 0;
    for dir in case_dirs() {
        let schemas = load_schemas(&read_json(&dir.join("schemas.json")));
        let plan = plan_from_json(
            &read_json(&dir.join("plan.json")),
            case_mode(&dir),
            &schemas,
        );
        let whole = render_plan(&plan, &lookup(&schemas), &RenderOptions::new(false));
        let texts = render_plan_items(&plan, &lookup(&schemas));
        for (index, text) in texts.changes.iter().chain(&texts.drift) {
            assert!(*index < plan.changes.len().max(plan.drift.len()));
            assert!(
                whole.contains(text.as_str()),
                "{}: {text:?} is not in\n{whole}",
                dir.display()
            );
            items += 1;
        }
        for (name, text) in &texts.outputs {
            assert!(text.contains(name.as_str()), "{text:?}");
            assert!(whole.contains(text.as_str()), "{}: {text:?}", dir.display());
            items += 1;
        }
        // Every change block of the whole text (a `#` comment line after
        // an empty line) is the start of an item.
        let firsts: Vec<&str> = texts
            .changes
            .iter()
            .chain(&texts.drift)
            .filter_map(|(_, t)| t.lines().next())
            .collect();
        let lines: Vec<&str> = whole.lines().collect();
        for pair in lines.windows(2) {
            let starts_block =
                pair[0].is_empty() && (pair[1].starts_with("  # ") || pair[1].starts_with(" # "));
            if starts_block {
                assert!(
                    firsts.contains(&pair[1]),
                    "{}: no item for {:?}",
                    dir.display(),
                    pair[1]
                );
            }
        }
    }
    assert!(items > 0, "no items rendered");
}

#[test]
fn a_plan_long_enough_to_render_on_several_threads_prints_its_changes_in_order() {
    let dir = case_dirs()
        .into_iter()
        .find(|d| d.ends_with("blocks_create"))
        .expect("the blocks_create case");
    let schemas = load_schemas(&read_json(&dir.join("schemas.json")));
    let mut plan = plan_from_json(
        &read_json(&dir.join("plan.json")),
        PlanMode::Normal,
        &schemas,
    );
    let template = plan.changes.clone();
    assert!(!template.is_empty());
    plan.changes.clear();
    for i in 0..1500 {
        for c in &template {
            let mut c = c.clone();
            c.addr.resource.key = InstanceKey::Int(i);
            c.prev_run_addr = c.addr.clone();
            plan.changes.push(c);
        }
    }
    let whole = render_plan(&plan, &lookup(&schemas), &RenderOptions::new(false));
    let texts = render_plan_items(&plan, &lookup(&schemas));
    assert_eq!(texts.changes.len(), plan.changes.len());
    // Every change's text, one after the other, in address order.
    let mut rest = whole.as_str();
    for (_, text) in &texts.changes {
        let at = rest
            .find(text.as_str())
            .unwrap_or_else(|| panic!("{text:?} is not where it belongs"));
        rest = &rest[at + text.len()..];
    }
    assert!(whole.contains(&format!("Plan: {} to add", plan.changes.len())));
}
