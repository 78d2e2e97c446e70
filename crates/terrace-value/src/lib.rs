//! terrace-value: the cty value model that every other layer builds on.
//!
//! `Type` and `Value` follow go-cty's semantics exactly: arbitrary-precision
//! numbers with per-value precision (`number`), unknown values with
//! refinements, typed nulls, marks (sensitive, ephemeral) kept through
//! operations (`ops`), conversion and unification (`convert`), and the wire
//! and file codecs (`json`, `msgpack`, `typejson`).
//! It is also the home of the Go-compatible helpers every layer shares:
//! `gostr` (Go's string quoting), `gomath` (Go's `math.Pow`, `Log`, `Exp`)
//! and `crc32`.

// Data from users, files, plugins and the network never panics the
// program: no unwrap, expect or panic outside tests.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub mod attrs;
pub use attrs::Attrs;
pub mod compact;
pub mod convert;
pub mod crc32;
pub mod defaults;
pub mod gomath;
mod intern;
/// Go's string quoting, which cty and HCL print through; kept under the
/// name every caller knows.
pub use terrace_gocompat::strconv as gostr;
pub mod json;
pub mod msgpack;
pub mod number;
pub mod ops;
pub mod parallel;
pub mod refine;
#[cfg(test)]
mod testutil;
pub mod typejson;
pub mod types;
pub mod unify;
pub mod value;

pub use number::Number;
pub use types::{ObjectType, Type};
pub use value::{Marks, Refinement, Value};
