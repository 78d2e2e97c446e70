//! A short description of a value for messages (cty's
//! `CompactValueStr`): primitives as they are written, strings quoted,
//! collections and objects by their type and size, so that a diagnostic
//! can name a value without printing all of it.

use crate::Value;

/// `"a"`, `12`, `true`, `null`, `list of string with 2 elements`,
/// `object with 1 attribute "a"`, `(not yet known)`. Marks are not
/// looked at: callers decide whether a value may be shown at all.
pub fn compact_value_str(v: &Value) -> String {
    let (v, _) = v.unmark_deep();
    let ty = v.ty();
    if v.is_null() {
        return "null".into();
    }
    if !(v.is_wholly_known() || ty.is_collection() || ty.is_tuple() || ty.is_object()) {
        return "(not yet known)".into();
    }
    if let Some(b) = v.as_bool() {
        return b.to_string();
    }
    if let Some(n) = v.as_number() {
        return n.to_string();
    }
    if let Some(s) = v.as_str() {
        return crate::gostr::quote(s);
    }
    let count = |n: usize, one: &str, many: &str| match n {
        1 => format!("with 1 {one}"),
        n => format!("with {n} {many}"),
    };
    if ty.is_collection() || ty.is_tuple() {
        let n = v
            .as_elements()
            .map(|e| e.len())
            .or_else(|| v.as_attributes().map(|a| a.len()))
            .unwrap_or(0);
        if n == 0 {
            return format!("empty {}", ty.friendly_name());
        }
        return format!("{} {}", ty.friendly_name(), count(n, "element", "elements"));
    }
    if ty.is_object() {
        let attrs = v.as_attributes();
        return match attrs.map(|a| a.len()).unwrap_or(0) {
            0 => "object with no attributes".into(),
            1 => format!(
                "object with 1 attribute {}",
                crate::gostr::quote(
                    &attrs
                        .and_then(|a| a.keys().next())
                        .cloned()
                        .unwrap_or_default()
                )
            ),
            n => format!("object with {n} attributes"),
        };
    }
    ty.friendly_name()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Type;

    #[test]
    fn describes_values_as_cty_does() {
        let cases = [
            (Value::string("q"), "\"q\""),
            (Value::bool(true), "true"),
            (Value::null(Type::String), "null"),
            (
                Value::list(Type::String, vec![Value::string("a"), Value::string("b")]),
                "list of string with 2 elements",
            ),
            (Value::unknown(Type::String), "(not yet known)"),
        ];
        for (v, want) in cases {
            assert_eq!(compact_value_str(&v), want);
        }
    }
}
