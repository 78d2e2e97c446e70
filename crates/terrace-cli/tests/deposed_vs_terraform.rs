//! Deposed objects beside terraform 1.11.4: a `create_before_destroy`
//! replacement names the old object "(deposed object KEY)" when its
//! destroy starts; a deposed object left in the state is refreshed before
//! its destroy is planned; and a refreshed object takes its resource's
//! `create_before_destroy` from the configuration.

mod engine_support;

use engine_support::{have_terraform, Overrides, Run, Work};

const REPLACED: &str = r#"
resource "terraform_data" "x" {
  triggers_replace = "TRIGGER"
  lifecycle {
    create_before_destroy = true
  }
}
"#;

/// A state holding a current object of `terraform_data.x` and one
/// deposed object, as an interrupted replacement leaves them; written
/// without `create_before_destroy` on the objects.
const LEFT_OVER: &str = r#"{
  "version": 4,
  "terraform_version": "1.11.4",
  "serial": 3,
  "lineage": "6d0f3c4e-2a7b-4b8e-9d1c-5f6a7b8c9d0e",
  "outputs": {},
  "resources": [
    {
      "mode": "managed",
      "type": "terraform_data",
      "name": "x",
      "provider": "provider[\"terraform.io/builtin/terraform\"]",
      "instances": [
        {
          "schema_version": 0,
          "attributes": {"id": "current-id", "input": {"value": "b", "type": "string"}, "output": {"value": "b", "type": "string"}, "triggers_replace": null},
          "sensitive_attributes": []
        },
        {
          "deposed": "0badf00d",
          "schema_version": 0,
          "attributes": {"id": "old-id", "input": {"value": "a", "type": "string"}, "output": {"value": "a", "type": "string"}, "triggers_replace": null},
          "sensitive_attributes": []
        }
      ]
    }
  ],
  "check_results": null
}
"#;

const KEPT: &str = r#"
resource "terraform_data" "x" {
  input = "b"
  lifecycle {
    create_before_destroy = true
  }
}
"#;

fn work(name: &str, tool: &str) -> Work {
    Work::new(
        &format!("deposed-{name}-{tool}"),
        Overrides {
            bundled: false,
            aws: false,
        },
    )
}

/// The lines about `terraform_data.x`, with ids, deposed keys and times
/// made alike.
fn lines_about_x(run: &Run) -> Vec<String> {
    run.stdout
        .lines()
        .filter(|l| l.contains("terraform_data.x"))
        .map(|l| {
            let mut words: Vec<String> = Vec::new();
            for word in l.split(' ') {
                let word = if word.starts_with("[id=") {
                    "[id=ID]".to_string()
                } else if word.len() >= 9
                    && word.as_bytes()[8] == b')'
                    && word.as_bytes()[..8].iter().all(u8::is_ascii_hexdigit)
                {
                    format!("KEY{}", &word[8..])
                } else {
                    word.to_string()
                };
                words.push(word);
            }
            words.join(" ")
        })
        .collect()
}

fn replacement(tool: &str) -> Vec<String> {
    let work = work("replace", tool);
    work.write("main.tf", &REPLACED.replace("TRIGGER", "a"));
    work.with_tool_ok(tool, &["init"]);
    work.with_tool_ok(tool, &["apply", "-auto-approve"]);
    work.write("main.tf", &REPLACED.replace("TRIGGER", "b"));
    lines_about_x(&work.with_tool_ok(tool, &["apply", "-auto-approve"]))
}

#[test]
fn a_replacements_old_object_is_destroyed_as_a_deposed_object() {
    let terrace = replacement("terrace");
    assert!(
        terrace
            .contains(&"terraform_data.x (deposed object KEY): Destroying... [id=ID]".to_string()),
        "{terrace:#?}"
    );
    assert!(
        terrace.contains(&"terraform_data.x: Destruction complete after 0s".to_string()),
        "{terrace:#?}"
    );
    if have_terraform() {
        assert_eq!(terrace, replacement("terraform"));
    }
}

struct LeftOver {
    plan: Vec<String>,
    refresh_only: Vec<String>,
    /// Each object's `create_before_destroy` after `apply -refresh-only`.
    flags: Vec<Option<bool>>,
    apply: Vec<String>,
}

fn left_over(tool: &str) -> LeftOver {
    let work = work("left-over", tool);
    work.write("main.tf", KEPT);
    work.write("terraform.tfstate", LEFT_OVER);
    work.with_tool_ok(tool, &["init"]);
    // The two refreshes run concurrently in terraform: lines are compared
    // in sorted order.
    let mut plan = lines_about_x(&work.with_tool_ok(tool, &["plan"]));
    plan.sort();
    let mut refresh_only = lines_about_x(&work.with_tool_ok(tool, &["plan", "-refresh-only"]));
    refresh_only.sort();
    work.with_tool_ok(tool, &["apply", "-refresh-only", "-auto-approve"]);
    let flags = work.state()["resources"][0]["instances"]
        .as_array()
        .map(|objects| {
            objects
                .iter()
                .map(|o| o["create_before_destroy"].as_bool())
                .collect()
        })
        .unwrap_or_default();
    let mut apply = lines_about_x(&work.with_tool_ok(tool, &["apply", "-auto-approve"]));
    apply.sort();
    LeftOver {
        plan,
        refresh_only,
        flags,
        apply,
    }
}

#[test]
fn a_deposed_object_is_refreshed_then_destroyed() {
    let terrace = left_over("terrace");
    assert!(
        terrace.plan.contains(
            &"terraform_data.x (deposed object KEY): Refreshing state... [id=ID]".to_string()
        ),
        "{:#?}",
        terrace.plan
    );
    assert!(
        terrace
            .plan
            .contains(&"  # terraform_data.x (deposed object KEY) will be destroyed".to_string()),
        "{:#?}",
        terrace.plan
    );
    // The current object takes the configuration's create_before_destroy;
    // the deposed one keeps what it had.
    assert_eq!(terrace.flags, [Some(true), None]);
    if have_terraform() {
        let terraform = left_over("terraform");
        assert_eq!(terrace.plan, terraform.plan);
        assert_eq!(terrace.refresh_only, terraform.refresh_only);
        assert_eq!(terrace.flags, terraform.flags);
        assert_eq!(terrace.apply, terraform.apply);
    }
}
