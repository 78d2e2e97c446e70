//! Helpers shared by the integration tests: temporary directories, and
//! checking that a process is gone.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use terrace_providers::{Block, NestingMode};
use terrace_value::Value;

// Not every test binary that includes this module makes directories.
#[allow(unused_imports)]
pub use terrace_testsupport::TempDir;

/// The state letter of a process from /proc (`R`, `S`, `Z`, ...) and its
/// parent, or `None` when there is no such process.
fn process_state(pid: i32) -> Option<(char, i32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may contain spaces.
    let rest = &stat[stat.rfind(')')? + 2..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let parent = fields.next()?.parse().ok()?;
    Some((state, parent))
}

/// Asserts that `pid` is no longer running. A process terrace started
/// must also have been reaped (no zombie left with this test process as
/// its parent); a grandchild killed with its group may linger as a zombie
/// of whatever adopted it. Killing is asynchronous, so a process still
/// dying gets a few seconds to finish.
pub fn assert_gone(pid: i32) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let state = process_state(pid);
        let ours = std::process::id() as i32;
        match state {
            None => return,
            Some(('Z', parent)) if parent != ours => return,
            Some((state, parent)) if Instant::now() >= deadline => {
                panic!("process {pid} is still there (state {state}, parent {parent})")
            }
            Some(_) => std::thread::sleep(Duration::from_millis(50)),
        }
    }
}

/// The process ids a fake plugin recorded.
pub fn recorded_pids(file: &Path) -> Vec<i32> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| line.trim().parse().ok())
        .collect()
}

/// The AWS provider binary, or `None` when this machine does not have it
/// (reported by the project's rule for missing tools).
pub fn aws_provider() -> Option<PathBuf> {
    terrace_testsupport::aws_provider_executable()
}

/// A configuration for `block` with only `set` given: every other
/// attribute null and no nested blocks, as Terraform sends an almost empty
/// block.
pub fn config(block: &Block, set: &[(&str, Value)]) -> Value {
    let mut attributes: BTreeMap<String, Value> = BTreeMap::new();
    for (name, attribute) in &block.attributes {
        attributes.insert(name.clone(), Value::null(attribute.implied_type()));
    }
    for (name, nested) in &block.block_types {
        let ty = nested.implied_type();
        let value = match nested.nesting {
            NestingMode::Single => Value::null(ty),
            NestingMode::Group => config(&nested.block, &[]),
            NestingMode::List => Value::list(nested.block.implied_type(), Vec::new()),
            NestingMode::Set => Value::set(nested.block.implied_type(), Vec::new()),
            NestingMode::Map => Value::map(nested.block.implied_type(), BTreeMap::new()),
        };
        attributes.insert(name.clone(), value);
    }
    for (name, value) in set {
        attributes.insert(name.to_string(), value.clone());
    }
    Value::object(attributes)
}
