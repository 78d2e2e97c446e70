//! Instance keys: which instance of a `count`/`for_each` object an address
//! means (`[0]`, `["k"]`, or none for a single-instance object), printed
//! in HCL's quoted-string syntax so that a printed address parses back.

use std::fmt;
use std::sync::Arc;
use terrace_value::gostr;
use terrace_value::{Number, Type, Value};
use unicode_normalization::{is_nfc_quick, IsNormalized, UnicodeNormalization};

/// The key of one instance of a resource, module call or provider
/// configuration. The derived order is OpenTofu's `InstanceKeyLess`: no key
/// first, then integer keys by value, then string keys by bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum InstanceKey {
    /// The only instance of an object without `count` or `for_each`.
    #[default]
    None,
    /// From `count`, or `for_each` over a sequence.
    Int(i64),
    /// From `for_each` over a map or set of strings. NFC-normalised, as
    /// every cty string is; [`InstanceKey::string`] normalises.
    String(Arc<str>),
}

/// Why a value cannot be an instance key; the text is OpenTofu's (gocty's
/// for out-of-range numbers).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidInstanceKey(&'static str);

impl fmt::Display for InvalidInstanceKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl std::error::Error for InvalidInstanceKey {}

const NOT_STRING_OR_INT: &str = "either a string or an integer is required";
const NOT_WHOLE: &str =
    "value must be a whole number, between -9223372036854775808 and 9223372036854775807";

impl InstanceKey {
    /// A string key, NFC-normalised so that it equals the key parsed from
    /// its printed form.
    pub fn string(s: impl AsRef<str>) -> InstanceKey {
        let s = s.as_ref();
        if is_nfc_quick(s.chars()) == IsNormalized::Yes {
            InstanceKey::String(Arc::from(s))
        } else {
            InstanceKey::String(Arc::from(s.nfc().collect::<String>()))
        }
    }

    pub fn is_none(&self) -> bool {
        matches!(self, InstanceKey::None)
    }

    /// OpenTofu's `ParseInstanceKey`: a string value is a string key, a
    /// whole number in the int64 range an integer key. Marks are ignored.
    /// OpenTofu never passes null or unknown values (it would panic); here
    /// they are errors.
    pub fn from_value(value: &Value) -> Result<InstanceKey, InvalidInstanceKey> {
        // By type first, as OpenTofu switches on the type: a null or
        // unknown of another type gets the general message.
        let is_string = *value.ty() == Type::String;
        if !is_string && *value.ty() != Type::Number {
            return Err(InvalidInstanceKey(NOT_STRING_OR_INT));
        }
        if !value.is_known() {
            return Err(InvalidInstanceKey("the key must be a known value"));
        }
        if value.is_null() {
            return Err(InvalidInstanceKey("the key must not be null"));
        }
        if let Some(s) = value.as_str() {
            return Ok(InstanceKey::String(Arc::from(s)));
        }
        match value.as_number() {
            Some(n) if n.is_integer() => match n.to_i64() {
                Some(i) => Ok(InstanceKey::Int(i)),
                None => Err(InvalidInstanceKey(NOT_WHOLE)),
            },
            _ => Err(InvalidInstanceKey(NOT_WHOLE)),
        }
    }

    /// The key as a value (`each.key`/`count.index`); none for no key.
    pub fn to_value(&self) -> Option<Value> {
        match self {
            InstanceKey::None => None,
            InstanceKey::Int(i) => Some(Value::number(Number::from_i64(*i))),
            InstanceKey::String(s) => Some(Value::string(s)),
        }
    }
}

impl From<i64> for InstanceKey {
    fn from(i: i64) -> InstanceKey {
        InstanceKey::Int(i)
    }
}

impl From<&str> for InstanceKey {
    fn from(s: &str) -> InstanceKey {
        InstanceKey::string(s)
    }
}

impl From<String> for InstanceKey {
    fn from(s: String) -> InstanceKey {
        InstanceKey::string(s)
    }
}

/// `[0]`, `["k"]`, or nothing for no key.
impl fmt::Display for InstanceKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InstanceKey::None => Ok(()),
            InstanceKey::Int(i) => write!(f, "[{i}]"),
            InstanceKey::String(s) => write!(f, "[{}]", hcl_quote(s)),
        }
    }
}

