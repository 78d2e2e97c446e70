//! terrace-lang: evaluation of HCL expressions over a scope, reference
//! extraction, and the built-in function library.

// Data from users, files, plugins and the network never panics the
// program: no unwrap, expect or panic outside tests.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub mod diagvalues;
pub mod eval;
pub mod funcs;
pub mod module_scope;
pub mod references;
pub mod scope;
pub mod similarity;
pub mod typeexpr;
