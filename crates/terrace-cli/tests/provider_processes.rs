//! How many provider processes a command starts. Validation's unconfigured
//! process is the one planning configures, so `plan` with one provider
//! configuration starts one process and `apply` two (its apply walk
//! configures a fresh one, as terraform's does), whether the schema came
//! from the cache or had to be asked of the provider. Counted from the
//! debug log, which has a line for every process started.

mod engine_support;

use engine_support::{Overrides, Work};

const ONE_CONFIGURATION: &str = r#"
terraform {
  required_providers {
    null = { source = "hashicorp/null" }
  }
}

resource "null_resource" "a" {}
resource "null_resource" "b" {}
"#;

/// Two configurations of one provider: validation starts a process for
/// each and keeps one of them for planning.
const TWO_CONFIGURATIONS: &str = r#"
terraform {
  required_providers {
    null = { source = "hashicorp/null" }
  }
}

provider "null" {}

provider "null" {
  alias = "other"
}

resource "null_resource" "a" {}

resource "null_resource" "b" {
  provider = null.other
}
"#;

fn work(name: &str, config: &str) -> Work {
    let work = Work::new(
        name,
        Overrides {
            bundled: true,
            aws: false,
        },
    );
    work.write("main.tf", config);
    work
}

/// Runs `terrace <args>` (which must succeed) with the schema cache at
/// `cache` (empty: off) and returns the number of provider processes it
/// started.
fn processes_started(work: &Work, args: &[&str], cache: &str) -> usize {
    let log = work.dir.with_extension("log");
    let _ = std::fs::remove_file(&log);
    let log_path = log.display().to_string();
    let run = work.terrace_env(
        args,
        &[
            ("TF_LOG_CORE", "DEBUG"),
            ("TF_LOG_PATH", &log_path),
            ("TERRACE_SCHEMA_CACHE_DIR", cache),
        ],
    );
    assert_eq!(run.code, Some(0), "terrace {args:?}\n{}", run.output());
    let text = std::fs::read_to_string(&log).unwrap_or_else(|e| panic!("reading the log: {e}"));
    text.lines()
        .filter(|line| line.contains("starting provider plugin"))
        .count()
}

#[test]
fn plan_configures_the_process_validation_used() {
    let work = work("processes-one", ONE_CONFIGURATION);
    // The schema asked of the provider (no cache): that process validates,
    // then plans.
    assert_eq!(processes_started(&work, &["plan"], ""), 1);
    assert_eq!(processes_started(&work, &["apply", "-auto-approve"], ""), 2);

    let cache = work.dir.with_extension("schemas");
    let cache = cache.display().to_string();
    // The first run fills the cache, the second takes the schema from it;
    // both start one process.
    assert_eq!(processes_started(&work, &["plan"], &cache), 1);
    assert_eq!(processes_started(&work, &["plan"], &cache), 1);
    assert!(
        std::fs::read_dir(&cache).is_ok_and(|mut d| d.next().is_some()),
        "the schema cache at {cache} stayed empty"
    );
    // Destroying refreshes first (validation's process), then plans the
    // destruction and applies it, each with a process of its own.
    assert_eq!(
        processes_started(&work, &["destroy", "-auto-approve"], &cache),
        3
    );
}

#[test]
fn one_process_of_validation_waits_for_planning_whatever_the_configurations() {
    let work = work("processes-two", TWO_CONFIGURATIONS);
    // Validation: one process per configuration; planning: one of those
    // and one more.
    assert_eq!(processes_started(&work, &["plan"], ""), 3);
    assert_eq!(processes_started(&work, &["apply", "-auto-approve"], ""), 5);
}
