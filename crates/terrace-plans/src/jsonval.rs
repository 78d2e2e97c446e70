//! A JSON value as Go's `encoding/json` sees one when decoding into
//! `interface{}` with `UseNumber`: numbers keep their literal text, objects
//! are maps (written in sorted key order, as Go writes maps). The plan
//! renderer works on this form because Terraform's renderer works on the
//! JSON plan; the JSON writers use it to emit Go-identical text.
//!
//! Compound values are `Arc`-shared: the renderer hands children around
//! constantly and must not copy trees to do so.

use std::collections::BTreeMap;
use std::sync::Arc;
use terrace_gocompat::json;
use terrace_value::{Type, Value};

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum J {
    Null,
    Bool(bool),
    /// The number's literal text.
    Number(Arc<str>),
    String(Arc<str>),
    Array(Arc<Vec<J>>),
    Object(Arc<BTreeMap<String, J>>),
}

impl J {
    pub(crate) fn string(s: &str) -> J {
        J::String(Arc::from(s))
    }

    pub(crate) fn array(elems: Vec<J>) -> J {
        J::Array(Arc::new(elems))
    }

    pub(crate) fn object(attrs: BTreeMap<String, J>) -> J {
        J::Object(Arc::new(attrs))
    }

    pub(crate) fn empty_object() -> J {
        J::object(BTreeMap::new())
    }

    pub(crate) fn is_null(&self) -> bool {
        matches!(self, J::Null)
    }

