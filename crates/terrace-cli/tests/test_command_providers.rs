//! `terrace test` with provider configurations that use `for_each`: a
//! module whose provider instances follow a map of regions, tested with a
//! mock provider that iterates the same way. Removing a region first by
//! disabling it (its resources are destroyed while its provider instance
//! still exists) and then dropping it passes; dropping it in one step fails
//! with "Provider instance not present", exactly as with real providers.
//! The rules for `for_each` in test files stop the command before anything
//! runs.

mod engine_support;

use engine_support::{Overrides, Work};

const REGIONS_MODULE: &str = r#"terraform {
  required_providers {
    aws = {
      source = "hashicorp/aws"
    }
  }
}

variable "aws_regions" {
  type = map(object({
    enabled = optional(bool, true)
  }))
}

provider "aws" {
  alias    = "by_region"
  for_each = var.aws_regions

  region = each.key
}

resource "aws_instance" "example" {
  for_each = {
    for k, v in var.aws_regions : k => v
    if v.enabled
  }
  provider = aws.by_region[each.key]

  ami           = "ami-12345678"
  instance_type = "t3.micro"
}

output "instance_regions" {
  value = keys(aws_instance.example)
}
"#;

const MOCK: &str = r#"mock_provider "aws" {
  alias    = "by_region"
  for_each = var.aws_regions
}
"#;

const CREATE: &str = r#"
run "initial_create" {
  variables {
    aws_regions = {
      faked-region-a = {}
      faked-region-b = {}
    }
  }

  assert {
    condition     = output.instance_regions == ["faked-region-a", "faked-region-b"]
    error_message = "both regions have an instance"
  }
}
"#;

const DISABLE: &str = r#"
run "disable_b" {
  variables {
    aws_regions = {
      faked-region-a = {}
      faked-region-b = {
        enabled = false
      }
    }
  }

  assert {
    condition     = output.instance_regions == ["faked-region-a"]
    error_message = "the disabled region's instance is destroyed"
  }
}
"#;

const REMOVE: &str = r#"
run "remove_b" {
  variables {
    aws_regions = {
      faked-region-a = {}
    }
  }
}
"#;

fn regions_work(name: &str, test: &str) -> Option<Work> {
    // The mock needs the provider's schema, which comes from the real
    // package (through the schema cache), though the provider never runs.
    if !terrace_testsupport::require_aws_provider_package() {
        return None;
    }
    let work = Work::new(
        name,
        Overrides {
            bundled: false,
            aws: true,
        },
    );
    work.write("main.tf", REGIONS_MODULE);
    work.write("tests/regions.tftest.hcl", test);
    Some(work)
}

#[test]
fn mocked_region_removal_in_two_steps_passes() {
    let Some(work) = regions_work(
        "regions-two-steps",
        &format!("{MOCK}{CREATE}{DISABLE}{REMOVE}"),
    ) else {
        return;
    };
    let run = work.terrace(&["test", "-no-color"]);
    assert_eq!(run.code, Some(0), "{}", run.output());
    assert_eq!(
        run.stdout,
        "tests/regions.tftest.hcl... in progress\n  run \"initial_create\"... pass\n  run \"disable_b\"... pass\n  run \"remove_b\"... pass\ntests/regions.tftest.hcl... tearing down\ntests/regions.tftest.hcl... pass\n\nSuccess! 3 passed, 0 failed.\n",
        "{}",
        run.output()
    );
    assert_eq!(run.stderr, "", "{}", run.output());
}

#[test]
fn mocked_region_removal_in_one_step_fails() {
    let Some(work) = regions_work("regions-one-step", &format!("{MOCK}{CREATE}{REMOVE}")) else {
        return;
    };
    let run = work.terrace(&["test", "-no-color"]);
    assert_eq!(run.code, Some(1), "{}", run.output());
    assert!(
        run.stdout
            .contains("  run \"initial_create\"... pass\n  run \"remove_b\"... fail\n"),
        "{}",
        run.output()
    );
    assert!(
        run.stderr.contains("Error: Provider instance not present"),
        "{}",
        run.output()
    );
    assert!(
        run.stderr
            .contains("aws_instance.example[\"faked-region-b\"]"),
        "{}",
        run.output()
    );
}

