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
        let mut p = Parser {
            s: text.as_bytes(),
            pos: 0,
        };
        p.skip_ws();
        let v = p.value(0)?;
        p.skip_ws();
        if p.pos != p.s.len() {
            return Err(format!(
                "invalid character {:?} after top-level value",
                p.s[p.pos] as char
            ));
        }
        Ok(v)
    }

    /// What Go's `json.Decoder.Decode` reads from the start of `text`: the
    /// first value, ignoring whatever follows a complete object or array.
    pub(crate) fn parse_first(text: &str) -> Option<J> {
        let mut p = Parser {
            s: text.as_bytes(),
            pos: 0,
        };
        p.skip_ws();
        let v = p.value(0).ok()?;
        match v {
            J::Array(_) | J::Object(_) => Some(v),
            // A scalar ends only at a delimiter, so what follows counts.
            _ => {
                p.skip_ws();
                (p.pos == p.s.len()).then_some(v)
            }
        }
    }
}

/// Writes `s` as Go's `encoding/json` does, with HTML escaping.
pub(crate) fn write_string(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '<' || c == '>' || c == '&' => {
                let b = c as u32 as usize;
                out.push_str("\\u00");
                out.push(HEX[b >> 4] as char);
                out.push(HEX[b & 0xf] as char);
            }
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out.push('"');
}

pub(crate) fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    write_string(&mut out, s);
    out
}

/// Deep enough for any real value, shallow enough for the stack.
const MAX_DEPTH: usize = 10_000;

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.s.get(self.pos) {
            self.pos += 1;
        }
    }

    fn err(&self, what: &str) -> String {
        format!("{what} at offset {}", self.pos)
    }

    fn value(&mut self, depth: usize) -> Result<J, String> {
        if depth > MAX_DEPTH {
            return Err(self.err("exceeded max depth"));
        }
        match self.s.get(self.pos) {
            None => Err(self.err("unexpected end of JSON input")),
            Some(b'{') => {
                self.pos += 1;
                let mut attrs = BTreeMap::new();
                self.skip_ws();
                if self.s.get(self.pos) == Some(&b'}') {
                    self.pos += 1;
                    return Ok(J::object(attrs));
                }
                loop {
                    self.skip_ws();
                    if self.s.get(self.pos) != Some(&b'"') {
                        return Err(self.err("expected object key"));
                    }
                    let key = self.string()?;
                    self.skip_ws();
                    if self.s.get(self.pos) != Some(&b':') {
                        return Err(self.err("expected colon"));
                    }
                    self.pos += 1;
                    self.skip_ws();
                    let v = self.value(depth + 1)?;
                    // Go keeps the last of duplicate keys.
                    attrs.insert(key, v);
                    self.skip_ws();
                    match self.s.get(self.pos) {
                        Some(b',') => self.pos += 1,
                        Some(b'}') => {
                            self.pos += 1;
                            return Ok(J::object(attrs));
                        }
                        _ => return Err(self.err("expected , or }")),
                    }
                }
            }
            Some(b'[') => {
                self.pos += 1;
                let mut elems = Vec::new();
                self.skip_ws();
                if self.s.get(self.pos) == Some(&b']') {
                    self.pos += 1;
                    return Ok(J::array(elems));
                }
                loop {
                    self.skip_ws();
                    elems.push(self.value(depth + 1)?);
                    self.skip_ws();
                    match self.s.get(self.pos) {
                        Some(b',') => self.pos += 1,
                        Some(b']') => {
                            self.pos += 1;
                            return Ok(J::array(elems));
                        }
                        _ => return Err(self.err("expected , or ]")),
                    }
                }
            }
            Some(b'"') => Ok(J::String(Arc::from(self.string()?))),
            Some(b't') => self.literal("true", J::Bool(true)),
            Some(b'f') => self.literal("false", J::Bool(false)),
            Some(b'n') => self.literal("null", J::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.err("invalid character")),
        }
    }

    fn literal(&mut self, word: &str, v: J) -> Result<J, String> {
        if self.s[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(v)
        } else {
            Err(self.err("invalid literal"))
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while let Some(b'0'..=b'9') = self.s.get(self.pos) {
            self.pos += 1;
        }
        self.pos - start
    }

    fn number(&mut self) -> Result<J, String> {
        let start = self.pos;
        if self.s.get(self.pos) == Some(&b'-') {
            self.pos += 1;
        }
        match self.s.get(self.pos) {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.err("invalid number")),
        }
        if self.s.get(self.pos) == Some(&b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return Err(self.err("invalid number"));
            }
        }
        if let Some(b'e' | b'E') = self.s.get(self.pos) {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.s.get(self.pos) {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(self.err("invalid number"));
            }
        }
        let text = std::str::from_utf8(&self.s[start..self.pos])
            .map_err(|_| self.err("invalid number"))?;
        Ok(J::Number(Arc::from(text)))
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let h = self
            .s
            .get(self.pos..self.pos + 4)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .ok_or_else(|| self.err("invalid escape"))?;
        self.pos += 4;
        Ok(h)
    }

    fn string(&mut self) -> Result<String, String> {
        // The caller saw the opening quote.
        self.pos += 1;
        let mut out = String::new();
        loop {
            let start = self.pos;
            while let Some(&b) = self.s.get(self.pos) {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.pos += 1;
            }
            out.push_str(&String::from_utf8_lossy(&self.s[start..self.pos]));
            match self.s.get(self.pos) {
                None => return Err(self.err("unexpected end of string")),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let Some(&e) = self.s.get(self.pos) else {
                        return Err(self.err("unexpected end of string"));
                    };
                    self.pos += 1;
                    match e {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let hi = self.hex4()?;
                            let c = if (0xd800..0xdc00).contains(&hi)
                                && self.s.get(self.pos..self.pos + 2) == Some(b"\\u")
                            {
                                let save = self.pos;
                                self.pos += 2;
                                let lo = self.hex4()?;
                                if (0xdc00..0xe000).contains(&lo) {
                                    char::from_u32(0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00))
                                } else {
                                    self.pos = save;
                                    None
                                }
                            } else {
                                char::from_u32(hi)
                            };
                            // Go decodes lone surrogates as U+FFFD.
                            out.push(c.unwrap_or('\u{fffd}'));
                        }
                        _ => return Err(self.err("invalid escape")),
                    }
                }
                Some(_) => return Err(self.err("invalid character in string")),
            }
        }
    }
}

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
