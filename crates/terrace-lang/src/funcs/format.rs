//! Built-in functions: format.

use super::Function;

pub(crate) fn register(out: &mut Vec<Function>) {
    let _ = out;
}
