//! The `-json` UI of plan, apply, destroy and refresh, side by side with
//! terraform: the same steps in two directories, the same stream lines
//! once what differs from run to run is set aside (timestamps, elapsed
//! times, generated ids, the product's own version line) and lines that
//! concurrent work may emit in any order are put in a fixed one.

mod engine_support;

use engine_support::{have_terraform, Overrides, Run, Work};
use serde_json::Value as Json;

fn work(name: &str) -> Work {
    Work::new(
        name,
        Overrides {
            bundled: false,
            aws: false,
        },
    )
}

/// `8af41b77-af20-f5fc-dedf-03eef1b193af` → `<uuid>`.
fn mask_uuids(text: &str) -> String {
    let bytes = text.as_bytes();
    let shape = |at: usize| -> bool {
        if at + 36 > bytes.len() {
            return false;
        }
        bytes[at..at + 36].iter().enumerate().all(|(i, b)| {
            if matches!(i, 8 | 13 | 18 | 23) {
                *b == b'-'
            } else {
                b.is_ascii_hexdigit()
            }
        })
    };
    let mut out = String::new();
    let mut i = 0;
    while i < bytes.len() {
        if shape(i) {
            out.push_str("<uuid>");
            i += 36;
        } else {
            let c = text[i..].chars().next().unwrap_or(' ');
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// `after 3s` → `after Ns`, `[10s elapsed]` stays (progress lines are not
/// produced by these short steps).
fn mask_elapsed(text: &str) -> String {
    let mut out = text.to_string();
    for word in ["complete after ", "errored after "] {
        let mut from = 0;
        while let Some(found) = out[from..].find(word) {
            let start = from + found + word.len();
            let digits = out[start..]
                .find(|c: char| !c.is_ascii_digit() && c != 'm' && c != 'h')
                .unwrap_or(0);
            if out[start + digits..].starts_with('s') {
                out.replace_range(start..start + digits, "N");
            }
            from = start;
        }
    }
    out
}

fn normalise_value(value: &mut Json) {
    match value {
        // Each tool names itself in its messages.
        Json::String(s) => {
            *s = mask_elapsed(&mask_uuids(s))
                .replace("Terraform", "terrace")
                .replace("terraform ", "terrace ")
        }
        Json::Array(items) => items.iter_mut().for_each(normalise_value),
        Json::Object(fields) => {
            if fields.contains_key("elapsed_seconds") {
                fields.insert("elapsed_seconds".into(), Json::from(0));
            }
            fields.values_mut().for_each(normalise_value);
        }
        _ => {}
    }
}

/// Lines whose relative order depends on scheduling: hooks of different
/// resources, planned changes and drift (terraform lists them in the
/// order its walk finished them), diagnostics.
fn order_group(line: &Json) -> Option<&'static str> {
    match line["type"].as_str()? {
        "apply_start" | "apply_progress" | "apply_complete" | "apply_errored"
        | "provision_start" | "provision_progress" | "provision_complete" | "provision_errored"
        | "refresh_start" | "refresh_complete" => Some("hook"),
        "planned_change" => Some("planned"),
        "resource_drift" => Some("drift"),
        "diagnostic" => Some("diagnostic"),
        // terraform finds and installs providers in its map order, which
        // differs from run to run.
        "log" if provider_installation_line(line["@message"].as_str()?) => {
            Some("provider installation")
        }
        _ => None,
    }
}

fn provider_installation_line(message: &str) -> bool {
    [
        ": Reusing previous version",
        ": Finding latest version",
        "Finding matching versions for provider",
        "Installing provider version",
        "Installed provider version",
        ": Using previously-installed",
        ": Using from the shared cache",
    ]
    .iter()
    .any(|pattern| message.contains(pattern))
}

/// The stream of one run, comparable across tools and runs.
fn normalised_stream(run: &Run) -> Vec<String> {
    let mut lines: Vec<Json> = Vec::new();
    for text in run.stdout.lines().filter(|l| !l.trim().is_empty()) {
        let mut line: Json = serde_json::from_str(text)
            .unwrap_or_else(|e| panic!("not a JSON line ({e}): {text}\n{}", run.output()));
        let fields = line
            .as_object_mut()
            .unwrap_or_else(|| panic!("not an object: {text}"));
        for key in ["@level", "@message", "@module", "@timestamp", "type"] {
            assert!(fields.contains_key(key), "no {key} in {text}");
        }
        fields.remove("@timestamp");
        if fields.get("type") == Some(&Json::from("version")) {
            // Each tool names itself; the release it follows and the
            // format version must agree.
            fields.remove("@message");
        }
        normalise_value(&mut line);
        lines.push(line);
    }
    // Stable sort within each run of lines of one ordering group: hooks by
    // resource address (each resource's own lines keep their order),
    // other groups by their whole text.
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let group = order_group(&lines[i]);
        let mut j = i + 1;
        while j < lines.len() && group.is_some() && order_group(&lines[j]) == group {
            j += 1;
        }
        let mut chunk: Vec<&Json> = lines[i..j].iter().collect();
        match group {
            Some("hook") => chunk.sort_by_key(|l| {
                l["hook"]["resource"]["addr"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string()
            }),
            Some(_) => chunk.sort_by_key(|l| l.to_string()),
            None => {}
        }
        out.extend(chunk.into_iter().map(|l| l.to_string()));
        i = j;
    }
    out
}

/// One step of a scenario: what to write first, the arguments, the exit
/// status both must end with.
struct Step {
    files: &'static [(&'static str, &'static str)],
    args: &'static [&'static str],
    code: i32,
}

const fn step(
    files: &'static [(&'static str, &'static str)],
    args: &'static [&'static str],
    code: i32,
) -> Step {
    Step { files, args, code }
}

