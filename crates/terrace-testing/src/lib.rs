//! terrace-testing: the test framework behind `terrace test`.
//!
//! A suite is the test files of a module (`*.tftest.hcl`, `*.tftest.json`
//! in the module's directory and its test directory), loaded and checked
//! by terrace-config (`load_and_validate`, which also runs the provider
//! rules for test files). Each file's `run` blocks execute in order
//! through the engine's `plan` and `apply`; each module under test (or
//! `state_key`) keeps its own state for the length of the file, and the
//! states are destroyed in reverse order when the file ends. Assertions
//! are evaluated in the root module's scope as the walk left it, through
//! the engine's [`terrace_engine::RootEvaluator`]. Mock providers and
//! overrides are provider implementations inside terrace ([`mock`]), so a
//! mocked provider never starts a plugin.
//!
//! Nothing here prints: progress goes to a [`Reporter`], and `view` turns
//! results into terraform's human, JSON and JUnit forms for the CLI.

// Data from users, files, plugins and the network never panics the
// program: no unwrap, expect or panic outside tests.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub mod factory;
pub mod file;
pub mod mock;
pub mod runner;
pub mod view;

pub use runner::{run_suite, Reporter, RunReport, Status, SuiteOptions, SuiteReport};