    pub(crate) fn as_bool(&self) -> Option<bool> {
        match self {
            J::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            J::String(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn as_array(&self) -> Option<&[J]> {
        match self {
            J::Array(a) => Some(a),
            _ => None,
        }
    }

    pub(crate) fn as_object(&self) -> Option<&BTreeMap<String, J>> {
        match self {
            J::Object(o) => Some(o),
            _ => None,
        }
    }

    /// Compact text, as Go's `json.Marshal` writes it (HTML characters
    /// escaped, map keys sorted).
    pub(crate) fn to_compact(&self) -> String {
        let mut out = String::new();
        self.write_compact(&mut out);
        out
    }

    pub(crate) fn write_compact(&self, out: &mut String) {
        match self {
            J::Null => out.push_str("null"),
            J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            J::Number(n) => out.push_str(n),
            J::String(s) => write_string(out, s),
            J::Array(elems) => {
                out.push('[');
                for (i, e) in elems.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    e.write_compact(out);
                }
                out.push(']');
            }
            J::Object(attrs) => {
                out.push('{');
                for (i, (k, v)) in attrs.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_string(out, k);
                    out.push(':');
                    v.write_compact(out);
                }
                out.push('}');
            }
        }
    }

    /// The whole text as one JSON value (only whitespace may follow).
    #[cfg(test)]
    pub(crate) fn parse(text: &str) -> Result<J, String> {
        json::parse(text.as_bytes())
            .map(|node| J::from_go(node.json))
            .map_err(|e| e.to_string())
    }

    /// What Go's `json.Decoder.Decode` reads from the start of `text`: the
    /// first value, ignoring whatever follows a complete object or array.
    pub(crate) fn parse_first(text: &str) -> Option<J> {
        let node = json::parse_value_prefix(text.as_bytes()).ok()?;
        match node.json {
            json::Json::Array(_) | json::Json::Object(_) => Some(J::from_go(node.json)),
            // A scalar ends only at a delimiter, so what follows counts.
            _ => text.as_bytes()[node.end..]
                .iter()
                .all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
                .then(|| J::from_go(node.json)),
        }
    }

    /// Go's decoded form of a parsed document: numbers as their literal,
    /// objects as maps where the last of repeated keys wins.
    fn from_go(parsed: json::Json) -> J {
        match parsed {
            json::Json::Null => J::Null,
            json::Json::Bool(b) => J::Bool(b),
            json::Json::Number(n) => J::Number(Arc::from(n)),
            json::Json::String(s) => J::String(Arc::from(s)),
            json::Json::Array(items) => {
                J::array(items.into_iter().map(|n| J::from_go(n.json)).collect())
            }
            json::Json::Object(members) => J::object(
                members
                    .into_iter()
                    .map(|(k, n)| (k, J::from_go(n.json)))
                    .collect(),
            ),
        }
    }
}

pub(crate) use terrace_gocompat::json::{quote, write_string};

// ----- from values -----

/// The JSON of a known, unmarked-or-marked value as cty's JSON codec
/// writes it with the value's own type; unknowns inside collections become
/// null and inside maps and objects are left out (jsonplan's
/// `omitUnknowns`). `None` for a wholly unknown value.
pub(crate) fn from_value(v: &Value) -> Option<J> {
    if v.is_null() {
        return Some(J::Null);
    }
    if !v.is_known() {
        return None;
    }
    let ty = v.ty();
    Some(match ty {
        Type::Bool => J::Bool(v.as_bool().unwrap_or(false)),
        Type::Number => J::Number(Arc::from(
            v.as_number()
                .map(|n| n.text('f', -1))
                .unwrap_or_else(|| "0".to_string()),
        )),
        Type::String => J::string(v.as_str().unwrap_or_default()),
        Type::List(_) | Type::Set(_) | Type::Tuple(_) => J::array(
            v.as_elements()
                .unwrap_or_default()
                .iter()
                .map(|e| from_value(e).unwrap_or(J::Null))
                .collect(),
        ),
        Type::Map(_) | Type::Object(_) => J::object(
            v.as_attributes()
                .map(|attrs| {
                    attrs
                        .iter()
                        .filter_map(|(k, e)| from_value(e).map(|j| (k.clone(), j)))
                        .collect()
                })
                .unwrap_or_default(),
        ),
        Type::Dynamic => J::Null,
    })
}

/// jsonplan's `unknownAsBool`: `true` where the value is unknown, with
/// known parts of maps and objects left out.
pub(crate) fn unknown_as_bool(v: &Value) -> J {
    if v.is_null() {
        return J::Bool(false);
    }
    if !v.is_known() {
        return J::Bool(true);
    }
    match v.ty() {
        Type::List(_) | Type::Set(_) | Type::Tuple(_) => J::array(
            v.as_elements()
                .unwrap_or_default()
                .iter()
                .map(unknown_as_bool)
                .collect(),
        ),
        Type::Map(_) | Type::Object(_) => J::object(
            v.as_attributes()
                .map(|attrs| {
                    attrs
                        .iter()
                        .map(|(k, e)| (k.clone(), unknown_as_bool(e)))
                        .filter(|(_, j)| *j != J::Bool(false))
                        .collect()
                })
                .unwrap_or_default(),
        ),
        _ => J::Bool(false),
    }
}

/// jsonstate's `SensitiveAsBool`: `true` where the value is marked
/// sensitive, or where `extra` (the schema's sensitive attributes) says
/// so; non-sensitive parts of maps and objects left out.
pub(crate) fn sensitive_as_bool(v: &Value, extra: &dyn SensitiveOracle) -> J {
    if v.marks().is_sensitive() || extra.here() {
        return J::Bool(true);
    }
    if v.is_null() {
        return J::Bool(false);
    }
    match v.ty() {
        Type::List(_) | Type::Set(_) | Type::Tuple(_) => {
            if !v.is_known() {
                return J::array(Vec::new());
            }
            J::array(
                v.as_elements()
                    .unwrap_or_default()
                    .iter()
                    .enumerate()
                    .map(|(i, e)| sensitive_as_bool(e, &*extra.index(i)))
                    .collect(),
            )
        }
        Type::Map(_) | Type::Object(_) => {
            if !v.is_known() {
                return J::empty_object();
            }
            J::object(
                v.as_attributes()
                    .map(|attrs| {
                        attrs
                            .iter()
                            .map(|(k, e)| (k.clone(), sensitive_as_bool(e, &*extra.key(k))))
                            .filter(|(_, j)| *j != J::Bool(false))
                            .collect()
                    })
                    .unwrap_or_default(),
            )
        }
        _ => J::Bool(false),
    }
}

/// Where a schema says values are sensitive regardless of their marks,
/// followed step by step down a value.
pub(crate) trait SensitiveOracle {
    /// The value here is sensitive.
    fn here(&self) -> bool;
    /// The oracle for element `i` of a sequence or set.
    fn index(&self, i: usize) -> Box<dyn SensitiveOracle + '_>;
    /// The oracle for attribute or map key `k`.
    fn key(&self, k: &str) -> Box<dyn SensitiveOracle + '_>;
}

/// No schema knowledge: only marks count.
pub(crate) struct NoSchema;

impl SensitiveOracle for NoSchema {
    fn here(&self) -> bool {
        false
    }
    fn index(&self, _: usize) -> Box<dyn SensitiveOracle + '_> {
        Box::new(NoSchema)
    }
    fn key(&self, _: &str) -> Box<dyn SensitiveOracle + '_> {
        Box::new(NoSchema)
    }
}