/// Runs `steps` with terrace (always, checking exit statuses and that the
/// stream is well formed) and with terraform where it runs here, and
/// compares each step's normalised stream.
fn compare(name: &str, steps: &[Step]) {
    compare_in(work, name, steps)
}

/// [`compare`] in working directories made by `make`.
fn compare_in(make: fn(&str) -> Work, name: &str, steps: &[Step]) {
    let ours = make(&format!("{name}-terrace"));
    let theirs = have_terraform().then(|| make(&format!("{name}-terraform")));
    for (n, step) in steps.iter().enumerate() {
        for (file, text) in step.files {
            ours.write(file, text);
            if let Some(w) = &theirs {
                w.write(file, text);
            }
        }
        let mine = ours.terrace(step.args);
        assert_eq!(
            mine.code,
            Some(step.code),
            "terrace {:?} (step {n})\n{}",
            step.args,
            mine.output()
        );
        let json = step.args.contains(&"-json");
        let mine_lines = if json {
            normalised_stream(&mine)
        } else {
            Vec::new()
        };
        if json {
            // Go's encoder escapes these inside strings; they never
            // appear as they are.
            assert!(
                !mine.stdout.contains(['<', '>', '&']),
                "HTML characters unescaped\n{}",
                mine.output()
            );
            assert!(
                mine_lines
                    .first()
                    .is_some_and(|l| l.contains("\"type\":\"version\"")),
                "the stream starts with the version line\n{}",
                mine.output()
            );
        }
        let Some(w) = &theirs else { continue };
        let reference = w.terraform(step.args);
        assert_eq!(
            reference.code,
            Some(step.code),
            "terraform {:?} (step {n})\n{}",
            step.args,
            reference.output()
        );
        if !json {
            continue;
        }
        let expected = normalised_stream(&reference);
        assert_eq!(
            mine_lines.join("\n"),
            expected.join("\n"),
            "step {n}: {:?}\n--- terrace\n{}\n--- terraform\n{}",
            step.args,
            mine.output(),
            reference.output()
        );
    }
}

const LIFECYCLE: &str = r#"
variable "v" {
  default = "a"
}

resource "terraform_data" "a" {
  input = var.v
}

resource "terraform_data" "b" {
  input = "x"
  lifecycle {
    replace_triggered_by = [terraform_data.a]
  }
}

resource "terraform_data" "counted" {
  count = 2
  input = count.index
}

resource "terraform_data" "keyed" {
  for_each = toset(["k1", "k<2>&"])
  input    = each.key
}

module "child" {
  source = "./child"
}

output "o" {
  value = terraform_data.a.output
}

output "list" {
  value = [for r in terraform_data.counted : r.output]
}

output "s" {
  value     = "secret"
  sensitive = true
}
"#;

const CHILD: &str = r#"
resource "terraform_data" "inner" {
  input = "inner"
}
"#;

/// Create, update with a replacement, a plan with no changes, refresh,
/// the approval an apply cannot ask for, destroy.
#[test]
fn plan_apply_refresh_destroy_streams_match_terraform() {
    compare(
        "lifecycle",
        &[
            step(
                &[("main.tf", LIFECYCLE), ("child/main.tf", CHILD)],
                &["init", "-json"],
                0,
            ),
            step(&[], &["plan", "-json"], 0),
            step(&[], &["apply", "-json", "-auto-approve"], 0),
            step(&[], &["apply", "-json", "-auto-approve", "-var", "v=b"], 0),
            step(&[], &["plan", "-json", "-var", "v=b"], 0),
            step(&[], &["plan", "-json", "-detailed-exitcode"], 2),
            step(&[], &["refresh", "-json", "-var", "v=b"], 0),
            step(&[], &["apply", "-json", "-var", "v=c"], 1),
            step(
                &[],
                &[
                    "plan",
                    "-json",
                    "-destroy",
                    "-var",
                    "v=b",
                    "-out",
                    "destroy.tfplan",
                ],
                0,
            ),
            step(&[], &["apply", "-json", "destroy.tfplan"], 0),
            step(&[], &["destroy", "-json", "-auto-approve"], 0),
        ],
    );
}

const FAILING: &str = r#"
resource "terraform_data" "ok" {
  input = "fine"
}

