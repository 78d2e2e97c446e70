//! Type conversion and unification with cty's rules (`cty/convert`):
//! safe conversions always succeed for any value of the source type; unsafe
//! ones (string to number or bool, and collection conversions that depend on
//! the elements) may fail for some values. `convert` allows both, as
//! Terraform's type constraints and `tolist`/`tomap`/... do.
//!
//! (API contract; implementation in progress.)

use crate::types::Type;
use crate::value::Value;
use std::fmt;

/// One step of a path into a value, for error messages like cty's
/// `attribute "a": string required`.
#[derive(Clone, Debug)]
pub enum PathStep {
    Attr(String),
    /// An index into a list, tuple or map (the key as a value).
    Index(Value),
}

#[derive(Clone, Debug)]
pub struct ConversionError {
    pub path: Vec<PathStep>,
    /// cty's message without the path, e.g. `string required`.
    pub message: String,
}

impl fmt::Display for ConversionError {
    /// As cty's `PathError` renders through `tfdiags.FormatError`/HCL: the
    /// path prefix (`attribute "a": `, `element 0: `) then the message.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let _ = &self.path;
        f.write_str(&self.message)
    }
}

/// Converts `value` to `want`, allowing unsafe conversions (cty
/// `convert.Convert`). Marks are preserved; unknowns convert to unknowns of
/// the target type; `want` may contain `Dynamic` and optional attributes.
pub fn convert(value: &Value, want: &Type) -> Result<Value, ConversionError> {
    let _ = (value, want);
    todo!()
}

/// The single type all of `types` can be converted to, if any (cty
/// `convert.UnifyUnsafe` when `allow_unsafe`, else `convert.Unify`).
pub fn unify(types: &[Type], allow_unsafe: bool) -> Option<Type> {
    let _ = (types, allow_unsafe);
    todo!()
}