/// A value of the path `path` into a resource object: what the schema's
/// `ValueMarks` would mark.
pub(crate) enum SchemaNode<'a> {
    Block(&'a terrace_providers::Block),
    /// The collection of a nested block type (list, set or map).
    BlockCollection(&'a terrace_providers::Block),
    Nested(&'a terrace_providers::NestedAttributes),
    NestedCollection(&'a terrace_providers::NestedAttributes),
    Sensitive,
    Other,
}

fn attribute_node(a: &terrace_providers::Attribute) -> SchemaNode<'_> {
    use terrace_providers::{AttributeType, ObjectNesting};
    if a.sensitive {
        return SchemaNode::Sensitive;
    }
    match &a.ty {
        AttributeType::Nested(n) => match n.nesting {
            ObjectNesting::Single => SchemaNode::Nested(n),
            _ => SchemaNode::NestedCollection(n),
        },
        AttributeType::Type(_) => SchemaNode::Other,
    }
}

impl SensitiveOracle for SchemaNode<'_> {
    fn here(&self) -> bool {
        matches!(self, SchemaNode::Sensitive)
    }

    fn index(&self, _: usize) -> Box<dyn SensitiveOracle + '_> {
        match self {
            SchemaNode::BlockCollection(b) => Box::new(SchemaNode::Block(b)),
            SchemaNode::NestedCollection(n) => Box::new(SchemaNode::Nested(n)),
            _ => Box::new(NoSchema),
        }
    }

    fn key(&self, k: &str) -> Box<dyn SensitiveOracle + '_> {
        use terrace_providers::NestingMode;
        match self {
            SchemaNode::Block(b) => {
                if let Some(a) = b.attributes.get(k) {
                    return Box::new(attribute_node(a));
                }
                match b.block_types.get(k) {
                    Some(nb) => match nb.nesting {
                        NestingMode::Single | NestingMode::Group => {
                            Box::new(SchemaNode::Block(&nb.block))
                        }
                        _ => Box::new(SchemaNode::BlockCollection(&nb.block)),
                    },
                    None => Box::new(NoSchema),
                }
            }
            SchemaNode::BlockCollection(b) => Box::new(SchemaNode::Block(b)),
            SchemaNode::Nested(n) => match n.attributes.get(k) {
                Some(a) => Box::new(attribute_node(a)),
                None => Box::new(NoSchema),
            },
            SchemaNode::NestedCollection(n) => Box::new(SchemaNode::Nested(n)),
            _ => Box::new(NoSchema),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_write_round_trip() {
        let cases = [
            ("null", "null"),
            ("[1, 2.50, -3e+2]", "[1,2.50,-3e+2]"),
            (
                r#"{"b": [true, false], "a": {}}"#,
                r#"{"a":{},"b":[true,false]}"#,
            ),
            (
                r#""<tag> & \u00e9 \ud83d\ude00""#,
                r#""\u003ctag\u003e \u0026 é 😀""#,
            ),
            (r#"{"k": 1, "k": 2}"#, r#"{"k":2}"#),
        ];
        for (input, want) in cases {
            let j = J::parse(input).unwrap_or_else(|e| panic!("{input}: {e}"));
            assert_eq!(j.to_compact(), want, "{input}");
        }
        for bad in ["", "[1,]", "{\"a\" 1}", "01", "1.", "\"\\x\"", "[1] 2"] {
            assert!(J::parse(bad).is_err(), "{bad:?} parsed");
        }
    }

    #[test]
    fn parse_first_ignores_what_follows_a_compound_value() {
        assert_eq!(
            J::parse_first("[1] trailing").map(|j| j.to_compact()),
            Some("[1]".to_string())
        );
        assert_eq!(J::parse_first("{\"a\":"), None);
        assert_eq!(J::parse_first("12 x"), None);
    }
}