resource "terraform_data" "provisioned" {
  provisioner "local-exec" {
    command = "echo first; echo second >&2; exit 3"
  }
}

resource "terraform_data" "checked" {
  input = "x"
  lifecycle {
    postcondition {
      condition     = self.output == "y"
      error_message = "The output must be y."
    }
  }
}
"#;

/// A failing apply: a provisioner that fails, a postcondition that does
/// not hold, and a resource that is fine.
#[test]
fn failing_apply_stream_matches_terraform() {
    compare(
        "failing",
        &[
            step(&[("main.tf", FAILING)], &["init"], 0),
            step(&[], &["apply", "-json", "-auto-approve"], 1),
        ],
    );
}

const REMOTE_STATE: &str = r#"{"version":4,"terraform_version":"1.11.4","serial":1,"lineage":"x","outputs":{"v":{"value":"hello","type":"string"}},"resources":[]}
"#;

const WITH_DATA: &str = r#"
data "terraform_remote_state" "x" {
  backend = "local"
  config = {
    path = "other.tfstate"
  }
}

resource "terraform_data" "a" {
  input = data.terraform_remote_state.x.outputs.v
}

resource "terraform_data" "gone" {
  input = "gone"
}

resource "terraform_data" "kept" {
  input = "kept"
}
"#;

const MOVED_AND_REMOVED: &str = r#"
data "terraform_remote_state" "x" {
  backend = "local"
  config = {
    path = "other.tfstate"
  }
}

resource "terraform_data" "b" {
  input = data.terraform_remote_state.x.outputs.v
}

moved {
  from = terraform_data.a
  to   = terraform_data.b
}

removed {
  from = terraform_data.kept
  lifecycle {
    destroy = false
  }
}
"#;

const BROKEN: &str = r#"
resource "terraform_data" "a" {
  input = var.missing
}
"#;

/// Data sources read while planning, a move, a deletion and a forgotten
/// object, then a configuration that does not validate.
#[test]
fn data_moves_removals_and_errors_stream_as_terraform() {
    compare(
        "moves",
        &[
            step(
                &[("main.tf", WITH_DATA), ("other.tfstate", REMOTE_STATE)],
                &["init"],
                0,
            ),
            step(&[], &["apply", "-json", "-auto-approve"], 0),
            step(&[("main.tf", MOVED_AND_REMOVED)], &["plan", "-json"], 0),
            step(&[], &["apply", "-json", "-auto-approve"], 0),
            step(&[("main.tf", BROKEN)], &["plan", "-json"], 1),
            // A data source whose read fails: its diagnostic, no
            // `apply_errored` event.
            step(&[("main.tf", UNREADABLE)], &["plan", "-json"], 1),
        ],
    );
}

const UNREADABLE: &str = r#"
data "terraform_remote_state" "r" {
  backend = "local"
  config  = { path = "nope.tfstate" }
}
output "o" { value = data.terraform_remote_state.r.outputs }
"#;

const ONE_PROVIDER: &str = r#"
terraform {
  required_providers {
    random = {
      source = "hashicorp/random"
    }
  }
}

module "m" {
  source = "./mod"
}
"#;

const TWO_PROVIDERS: &str = r#"
terraform {
  required_providers {
    random = {
      source = "hashicorp/random"
    }
    null = {
      source  = "hashicorp/null"
      version = ">= 0.1.0, < 2.0.0"
    }
  }
}

module "m" {
  source = "./mod"
}
"#;

const DUPLICATE_REQUIREMENTS: &str = r#"
terraform {
  required_providers {
    local = {
      source = "hashicorp/local"
    }
  }
}
"#;

/// `init -json`: providers found, installed and locked from a mirror,
/// reused from the lock file, a new requirement with a constraint, an
/// invalid configuration, an empty directory.
#[test]
fn init_streams_match_terraform() {
    compare_in(
        Work::with_mirror,
        "init",
        &[
            step(&[], &["init", "-json"], 0),
            step(
                &[("main.tf", ONE_PROVIDER), ("mod/main.tf", CHILD)],
                &["init", "-json"],
                0,
            ),
            step(&[], &["init", "-json"], 0),
            step(&[("main.tf", TWO_PROVIDERS)], &["init", "-json"], 0),
            step(&[], &["init", "-json", "-upgrade"], 0),
            step(
                &[("versions.tf", DUPLICATE_REQUIREMENTS)],
                &["init", "-json"],
                1,
            ),
        ],
    );
}

#[test]
fn mask_helpers_hide_only_what_varies() {
    assert_eq!(
        mask_uuids("x [id=8af41b77-af20-f5fc-dedf-03eef1b193af] y"),
        "x [id=<uuid>] y"
    );
    assert_eq!(mask_uuids("8af41b77-af20"), "8af41b77-af20");
    assert_eq!(
        mask_elapsed("a: Creation complete after 12s [id=1]"),
        "a: Creation complete after Ns [id=1]"
    );
    assert_eq!(
        mask_elapsed("a: Creation errored after 1m2s"),
        "a: Creation errored after Ns"
    );
}