/// Each rule for `for_each` in test files, through the command: it stops
/// before any run with the rule's diagnostic.
#[test]
fn for_each_rules_stop_the_command() {
    let module_with_for_each = r#"variable "regions" {
  type    = set(string)
  default = ["a"]
}

provider "aws" {
  alias    = "by_region"
  for_each = var.regions
}
"#;
    let module_without = "provider \"aws\" {\n  alias = \"west\"\n}\n";
    let module_with_alias = "terraform {\n  required_providers {\n    aws = {\n      source                = \"hashicorp/aws\"\n      configuration_aliases = [aws.passed]\n    }\n  }\n}\n";
    let cases = [
        (
            "missing",
            module_with_for_each,
            "mock_provider \"aws\" {\n  alias = \"by_region\"\n}\n\nrun \"a\" {\n  command = plan\n}\n",
            "Error: Missing for_each in provider substitute",
        ),
        (
            "extra",
            module_without,
            "mock_provider \"aws\" {\n  alias    = \"west\"\n  for_each = toset([\"x\"])\n}\n\nrun \"a\" {\n  command = plan\n}\n",
            "Error: Unexpected for_each in provider substitute",
        ),
        (
            "configuration-alias",
            module_with_alias,
            "provider \"aws\" {\n  alias    = \"passed\"\n  for_each = toset([\"x\"])\n}\n\nrun \"a\" {\n  command = plan\n}\n",
            "Error: Unexpected for_each in provider substitute",
        ),
        (
            "test-only",
            module_without,
            "provider \"aws\" {\n  alias    = \"other\"\n  for_each = toset([\"x\"])\n}\n\nrun \"a\" {\n  command = plan\n}\n",
            "Error: Unexpected for_each in test-only provider configuration",
        ),
        (
            "run-key",
            module_without,
            "provider \"aws\" {\n  alias = \"other\"\n}\n\nrun \"a\" {\n  command = plan\n  providers = {\n    aws.west = aws.other[\"x\"]\n  }\n}\n",
            "Error: Invalid run block provider configuration",
        ),
    ];
    for (name, module, test, want) in cases {
        let work = Work::new(
            &format!("rules-{name}"),
            Overrides {
                bundled: false,
                aws: false,
            },
        );
        work.write("main.tf", module);
        work.write("tests/rules.tftest.hcl", test);
        let run = work.terrace(&["test", "-no-color"]);
        assert_eq!(run.code, Some(1), "{name}: {}", run.output());
        assert_eq!(run.stdout, "", "{name}: nothing runs\n{}", run.output());
        assert!(run.stderr.contains(want), "{name}: {}", run.output());
    }
}

/// A test-level provider's `for_each` is evaluated from the test file's
/// own variables, which the module under test need not declare: here the
/// mock iterates over a file-level map of fake regions while the runs set
/// the module's variable.
#[test]
fn mock_for_each_comes_from_the_test_files_variables() {
    let test = format!(
        r#"variables {{
  fake_regions = {{
    faked-region-a = "a"
    faked-region-b = "b"
  }}
}}

mock_provider "aws" {{
  alias    = "by_region"
  for_each = var.fake_regions
}}
{CREATE}{DISABLE}{REMOVE}"#
    );
    let Some(work) = regions_work("regions-file-variables", &test) else {
        return;
    };
    let run = work.terrace(&["test", "-no-color"]);
    assert_eq!(run.code, Some(0), "{}", run.output());
    assert!(
        run.stdout.contains("Success! 3 passed, 0 failed."),
        "{}",
        run.output()
    );
}

/// A mock whose `for_each` leaves out a region the module's resources
/// still use cannot serve them: the run fails with the missing instance.
#[test]
fn mock_for_each_without_a_used_region_fails_the_run() {
    let test = format!(
        r#"variables {{
  fake_regions = {{
    faked-region-a = "a"
  }}
}}

mock_provider "aws" {{
  alias    = "by_region"
  for_each = var.fake_regions
}}
{CREATE}"#
    );
    let Some(work) = regions_work("regions-file-variables-short", &test) else {
        return;
    };
    let run = work.terrace(&["test", "-no-color"]);
    assert_eq!(run.code, Some(1), "{}", run.output());
    assert!(
        run.stdout.contains("  run \"initial_create\"... fail"),
        "{}",
        run.output()
    );
    assert!(run.stderr.contains("faked-region-b"), "{}", run.output());
}
