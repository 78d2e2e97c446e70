//! terrace-lang: evaluation of HCL expressions over a scope, reference
//! extraction, and the built-in function library.

pub mod funcs;