/// `s` as an HCL quoted string that reads back as `s`: the usual
/// backslash escapes, `${` and `%{` doubled so they are not template
/// sequences, `\uXXXX`/`\UXXXXXXXX` for what Go does not count as
/// printable (OpenTofu's `toHCLQuotedString`). Go's `%q` would not do:
/// HCL has no `\x` escape and would read `${` as an interpolation.
pub fn hcl_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '$' | '%' => {
                out.push(c);
                if chars.peek() == Some(&'{') {
                    out.push(c);
                }
            }
            c if !gostr::is_print(c) => {
                let code = c as u32;
                if code < 0x10000 {
                    out.push_str(&format!("\\u{code:04x}"));
                } else {
                    out.push_str(&format!("\\U{code:08x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display() {
        // OpenTofu's TestInstanceKeyString, plus the non-printable cases.
        let rows: &[(InstanceKey, &str)] = &[
            (InstanceKey::None, ""),
            (InstanceKey::Int(0), "[0]"),
            (InstanceKey::Int(5), "[5]"),
            (InstanceKey::Int(-3), "[-3]"),
            (InstanceKey::string(""), r#"[""]"#),
            (InstanceKey::string("hi"), r#"["hi"]"#),
            (InstanceKey::string("0"), r#"["0"]"#),
            (InstanceKey::string("\""), r#"["\""]"#),
            (InstanceKey::string(r"\r\n"), r#"["\\r\\n"]"#),
            (InstanceKey::string("\r\n\t"), r#"["\r\n\t"]"#),
            (InstanceKey::string("${hello}"), r#"["$${hello}"]"#),
            (
                InstanceKey::string("%{ for something in something }%{ endfor }"),
                r#"["%%{ for something in something }%%{ endfor }"]"#,
            ),
            (InstanceKey::string("$hello"), r#"["$hello"]"#),
            (InstanceKey::string("%hello"), r#"["%hello"]"#),
            (InstanceKey::string("$"), r#"["$"]"#),
            (InstanceKey::string("\u{0}\u{7f}"), r#"["\u0000\u007f"]"#),
            (InstanceKey::string("a\u{a0}b"), r#"["a\u00a0b"]"#),
            (InstanceKey::string("\u{e0000}"), r#"["\U000e0000"]"#),
            (InstanceKey::string("münchen ✓"), r#"["münchen ✓"]"#),
            (InstanceKey::string("e\u{301}"), r#"["é"]"#),
            (InstanceKey::from("x"), r#"["x"]"#),
            (InstanceKey::from(7), "[7]"),
        ];
        for (key, want) in rows {
            assert_eq!(key.to_string(), *want, "{key:?}");
        }
    }

    #[test]
    fn from_value() {
        let ok: &[(Value, InstanceKey)] = &[
            (Value::string("a"), InstanceKey::string("a")),
            (Value::string(""), InstanceKey::string("")),
            (Value::int(0), InstanceKey::Int(0)),
            (Value::int(-7), InstanceKey::Int(-7)),
            (Value::int(i64::MAX), InstanceKey::Int(i64::MAX)),
            (Value::int(i64::MIN), InstanceKey::Int(i64::MIN)),
            (
                Value::number(Number::parse("2.0").unwrap_or_else(|| Number::from_i64(0))),
                InstanceKey::Int(2),
            ),
        ];
        for (value, want) in ok {
            assert_eq!(InstanceKey::from_value(value).as_ref(), Ok(want));
        }
        let bad: &[(Value, &str)] = &[
            (Value::bool(true), NOT_STRING_OR_INT),
            (
                Value::number(Number::parse("1.5").unwrap_or_else(|| Number::from_i64(0))),
                NOT_WHOLE,
            ),
            (
                Value::number(
                    Number::parse("9223372036854775808").unwrap_or_else(|| Number::from_i64(0)),
                ),
                NOT_WHOLE,
            ),
            (Value::null(Type::String), "the key must not be null"),
            (
                Value::unknown(Type::String),
                "the key must be a known value",
            ),
            (Value::null(Type::Dynamic), NOT_STRING_OR_INT),
            (Value::dynamic(), NOT_STRING_OR_INT),
        ];
        for (value, want) in bad {
            let got = InstanceKey::from_value(value).map_err(|e| e.to_string());
            assert_eq!(got, Err(want.to_string()), "{value:?}");
        }
    }

    #[test]
    fn order_is_opentofus() {
        let mut keys = [
            InstanceKey::string("b"),
            InstanceKey::Int(10),
            InstanceKey::string("a"),
            InstanceKey::None,
            InstanceKey::Int(-1),
            InstanceKey::Int(2),
            InstanceKey::string("B"),
        ];
        keys.sort();
        let shown: Vec<String> = keys.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            ["", "[-1]", "[2]", "[10]", r#"["B"]"#, r#"["a"]"#, r#"["b"]"#]
        );
    }

    #[test]
    fn to_value_round_trips() {
        for key in [
            InstanceKey::Int(3),
            InstanceKey::string("x"),
            InstanceKey::Int(-9),
        ] {
            let value = key.to_value();
            let back = value.as_ref().map(InstanceKey::from_value);
            assert_eq!(back, Some(Ok(key.clone())));
        }
        assert_eq!(InstanceKey::None.to_value(), None);
    }
}
