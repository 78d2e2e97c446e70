//! terrace-syntax: native HCL and JSON syntax parsed into one AST with byte
//! spans. Parsing never fails: every entry point returns a tree (with
//! `ExprKind::Invalid` placeholders where needed) plus diagnostics.

pub mod ast;
pub mod diagnostic;
pub mod pos;

pub use diagnostic::{Diagnostic, Diagnostics, Severity, SourceRange};
pub use pos::{LineIndex, Pos, Span};
