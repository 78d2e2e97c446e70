//! terrace-lang: evaluation of HCL expressions over a scope, reference
//! extraction, and the built-in function library.

pub mod eval;
pub mod funcs;
pub mod module_scope;
pub mod references;
pub mod scope;
pub mod similarity;
pub mod typeexpr;
