//! terrace-value: the cty value model that every other layer builds on.
//!
//! `Type` and `Value` follow go-cty's semantics exactly: arbitrary-precision
//! numbers with per-value precision (`number`), unknown values with
//! refinements, typed nulls, marks (sensitive, ephemeral) kept through
//! operations (`ops`), conversion and unification (`convert`), and the wire
//! and file codecs (`json`, `msgpack`, `typejson`).

pub mod convert;
pub mod defaults;
pub mod gostr;
pub mod json;
pub mod msgpack;
pub mod number;
pub mod ops;
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
