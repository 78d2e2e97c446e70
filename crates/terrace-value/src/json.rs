//! JSON encoding of cty values, as go-cty's `cty/json` package does it: the
//! typed codec (`to_json`/`from_json`, used for state, plans and
//! `jsonencode`) and the type-inferring side used by `jsondecode`
//! (`implied_type`, `simple_json_to_value`).
//!
//! Output is byte-identical to cty's, which writes strings through Go's
//! `encoding/json` (so `<`, `>`, `&`, U+2028 and U+2029 are escaped) and
//! numbers as `big.Float.Text('f', -1)`. Input is read by a small reader
//! that mimics Go's `json.Decoder` token stream, including its error texts
//! and its quirks (only the first value counts; trailing `]` or `}` after it
//! are ignored), and keeps each number's literal text so it can be parsed at
//! 512 bits. serde_json is not used for reading: its `arbitrary_precision`
//! feature would change number handling for every crate in the workspace,
//! and it collapses duplicate object keys before we can see them.

use crate::convert::{self, PathStep};
use crate::gostr::{quote, quote_rune};
use crate::number::Number;
use crate::refine::nfc;
use crate::types::{ObjectType, Type};
use crate::value::{Repr, Value};
use std::collections::BTreeMap;
use std::fmt;

/// An encoding or decoding failure, with the path to the offending part of
/// the value as cty's `PathError` carries it. `Display` shows only the
/// message, as cty's `PathError.Error()` does.
#[derive(Clone, Debug)]
pub struct CodecError {
    pub path: Vec<PathStep>,
    pub message: String,
}

impl CodecError {
    pub fn new(message: impl Into<String>) -> CodecError {
        CodecError {
            path: Vec::new(),
            message: message.into(),
        }
    }
}

impl fmt::Display for CodecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CodecError {}

// ----- paths -----

/// A path under construction, kept as a chain of stack frames so that
/// recursion does not allocate; it becomes a `Vec<PathStep>` only when an
/// error is reported.
#[derive(Clone, Copy)]
pub(crate) enum Step<'a> {
    Attr(&'a str),
    Index(i64),
    Key(&'a str),
    /// A set element being decoded, which cty identifies by an unknown of
    /// the element type.
    SetElem(&'a Type),
    /// A set element being encoded, which cty identifies by its value.
    Elem(&'a Value),
}

#[derive(Clone, Copy)]
pub(crate) struct Path<'a> {
    parent: Option<&'a Path<'a>>,
    step: Option<Step<'a>>,
}

impl<'a> Path<'a> {
    pub(crate) const ROOT: Path<'static> = Path {
        parent: None,
        step: None,
    };

    pub(crate) fn child(&'a self, step: Step<'a>) -> Path<'a> {
        Path {
            parent: Some(self),
            step: Some(step),
        }
    }

    pub(crate) fn to_steps(self) -> Vec<PathStep> {
        let mut steps = Vec::new();
        let mut cur = Some(&self);
        while let Some(p) = cur {
            if let Some(step) = p.step {
                steps.push(match step {
                    Step::Attr(name) => PathStep::Attr(name.to_string()),
                    Step::Index(i) => PathStep::Index(Value::int(i)),
                    Step::Key(k) => PathStep::Index(Value::string(k)),
                    Step::SetElem(ty) => PathStep::Index(Value::unknown(ty.clone())),
                    Step::Elem(v) => PathStep::Index(v.clone()),
                });
            }
            cur = p.parent;
        }
        steps.reverse();
        steps
    }

    pub(crate) fn error(self, message: impl Into<String>) -> CodecError {
        CodecError {
            path: self.to_steps(),
            message: message.into(),
        }
    }
}

// ----- conformance -----

/// As cty's `Marshal` functions begin: a value whose type does not conform
/// is converted first.
pub(crate) fn conform_value(value: &Value, ty: &Type) -> Result<Value, CodecError> {
    if crate::ops::type_conforms(&value.ty, ty) {
        return Ok(value.clone());
    }
    convert::convert(value, ty).map_err(|e| CodecError {
        path: e.path,
        message: e.message,
    })
}

// ----- value construction shared with msgpack -----

/// cty's `ListVal`/`SetVal`/`MapVal` element-type rule: the collection takes
/// the type of its first element not of type `Dynamic`; null or unknown
/// elements of type `Dynamic` then take that type. cty panics on mixed
/// types, which here is an error.
fn unify_elements(kind: &str, elements: &mut [&mut Value]) -> Result<Type, String> {
    let mut ety = Type::Dynamic;
    for e in elements.iter() {
        if ety.is_dynamic() {
            ety = e.ty.clone();
        } else if !e.ty.is_dynamic() && e.ty != ety {
            return Err(format!(
                "inconsistent {kind} element types ({ety} then {})",
                e.ty
            ));
        }
    }
    if !ety.is_dynamic() {
        for e in elements.iter_mut() {
            if e.ty.is_dynamic() {
                e.ty = ety.clone();
                if let Repr::Unknown(r) = &mut e.repr {
                    *r = None;
                }
            }
        }
    }
    Ok(ety)
}

/// A decoded list: empty lists keep the requested element type, others
/// take their elements' type.
pub(crate) fn build_list(requested_ety: &Type, mut elements: Vec<Value>) -> Result<Value, String> {
    if elements.is_empty() {
        return Ok(Value::list(requested_ety.clone(), elements));
    }
    let ety = unify_elements("list", &mut elements.iter_mut().collect::<Vec<_>>())?;
    Ok(Value::list(ety, elements))
}

pub(crate) fn build_set(requested_ety: &Type, mut elements: Vec<Value>) -> Result<Value, String> {
    if elements.is_empty() {
        return Ok(Value::set(requested_ety.clone(), elements));
    }
    let ety = unify_elements("set", &mut elements.iter_mut().collect::<Vec<_>>())?;
    Ok(Value::set(ety, elements))
}

/// A decoded map; keys are NFC-normalized as cty's `MapVal` does.
pub(crate) fn build_map(
    requested_ety: &Type,
    elements: Vec<(String, Value)>,
) -> Result<Value, String> {
    let mut map: BTreeMap<String, Value> = BTreeMap::new();
    for (k, v) in elements {
        map.insert(nfc(&k), v);
    }
    if map.is_empty() {
        return Ok(Value::map(requested_ety.clone(), map));
    }
    let ety = unify_elements("map", &mut map.values_mut().collect::<Vec<_>>())?;
    Ok(Value::map(ety, map))
}

/// A decoded object; attribute names are NFC-normalized as cty's
/// `ObjectVal` does, and the type follows the attribute values.
pub(crate) fn build_object(attributes: Vec<(String, Value)>) -> Value {
    Value::object(attributes.into_iter().map(|(k, v)| (nfc(&k), v)).collect())
}

pub(crate) use terrace_gocompat::json::lossy_utf8 as go_lossy_utf8;
pub(crate) use terrace_gocompat::json::write_string as write_json_string;

// ----- encoding -----

/// cty `json.Marshal`: the JSON text of `value` such that `from_json` with
/// the same type gives it back. Where `ty` says `Dynamic` the value is
/// wrapped as `{"value":...,"type":...}`. Unknown or marked values cannot
/// be encoded; a value whose type does not conform to `ty` is converted
/// first.
pub fn to_json(value: &Value, ty: &Type) -> Result<String, CodecError> {
    let value = conform_value(value, ty)?;
    let mut out = String::new();
    marshal(&value, ty, Path::ROOT, &mut out)?;
    Ok(out)
}

/// `to_json` as bytes.
pub fn to_json_bytes(value: &Value, ty: &Type) -> Result<Vec<u8>, CodecError> {
    to_json(value, ty).map(String::into_bytes)
}

// As for decoding, compound values are written by their own functions to
// keep the recursing frame small.
fn marshal(val: &Value, ty: &Type, path: Path<'_>, out: &mut String) -> Result<(), CodecError> {
    if val.is_marked() {
        return Err(path.error("value has marks, so it cannot be serialized as JSON"));
    }
    if !val.is_known() {
        return Err(path.error("value is not known"));
    }
    if ty.is_dynamic() && !val.ty.is_dynamic() {
        return marshal_dynamic(val, path, out);
    }
    match (&val.repr, ty) {
        (Repr::Null, _) => out.push_str("null"),
        (Repr::Bool(b), _) => out.push_str(if *b { "true" } else { "false" }),
        (Repr::Number(n), _) => {
            if n.is_infinite() {
                return Err(path.error("cannot serialize infinity as JSON"));
            }
            out.push_str(&n.text('f', -1));
        }
        (Repr::String(s), _) => write_json_string(out, s),
        (Repr::Seq(elems), Type::List(ety) | Type::Set(ety)) => {
            marshal_seq(elems, ty.is_set(), ety, path, out)?
        }
        (Repr::Seq(elems), Type::Tuple(etys)) => marshal_tuple(elems, etys, path, out)?,
        (Repr::Attrs(attrs), Type::Map(ety)) => marshal_map(attrs, ety, path, out)?,
        (Repr::Attrs(attrs), Type::Object(ot)) => marshal_object(attrs, ot, path, out)?,
        _ => return Err(path.error(format!("cannot JSON-serialize {}", ty.friendly_name()))),
    }
    Ok(())
}

fn marshal_seq(
    elems: &[Value],
    is_set: bool,
    ety: &Type,
    path: Path<'_>,
    out: &mut String,
) -> Result<(), CodecError> {
    out.push('[');
    for (i, e) in elems.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let step = if is_set {
            Step::Elem(e)
        } else {
            Step::Index(i as i64)
        };
        marshal(e, ety, path.child(step), out)?;
    }
    out.push(']');
    Ok(())
}

fn marshal_tuple(
    elems: &[Value],
    etys: &[Type],
    path: Path<'_>,
    out: &mut String,
) -> Result<(), CodecError> {
    out.push('[');
    for (i, (e, ety)) in elems.iter().zip(etys.iter()).enumerate() {
        if i > 0 {
            out.push(',');
        }
        marshal(e, ety, path.child(Step::Index(i as i64)), out)?;
    }
    out.push(']');
    Ok(())
}

fn marshal_map(
    attrs: &crate::Attrs,
    ety: &Type,
    path: Path<'_>,
    out: &mut String,
) -> Result<(), CodecError> {
    out.push('{');
    for (i, (k, v)) in attrs.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_json_string(out, k);
        out.push(':');
        marshal(v, ety, path.child(Step::Key(k)), out)?;
    }
    out.push('}');
    Ok(())
}

fn marshal_object(
    attrs: &crate::Attrs,
    ot: &ObjectType,
    path: Path<'_>,
    out: &mut String,
) -> Result<(), CodecError> {
    out.push('{');
    for (i, (name, aty)) in ot.attributes.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let child = path.child(Step::Attr(name));
        let av = attrs
            .get(name)
            .ok_or_else(|| child.error("value has no such attribute"))?;
        write_json_string(out, name);
        out.push(':');
        marshal(av, aty, child, out)?;
    }
    out.push('}');
    Ok(())
}

fn marshal_dynamic(val: &Value, path: Path<'_>, out: &mut String) -> Result<(), CodecError> {
    out.push_str("{\"value\":");
    marshal(val, &val.ty, path, out).map_err(|e| CodecError {
        path: path.to_steps(),
        message: format!("failed to serialize value: {}", e.message),
    })?;
    out.push_str(",\"type\":");
    out.push_str(&crate::typejson::type_to_json(&val.ty));
    out.push('}');
    Ok(())
}

// ----- reading JSON text -----

/// A parsed JSON value. Numbers keep their literal text; objects keep their
/// members in order, duplicates included.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Json {
    Null,
    Bool(bool),
    Number(String),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    /// The word Go's `json.Unmarshal` uses for this kind of value in
    /// "cannot unmarshal ..." errors.
    pub(crate) fn go_kind(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "bool",
            Json::Number(_) => "number",
            Json::String(_) => "string",
            Json::Array(_) => "array",
            Json::Object(_) => "object",
        }
    }
}

/// Nesting deeper than this is refused, as Go's scanner refuses nesting
/// deeper than 10000. The limit here is lower so that reading, decoding,
/// re-encoding and dropping the deepest accepted document stay inside a
/// 2 MiB thread stack even in an unoptimized build.
const MAX_DEPTH: usize = 500;

/// Reads JSON the way Go's `json.Decoder` token stream does, with the same
/// error messages.
pub(crate) struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    depth: usize,
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n')
}

/// Go's "invalid character ..." error; its `quoteChar` quotes the byte as
/// the rune of the same number.
fn invalid_char(c: u8, context: &str) -> String {
    format!("invalid character {}{}", quote_rune(char::from(c)), context)
}

const EOF: &str = "EOF";
const UNEXPECTED_EOF: &str = "unexpected EOF";

impl<'a> Reader<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Reader<'a> {
        Reader {
            buf,
            pos: 0,
            depth: 0,
        }
    }

    fn peek(&mut self) -> Option<u8> {
        while let Some(&c) = self.buf.get(self.pos) {
            if !is_space(c) {
                return Some(c);
            }
            self.pos += 1;
        }
        None
    }

    /// Go's `Decoder.More` after the first value: whether anything other
    /// than `]` or `}` follows.
    pub(crate) fn more(&mut self) -> bool {
        matches!(self.peek(), Some(c) if c != b']' && c != b'}')
    }

    /// The first JSON value in the input.
    pub(crate) fn read_value(&mut self) -> Result<Json, String> {
        let c = self.peek().ok_or(EOF)?;
        match c {
            b'[' => {
                self.pos += 1;
                self.array()
            }
            b'{' => {
                self.pos += 1;
                self.object()
            }
            b']' | b'}' | b':' | b',' => Err(invalid_char(c, " looking for beginning of value")),
            _ => self.scalar(),
        }
    }

    fn enter(&mut self, c: u8) -> Result<(), String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(invalid_char(c, " exceeded max depth"));
        }
        Ok(())
    }

    fn array(&mut self) -> Result<Json, String> {
        self.enter(b'[')?;
        let mut items = Vec::new();
        if self.peek().ok_or(EOF)? == b']' {
            self.pos += 1;
            self.depth -= 1;
            return Ok(Json::Array(items));
        }
        loop {
            items.push(self.read_value()?);
            match self.peek().ok_or(EOF)? {
                b',' => self.pos += 1,
                b']' => {
                    self.pos += 1;
                    break;
                }
                c => return Err(invalid_char(c, " after array element")),
            }
        }
        self.depth -= 1;
        Ok(Json::Array(items))
    }

    fn object(&mut self) -> Result<Json, String> {
        self.enter(b'{')?;
        let mut members = Vec::new();
        match self.peek().ok_or(EOF)? {
            b'}' => {
                self.pos += 1;
                self.depth -= 1;
                return Ok(Json::Object(members));
            }
            b'"' => {}
            // Go's token reader has no context text for this state.
            c => return Err(invalid_char(c, "")),
        }
        loop {
            let key = self.string()?;
            match self.peek().ok_or(EOF)? {
                b':' => self.pos += 1,
                c => return Err(invalid_char(c, " after object key")),
            }
            let value = self.read_value()?;
            members.push((key, value));
            match self.peek().ok_or(EOF)? {
                b',' => self.pos += 1,
                b'}' => {
                    self.pos += 1;
                    break;
                }
                c => return Err(invalid_char(c, " after object key:value pair")),
            }
            match self.peek().ok_or(EOF)? {
                b'"' => {}
                c => {
                    return Err(invalid_char(
                        c,
                        " looking for beginning of object key string",
                    ))
                }
            }
        }
        self.depth -= 1;
        Ok(Json::Object(members))
    }

    /// A string, number or literal, scanned as Go's scanner does for a
    /// single value: it ends at the first byte that cannot continue it.
    fn scalar(&mut self) -> Result<Json, String> {
        let c = self.buf[self.pos];
        match c {
            b'"' => self.string().map(Json::String),
            b'-' | b'0'..=b'9' => self.number(),
            b't' => self.literal(b"true", "true").map(|_| Json::Bool(true)),
            b'f' => self.literal(b"false", "false").map(|_| Json::Bool(false)),
            b'n' => self.literal(b"null", "null").map(|_| Json::Null),
            _ => Err(invalid_char(c, " looking for beginning of value")),
        }
    }

    fn literal(&mut self, word: &[u8], name: &str) -> Result<(), String> {
        for (i, &want) in word.iter().enumerate().skip(1) {
            match self.buf.get(self.pos + i) {
                None => return Err(UNEXPECTED_EOF.into()),
                Some(&c) if c != want => {
                    return Err(invalid_char(
                        c,
                        &format!(" in literal {name} (expecting '{}')", want as char),
                    ))
                }
                Some(_) => {}
            }
        }
        self.pos += word.len();
        Ok(())
    }

    fn number(&mut self) -> Result<Json, String> {
        let start = self.pos;
        let mut i = self.pos;
        let at = |i: usize| self.buf.get(i).copied();
        let digit = |c: Option<u8>| c.is_some_and(|c| c.is_ascii_digit());
        if at(i) == Some(b'-') {
            i += 1;
            match at(i) {
                None => return Err(UNEXPECTED_EOF.into()),
                Some(c) if !c.is_ascii_digit() => {
                    return Err(invalid_char(c, " in numeric literal"))
                }
                _ => {}
            }
        }
        if at(i) == Some(b'0') {
            i += 1;
        } else {
            while digit(at(i)) {
                i += 1;
            }
        }
        if at(i) == Some(b'.') {
            i += 1;
            match at(i) {
                None => return Err(UNEXPECTED_EOF.into()),
                Some(c) if !c.is_ascii_digit() => {
                    return Err(invalid_char(c, " after decimal point in numeric literal"))
                }
                _ => {}
            }
            while digit(at(i)) {
                i += 1;
            }
        }
        if matches!(at(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(at(i), Some(b'+' | b'-')) {
                i += 1;
            }
            match at(i) {
                None => return Err(UNEXPECTED_EOF.into()),
                Some(c) if !c.is_ascii_digit() => {
                    return Err(invalid_char(c, " in exponent of numeric literal"))
                }
                _ => {}
            }
            while digit(at(i)) {
                i += 1;
            }
        }
        self.pos = i;
        // The scanned bytes are all ASCII.
        Ok(Json::Number(
            String::from_utf8_lossy(&self.buf[start..i]).into_owned(),
        ))
    }

    /// A string literal starting at the current `"`, decoded as Go's
    /// `unquote` does (bad UTF-8 and lone surrogates become U+FFFD).
    fn string(&mut self) -> Result<String, String> {
        let start = self.pos + 1;
        let mut i = start;
        let mut has_escape = false;
        loop {
            let Some(&c) = self.buf.get(i) else {
                return Err(UNEXPECTED_EOF.into());
            };
            match c {
                b'"' => break,
                b'\\' => {
                    has_escape = true;
                    i += 1;
                    let Some(&e) = self.buf.get(i) else {
                        return Err(UNEXPECTED_EOF.into());
                    };
                    match e {
                        b'b' | b'f' | b'n' | b'r' | b't' | b'\\' | b'/' | b'"' => i += 1,
                        b'u' => {
                            i += 1;
                            for _ in 0..4 {
                                match self.buf.get(i) {
                                    None => return Err(UNEXPECTED_EOF.into()),
                                    Some(h) if h.is_ascii_hexdigit() => i += 1,
                                    Some(&h) => {
                                        return Err(invalid_char(
                                            h,
                                            " in \\u hexadecimal character escape",
                                        ))
                                    }
                                }
                            }
                        }
                        _ => return Err(invalid_char(e, " in string escape code")),
                    }
                }
                c if c < 0x20 => return Err(invalid_char(c, " in string literal")),
                _ => i += 1,
            }
        }
        self.pos = i + 1;
        let raw = &self.buf[start..i];
        if !has_escape {
            return Ok(go_lossy_utf8(raw));
        }
        Ok(unquote(raw))
    }
}

fn hex4(b: &[u8]) -> Option<u32> {
    let s = std::str::from_utf8(b.get(..4)?).ok()?;
    u32::from_str_radix(s, 16).ok()
}

/// Go's `getu4`: the code unit of a `\uXXXX` escape at the start of `b`.
fn escaped_unit(b: &[u8]) -> Option<u32> {
    if b.len() < 6 || b[0] != b'\\' || b[1] != b'u' {
        return None;
    }
    hex4(&b[2..6])
}

fn unquote(raw: &[u8]) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let c = raw[i];
        if c != b'\\' {
            // Copy the run up to the next escape, with Go's handling of
            // invalid UTF-8.
            let end = raw[i..]
                .iter()
                .position(|&b| b == b'\\')
                .map_or(raw.len(), |p| i + p);
            out.push_str(&go_lossy_utf8(&raw[i..end]));
            i = end;
            continue;
        }
        let e = raw.get(i + 1).copied().unwrap_or(b'\\');
        i += 2;
        match e {
            b'b' => out.push('\u{8}'),
            b'f' => out.push('\u{c}'),
            b'n' => out.push('\n'),
            b'r' => out.push('\r'),
            b't' => out.push('\t'),
            b'u' => {
                let unit = hex4(&raw[i.min(raw.len())..]).unwrap_or(0xFFFD);
                i += 4;
                if (0xD800..0xE000).contains(&unit) {
                    if let Some(low) = escaped_unit(&raw[i.min(raw.len())..]) {
                        if (0xD800..0xDC00).contains(&unit) && (0xDC00..0xE000).contains(&low) {
                            let cp = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                            out.push(char::from_u32(cp).unwrap_or('\u{FFFD}'));
                            i += 6;
                            continue;
                        }
                    }
                    out.push('\u{FFFD}');
                } else {
                    out.push(char::from_u32(unit).unwrap_or('\u{FFFD}'));
                }
            }
            other => out.push(char::from(other)),
        }
    }
    out
}

/// Parses the first JSON value of `buf` (Go's decoder ignores what follows
/// it unless asked), returning the reader so callers can check for more.
pub(crate) fn parse_first(buf: &[u8]) -> Result<(Json, Reader<'_>), String> {
    let mut reader = Reader::new(buf);
    let json = reader.read_value()?;
    Ok((json, reader))
}

// ----- implied types -----

/// cty json's `ImpliedType`: the type `jsondecode` gives its result.
/// Objects become object types, arrays tuple types, `null` `Dynamic`.
/// Anything but `]` or `}` after the first value is an error, as in cty.
pub fn implied_type(buf: &[u8]) -> Result<Type, CodecError> {
    let (json, mut reader) = parse_first(buf).map_err(CodecError::new)?;
    let ty = implied_type_of(&json);
    if reader.more() {
        return Err(CodecError::new("extraneous data after JSON object"));
    }
    Ok(ty)
}

fn implied_type_of(json: &Json) -> Type {
    match json {
        Json::Null => Type::Dynamic,
        Json::Bool(_) => Type::Bool,
        Json::Number(_) => Type::Number,
        Json::String(_) => Type::String,
        Json::Array(items) => {
            let mut elems = Vec::with_capacity(items.len());
            for item in items {
                elems.push(implied_type_of(item));
            }
            Type::tuple(elems)
        }
        Json::Object(members) => {
            // Terraform 1.11 (cty before 1.16.2) lets the last of several
            // same-named properties decide the attribute type; newer cty
            // rejects names repeated with different types. We follow the
            // Terraform release we are compatible with.
            let mut attrs = BTreeMap::new();
            for (k, v) in members {
                attrs.insert(nfc(k), implied_type_of(v));
            }
            Type::object(attrs)
        }
    }
}

/// What `jsondecode` does: the value of the JSON text with its implied
/// type, numbers parsed from their literal text at 512 bits.
pub fn simple_json_to_value(buf: &[u8]) -> Result<Value, CodecError> {
    let ty = implied_type(buf)?;
    from_json(buf, &ty)
}

// ----- decoding -----

/// cty `json.Unmarshal`: decodes JSON text written by `to_json` (or by
/// hand) as a value of type `ty`, converting primitives where cty does
/// (`"true"` to a bool, `"12"` to a number, numbers and bools to strings).
/// Attributes missing from an object become null. Only the first JSON value
/// in `buf` is read.
pub fn from_json(buf: &[u8], ty: &Type) -> Result<Value, CodecError> {
    let (json, _) = parse_first(buf).map_err(CodecError::new)?;
    unmarshal(&json, ty, Path::ROOT)
}

// Each kind of value is decoded by its own function so that the frame
// that recurses stays small: deeply nested input must not exhaust the stack.
fn unmarshal(json: &Json, ty: &Type, path: Path<'_>) -> Result<Value, CodecError> {
    if let Json::Null = json {
        return Ok(Value::null(ty.clone()));
    }
    match ty {
        Type::Dynamic => unmarshal_dynamic(json, path),
        Type::Bool | Type::Number | Type::String => unmarshal_primitive(json, ty, path),
        Type::List(ety) | Type::Set(ety) => unmarshal_seq(json, ty.is_set(), ety, path),
        Type::Map(ety) => unmarshal_map(json, ety, path),
        Type::Tuple(etys) => unmarshal_tuple(json, etys, path),
        Type::Object(ot) => unmarshal_object(json, ot, path),
    }
}

fn unmarshal_primitive(json: &Json, ty: &Type, path: Path<'_>) -> Result<Value, CodecError> {
    match (ty, json) {
        (Type::Bool, Json::Bool(b)) => Ok(Value::bool(*b)),
        (Type::Bool, Json::String(s)) => string_to_bool(s)
            .map(Value::bool)
            .map_err(|m| path.error(m)),
        (Type::Bool, _) => Err(path.error("bool is required")),
        (Type::Number, Json::Number(s) | Json::String(s)) => Number::parse(s)
            .map(Value::number)
            .ok_or_else(|| path.error("a number is required")),
        (Type::Number, _) => Err(path.error("number is required")),
        (_, Json::String(s) | Json::Number(s)) => Ok(Value::string(s)),
        (_, Json::Bool(b)) => Ok(Value::string(if *b { "true" } else { "false" })),
        _ => Err(path.error("string is required")),
    }
}

fn unmarshal_seq(
    json: &Json,
    is_set: bool,
    ety: &Type,
    path: Path<'_>,
) -> Result<Value, CodecError> {
    let Json::Array(items) = json else {
        return Err(path.error("missing expected ["));
    };
    let mut vals = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let step = if is_set {
            Step::SetElem(ety)
        } else {
            Step::Index(i as i64)
        };
        vals.push(unmarshal(item, ety, path.child(step))?);
    }
    let built = if is_set {
        build_set(ety, vals)
    } else {
        build_list(ety, vals)
    };
    built.map_err(|m| path.error(m))
}

fn unmarshal_map(json: &Json, ety: &Type, path: Path<'_>) -> Result<Value, CodecError> {
    let Json::Object(members) = json else {
        return Err(path.error("missing expected {"));
    };
    let mut vals = Vec::with_capacity(members.len());
    for (k, v) in members {
        vals.push((k.clone(), unmarshal(v, ety, path.child(Step::Key(k)))?));
    }
    build_map(ety, vals).map_err(|m| path.error(m))
}

fn unmarshal_tuple(json: &Json, etys: &[Type], path: Path<'_>) -> Result<Value, CodecError> {
    let Json::Array(items) = json else {
        return Err(path.error("missing expected ["));
    };
    if items.len() > etys.len() {
        return Err(path.error(format!("too many tuple elements (need {})", etys.len())));
    }
    let mut vals = Vec::with_capacity(items.len());
    for (i, (item, ety)) in items.iter().zip(etys.iter()).enumerate() {
        vals.push(unmarshal(item, ety, path.child(Step::Index(i as i64)))?);
    }
    if vals.len() != etys.len() {
        return Err(path.error(format!("not enough tuple elements (need {})", etys.len())));
    }
    Ok(Value::tuple(vals))
}

fn unmarshal_object(json: &Json, ot: &ObjectType, path: Path<'_>) -> Result<Value, CodecError> {
    let Json::Object(members) = json else {
        return Err(path.error("missing expected {"));
    };
    let mut vals: BTreeMap<String, Value> = BTreeMap::new();
    for (k, v) in members {
        // cty looks the raw key up among the (normalized) attribute names,
        // so a key that is not in NFC is refused.
        let Some(aty) = ot.attributes.get(k) else {
            return Err(path.error(format!("unsupported attribute {}", quote(k))));
        };
        vals.insert(k.clone(), unmarshal(v, aty, path.child(Step::Attr(k)))?);
    }
    for (k, aty) in &ot.attributes {
        vals.entry(k.clone())
            .or_insert_with(|| Value::null(aty.clone()));
    }
    Ok(build_object(vals.into_iter().collect()))
}

/// cty's string-to-bool conversion, with its messages.
fn string_to_bool(s: &str) -> Result<bool, String> {
    match s {
        "true" | "1" => Ok(true),
        "false" | "0" => Ok(false),
        _ => match s.to_lowercase().as_str() {
            "true" => {
                Err("a bool is required; to convert from string, use lowercase \"true\"".into())
            }
            "false" => {
                Err("a bool is required; to convert from string, use lowercase \"false\"".into())
            }
            _ => Err("a bool is required".into()),
        },
    }
}

fn unmarshal_dynamic(json: &Json, path: Path<'_>) -> Result<Value, CodecError> {
    let Json::Object(members) = json else {
        return Err(path.error("missing expected {"));
    };
    let mut ty = None;
    let mut body = None;
    for (k, v) in members {
        match k.as_str() {
            "type" => {
                let t = crate::typejson::type_from_json_value(v).map_err(|e| {
                    path.error(format!(
                        "failed to decode type for dynamic value: {}",
                        e.message
                    ))
                })?;
                ty = Some(t);
            }
            "value" => body = Some(v),
            _ => {
                return Err(path.error(format!(
                    "invalid key {} in dynamically-typed value",
                    quote(k)
                )))
            }
        }
    }
    let Some(ty) = ty else {
        return Err(path.error("missing type in dynamically-typed value"));
    };
    let Some(body) = body else {
        return Err(path.error("missing value in dynamically-typed value"));
    };
    // cty decodes the body as a separate document and reports failures at
    // the wrapper's path.
    unmarshal(body, &ty, Path::ROOT).map_err(|e| CodecError {
        path: path.to_steps(),
        message: e.message,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Marks;

    fn obj(pairs: Vec<(&str, Value)>) -> Value {
        Value::object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    }

    #[test]
    fn strings_are_escaped_like_go() {
        let cases: &[(&str, &str)] = &[
            ("", r#""""#),
            ("<a&b>", r#""\u003ca\u0026b\u003e""#),
            ("\u{8}\u{c}\n\r\t", r#""\b\f\n\r\t""#),
            ("\u{1}\u{1f}\u{7f}", "\"\\u0001\\u001f\u{7f}\""),
            ("\u{2028}\u{2029}", r#""\u2028\u2029""#),
            ("\"\\/", r#""\"\\/""#),
            ("é😀", "\"é😀\""),
        ];
        for (input, want) in cases {
            let got = to_json(&Value::string(input), &Type::String).unwrap();
            assert_eq!(&got, want, "{input:?}");
        }
    }

    #[test]
    fn encodes_structures() {
        let v = obj(vec![
            ("b<", Value::bool(true)),
            (
                "a",
                Value::list(
                    Type::String,
                    vec![Value::string("x"), Value::null(Type::String)],
                ),
            ),
            ("c", Value::null(Type::Bool)),
            (
                "m",
                Value::map(
                    Type::Bool,
                    [("k".to_string(), Value::bool(false))]
                        .into_iter()
                        .collect(),
                ),
            ),
            ("t", Value::empty_tuple()),
            ("o", Value::empty_object()),
        ]);
        let got = to_json(&v, v.ty()).unwrap();
        assert_eq!(
            got,
            r#"{"a":["x",null],"b\u003c":true,"c":null,"m":{"k":false},"o":{},"t":[]}"#
        );
    }

    #[test]
    fn dynamic_slots_are_wrapped() {
        let ty = Type::object([
            ("a".to_string(), Type::Dynamic),
            ("b".to_string(), Type::Dynamic),
        ]);
        let v = obj(vec![
            ("a", Value::string("x")),
            ("b", Value::null(Type::Dynamic)),
        ]);
        let got = to_json(&v, &ty).unwrap();
        assert_eq!(got, r#"{"a":{"value":"x","type":"string"},"b":null}"#);
        let back = from_json(got.as_bytes(), &ty).unwrap();
        assert_eq!(back.ty(), v.ty());
        assert_eq!(
            back.as_attributes().unwrap().get("a").unwrap().as_str(),
            Some("x")
        );
        assert!(back.as_attributes().unwrap().get("b").unwrap().is_null());

        let list = Value::list(
            Type::list(Type::String),
            vec![Value::list(Type::String, vec![Value::string("z")])],
        );
        let got = to_json(&list, &Type::Dynamic).unwrap();
        assert_eq!(
            got,
            r#"{"value":[["z"]],"type":["list",["list","string"]]}"#
        );
    }

    #[test]
    fn unknown_and_marked_values_are_errors() {
        let err = to_json(&Value::unknown(Type::String), &Type::String).unwrap_err();
        assert_eq!(err.message, "value is not known");
        let v = obj(vec![("a", Value::string("s").mark(Marks::SENSITIVE))]);
        let err = to_json(&v, v.ty()).unwrap_err();
        assert_eq!(
            err.message,
            "value has marks, so it cannot be serialized as JSON"
        );
        assert!(matches!(err.path.as_slice(), [PathStep::Attr(a)] if a == "a"));
        let err = to_json(&Value::dynamic(), &Type::Dynamic).unwrap_err();
        assert_eq!(err.message, "value is not known");
    }

    #[test]
    fn syntax_errors_match_go() {
        let cases: &[(&str, &str)] = &[
            ("", "EOF"),
            ("   ", "EOF"),
            ("[", "EOF"),
            ("[1,2", "EOF"),
            ("{\"a\":1", "EOF"),
            ("{\"a\"", "EOF"),
            (
                "[1,]",
                "invalid character ']' looking for beginning of value",
            ),
            ("{1:2}", "invalid character '1'"),
            ("{\"a\" 1}", "invalid character '1' after object key"),
            (
                "{\"a\":1,}",
                "invalid character '}' looking for beginning of object key string",
            ),
            (
                "{\"a\":1 \"b\"}",
                "invalid character '\"' after object key:value pair",
            ),
            ("[1 2]", "invalid character '2' after array element"),
            ("\"abc", "unexpected EOF"),
            ("tru", "unexpected EOF"),
            ("-", "unexpected EOF"),
            ("1.", "unexpected EOF"),
            (
                "nulx",
                "invalid character 'x' in literal null (expecting 'l')",
            ),
            (
                "[nulx]",
                "invalid character 'x' in literal null (expecting 'l')",
            ),
            ("\"\\x\"", "invalid character 'x' in string escape code"),
            (
                " \"\\u12\" ",
                "invalid character '\"' in \\u hexadecimal character escape",
            ),
            ("\"a\nb\"", "invalid character '\\n' in string literal"),
            (
                "[1e]",
                "invalid character ']' in exponent of numeric literal",
            ),
            (
                "[1.x]",
                "invalid character 'x' after decimal point in numeric literal",
            ),
            ("[-x]", "invalid character 'x' in numeric literal"),
            ("x", "invalid character 'x' looking for beginning of value"),
            ("]", "invalid character ']' looking for beginning of value"),
            (
                "\u{1}",
                "invalid character '\\x01' looking for beginning of value",
            ),
            (
                "'",
                "invalid character '\\'' looking for beginning of value",
            ),
            ("1 2", "extraneous data after JSON object"),
            ("01", "extraneous data after JSON object"),
        ];
        for (input, want) in cases {
            let err = implied_type(input.as_bytes()).unwrap_err();
            assert_eq!(&err.message, want, "input {input:?}");
        }
    }

    #[test]
    fn trailing_close_delimiters_are_ignored_as_in_go() {
        assert_eq!(
            implied_type(b"[true]]").unwrap(),
            Type::tuple(vec![Type::Bool])
        );
        assert_eq!(
            implied_type(b"{\"a\":\"x\"}}").unwrap(),
            Type::object([("a".to_string(), Type::String)])
        );
        assert_eq!(implied_type(b"true ]").unwrap(), Type::Bool);
    }

    #[test]
    fn implied_types() {
        let cases: Vec<(&str, Type)> = vec![
            ("null", Type::Dynamic),
            ("true", Type::Bool),
            ("\"s\"", Type::String),
            ("[]", Type::empty_tuple()),
            ("{}", Type::empty_object()),
            (
                "[\"a\", true, null, [], {\"x\": [false]}]",
                Type::tuple(vec![
                    Type::String,
                    Type::Bool,
                    Type::Dynamic,
                    Type::empty_tuple(),
                    Type::object([("x".to_string(), Type::tuple(vec![Type::Bool]))]),
                ]),
            ),
            // The last of several same-named properties decides, as in Terraform 1.11.
            (
                "{\"a\": true, \"a\": \"x\"}",
                Type::object([("a".to_string(), Type::String)]),
            ),
            // Attribute names are normalized.
            (
                "{\"e\\u0301\": true}",
                Type::object([("\u{e9}".to_string(), Type::Bool)]),
            ),
        ];
        for (input, want) in cases {
            assert_eq!(implied_type(input.as_bytes()).unwrap(), want, "{input}");
        }
    }

    #[test]
    fn simple_values_without_numbers() {
        let v = simple_json_to_value(
            b"{\"a\": [true, \"x\", null], \"b\": {}, \"a\": [false, \"y\", null]}",
        )
        .unwrap();
        let a = &v.as_attributes().unwrap().get("a").unwrap();
        assert_eq!(a.as_elements().unwrap()[0].as_bool(), Some(false));
        assert_eq!(a.as_elements().unwrap()[1].as_str(), Some("y"));
        assert!(a.as_elements().unwrap()[2].is_null());
        assert_eq!(a.as_elements().unwrap()[2].ty(), &Type::Dynamic);

        // A non-NFC key is accepted by the implied type but then refused,
        // as Terraform does.
        let err = simple_json_to_value(b"{\"e\\u0301\": true}").unwrap_err();
        assert_eq!(err.message, "unsupported attribute \"e\u{301}\"");

        let err = simple_json_to_value(b"{\"a\": \"x\", \"a\": true}").unwrap_err();
        assert_eq!(err.message, "a bool is required");
    }

    #[test]
    fn string_unquoting_follows_go() {
        let cases: &[(&[u8], &str)] = &[
            (b"\"\\ud83d\\ude00\"", "😀"),
            (b"\"\\ud800x\"", "\u{FFFD}x"),
            (b"\"\\udc00\\ud800\"", "\u{FFFD}\u{FFFD}"),
            (b"\"\\ud800\\u0041\"", "\u{FFFD}A"),
            (b"\"a\\/b\\\\c\\\"\"", "a/b\\c\""),
            (b"\"\xff\xe2\x82A\"", "\u{FFFD}\u{FFFD}\u{FFFD}A"),
            (b"\"\\u00e9\\u0000\"", "\u{e9}\u{0}"),
        ];
        for (input, want) in cases {
            let v = from_json(input, &Type::String).unwrap();
            assert_eq!(
                v.as_str(),
                Some(*want),
                "{:?}",
                String::from_utf8_lossy(input)
            );
        }
    }

    #[test]
    fn primitive_conversions_while_decoding() {
        assert_eq!(
            from_json(b"\"true\"", &Type::Bool).unwrap().as_bool(),
            Some(true)
        );
        assert_eq!(
            from_json(b"\"0\"", &Type::Bool).unwrap().as_bool(),
            Some(false)
        );
        assert_eq!(
            from_json(b"\"TRUE\"", &Type::Bool).unwrap_err().message,
            "a bool is required; to convert from string, use lowercase \"true\""
        );
        assert_eq!(
            from_json(b"[]", &Type::Bool).unwrap_err().message,
            "bool is required"
        );
        assert_eq!(
            from_json(b"true", &Type::String).unwrap().as_str(),
            Some("true")
        );
        assert_eq!(
            from_json(b"1e3", &Type::String).unwrap().as_str(),
            Some("1e3")
        );
        assert_eq!(
            from_json(b"{}", &Type::String).unwrap_err().message,
            "string is required"
        );
        assert_eq!(
            from_json(b"true", &Type::Number).unwrap_err().message,
            "number is required"
        );
        assert!(from_json(b"null", &Type::list(Type::Bool))
            .unwrap()
            .is_null());
    }

    #[test]
    fn structural_decoding_errors() {
        let t2 = Type::tuple(vec![Type::Bool, Type::Bool]);
        assert_eq!(
            from_json(b"[true]", &t2).unwrap_err().message,
            "not enough tuple elements (need 2)"
        );
        assert_eq!(
            from_json(b"[true,true,true]", &t2).unwrap_err().message,
            "too many tuple elements (need 2)"
        );
        assert_eq!(
            from_json(b"{}", &t2).unwrap_err().message,
            "missing expected ["
        );
        let ot = Type::object([("a".to_string(), Type::Bool)]);
        assert_eq!(
            from_json(b"[]", &ot).unwrap_err().message,
            "missing expected {"
        );
        let err = from_json(b"{\"b\": true}", &ot).unwrap_err();
        assert_eq!(err.message, "unsupported attribute \"b\"");
        assert!(err.path.is_empty());
        let v = from_json(b"{}", &ot).unwrap();
        assert!(v.as_attributes().unwrap().get("a").unwrap().is_null());
        let err = from_json(b"{\"a\": \"nope\"}", &ot).unwrap_err();
        assert!(matches!(err.path.as_slice(), [PathStep::Attr(a)] if a == "a"));

        let err = from_json(b"{\"value\": true}", &Type::Dynamic).unwrap_err();
        assert_eq!(err.message, "missing type in dynamically-typed value");
        let err = from_json(b"{\"type\": \"bool\"}", &Type::Dynamic).unwrap_err();
        assert_eq!(err.message, "missing value in dynamically-typed value");
        let err = from_json(b"{\"type\": \"bool\", \"x\": 1}", &Type::Dynamic).unwrap_err();
        assert_eq!(err.message, "invalid key \"x\" in dynamically-typed value");
        let err = from_json(b"{\"type\": \"boolean\", \"value\": 1}", &Type::Dynamic).unwrap_err();
        assert_eq!(
            err.message,
            "failed to decode type for dynamic value: invalid primitive type name \"boolean\""
        );
        let v = from_json(
            b"{\"value\": null, \"type\": [\"list\",\"bool\"]}",
            &Type::Dynamic,
        )
        .unwrap();
        assert!(v.is_null());
        assert_eq!(v.ty(), &Type::list(Type::Bool));
    }

    #[test]
    fn mixed_dynamic_list_elements() {
        let ty = Type::list(Type::Dynamic);
        let v = from_json(b"[null, {\"value\":\"a\",\"type\":\"string\"}]", &ty).unwrap();
        assert_eq!(v.ty(), &Type::list(Type::String));
        let elems = v.as_elements().unwrap();
        assert!(elems[0].is_null());
        assert_eq!(elems[0].ty(), &Type::String);
        let err = from_json(
            b"[{\"value\":\"a\",\"type\":\"string\"}, {\"value\":true,\"type\":\"bool\"}]",
            &ty,
        )
        .unwrap_err();
        assert_eq!(
            err.message,
            "inconsistent list element types (string then bool)"
        );
    }

    #[test]
    fn values_are_converted_to_the_wanted_type_first() {
        assert_eq!(to_json(&Value::string("12"), &Type::Number).unwrap(), "12");
        let want = Type::object_with_optional(
            [
                ("a".to_string(), Type::String),
                ("b".to_string(), Type::Bool),
            ]
            .into_iter()
            .collect(),
            ["b".to_string()].into_iter().collect(),
        );
        let v = obj(vec![("a", Value::bool(true))]);
        assert_eq!(to_json(&v, &want).unwrap(), r#"{"a":"true","b":null}"#);
        let err = to_json(&Value::string("x"), &Type::Number).unwrap_err();
        assert!(err.message.contains("number"), "{}", err.message);
    }

    #[test]
    fn numbers() {
        let n = |s: &str| Value::number(Number::parse(s).unwrap());
        let cases: Vec<(Value, &str)> = vec![
            (Value::int(0), "0"),
            (Value::int(-12), "-12"),
            (n("1e30"), "1000000000000000000000000000000"),
            (n("0.1"), "0.1"),
            (n("-0"), "-0"),
            (n("1.5e-7"), "0.00000015"),
            (Value::number(Number::from_f64(0.1).unwrap()), "0.1"),
            (
                n("123456789012345678901234567890.5"),
                "123456789012345678901234567890.5",
            ),
        ];
        for (v, want) in cases {
            assert_eq!(to_json(&v, &Type::Number).unwrap(), want);
        }
        let err = to_json(&Value::number(Number::infinity(false)), &Type::Number).unwrap_err();
        assert_eq!(err.message, "cannot serialize infinity as JSON");

        // Decoded numbers keep the full precision of their text.
        let v = simple_json_to_value(b"[0.1, 1e400, 12345678901234567890123, -0]").unwrap();
        let texts: Vec<String> = v
            .as_elements()
            .unwrap()
            .iter()
            .map(|e| e.as_number().unwrap().text('f', -1))
            .collect();
        assert_eq!(texts[0], "0.1");
        assert_eq!(texts[1], format!("1{}", "0".repeat(400)));
        assert_eq!(texts[2], "12345678901234567890123");
        assert_eq!(texts[3], "-0");
        assert_eq!(
            v.as_elements().unwrap()[0].as_number().unwrap().precision(),
            512
        );
        // Numbers may come as strings, and strings as numbers.
        assert_eq!(
            from_json(b"\"12\"", &Type::Number)
                .unwrap()
                .as_number()
                .unwrap()
                .to_i64(),
            Some(12)
        );
        assert_eq!(
            from_json(b"\"x\"", &Type::Number).unwrap_err().message,
            "a number is required"
        );
        assert_eq!(
            from_json(b"1.50", &Type::String).unwrap().as_str(),
            Some("1.50")
        );
    }

    #[test]
    fn roundtrip_generated_values() {
        use testgen::{gen_type, gen_value, Options, Rng};
        let opts = Options {
            unknowns: false,
            infinities: false,
            numbers: true,
        };
        let mut rng = Rng::new(7);
        for case in 0..3000 {
            let ty = gen_type(&mut rng, 3, opts);
            let value = gen_value(&mut rng, &ty, 3, opts);
            let text = to_json(&value, &ty)
                .unwrap_or_else(|e| panic!("case {case}: encoding {value:?} as {ty}: {e}"));
            let back = from_json(text.as_bytes(), &ty)
                .unwrap_or_else(|e| panic!("case {case}: decoding {text} as {ty}: {e}"));
            assert!(
                back.raw_equals(&value),
                "case {case}: {ty}\n  sent {value:?}\n  got  {back:?}\n  via  {text}"
            );
            assert_eq!(
                to_json(&back, &ty).unwrap(),
                text,
                "case {case}: re-encoding"
            );
            // Without dynamic slots the text is plain JSON that jsondecode
            // reads back with the same text.
            if !ty.has_dynamic_types() {
                let simple = simple_json_to_value(text.as_bytes()).unwrap();
                assert_eq!(
                    to_json(&simple, simple.ty()).unwrap(),
                    text,
                    "case {case}: simple decoding"
                );
            }
        }
    }

    #[test]
    fn deep_nesting_is_refused_not_crashed() {
        let deep = "[".repeat(MAX_DEPTH + 1);
        let err = implied_type(deep.as_bytes()).unwrap_err();
        assert_eq!(err.message, "invalid character '[' exceeded max depth");
        // The deepest accepted document goes through every recursive step
        // on a small stack.
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        let handle = std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || {
                let v = simple_json_to_value(ok.as_bytes()).map_err(|e| e.message)?;
                let text = to_json(&v, v.ty()).map_err(|e| e.message)?;
                let bytes = crate::msgpack::encode(&v, v.ty()).map_err(|e| e.message)?;
                let back = crate::msgpack::decode(&bytes, v.ty()).map_err(|e| e.message)?;
                if !back.raw_equals(&v) {
                    return Err("msgpack round trip changed the value".to_string());
                }
                // A list type takes one JSON array per level.
                let mut deep_type = Type::Bool;
                for _ in 1..MAX_DEPTH {
                    deep_type = Type::list(deep_type);
                }
                let tj = crate::typejson::type_to_json(&deep_type);
                let back_type =
                    crate::typejson::type_from_json(tj.as_bytes()).map_err(|e| e.message)?;
                if back_type != deep_type {
                    return Err("type JSON round trip changed the type".to_string());
                }
                Ok::<usize, String>(text.len())
            })
            .unwrap();
        assert_eq!(handle.join().unwrap(), Ok(2 * MAX_DEPTH));
    }
}

/// Deterministic random types and values for the codec round-trip tests.
#[cfg(test)]
pub(crate) mod testgen {
    use crate::number::Number;
    use crate::types::Type;
    use crate::value::{Refinement, Value};
    use std::collections::{BTreeMap, BTreeSet};

    /// splitmix64: small, deterministic, good enough for test data.
    pub(crate) struct Rng(u64);

    impl Rng {
        pub(crate) fn new(seed: u64) -> Rng {
            Rng(seed)
        }
        pub(crate) fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
        pub(crate) fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
        pub(crate) fn chance(&mut self, percent: u64) -> bool {
            self.below(100) < percent
        }
        pub(crate) fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
            &xs[self.below(xs.len() as u64) as usize]
        }
    }

    #[derive(Clone, Copy)]
    pub(crate) struct Options {
        /// Unknown values (msgpack only).
        pub(crate) unknowns: bool,
        /// Infinite numbers (msgpack only).
        pub(crate) infinities: bool,
        /// Numbers at all (they need the number implementation).
        pub(crate) numbers: bool,
    }

    pub(crate) const NAMES: &[&str] = &[
        "a",
        "b",
        "id",
        "",
        "é",
        "<&>",
        "with space",
        "x\u{2028}",
        "日本",
    ];
    const STRINGS: &[&str] = &[
        "",
        "hello",
        "<a&b>",
        "é",
        "😀",
        "line\nbreak",
        "tab\t\"q\"\\",
        "\u{1}\u{1f}\u{7f}",
        "\u{2028}\u{2029}",
        "日本語",
        "a string that is longer than thirty-one bytes, so str8",
    ];
    const DECIMALS: &[&str] = &[
        "0.1",
        "0.8",
        "-2.5",
        "1e30",
        "1e-7",
        "123456789012345678901234567890",
        "9223372036854775808",
        "-9223372036854775809",
        "18446744073709551616",
        "3.14159265358979323846264338327950288419716939937510",
    ];
    const INTS: &[i64] = &[
        0,
        1,
        -1,
        31,
        -32,
        -33,
        127,
        128,
        255,
        256,
        -128,
        -129,
        65535,
        65536,
        -32768,
        -32769,
        2147483647,
        -2147483648,
        -2147483649,
        4294967295,
        4294967296,
        i64::MAX,
        i64::MIN,
    ];

    pub(crate) fn gen_type(rng: &mut Rng, depth: u32, opts: Options) -> Type {
        let leaf = depth == 0 || rng.chance(35);
        let choice = if leaf { rng.below(4) } else { 4 + rng.below(5) };
        match choice {
            0 => Type::Bool,
            1 if opts.numbers => Type::Number,
            1 | 2 => Type::String,
            3 => Type::Dynamic,
            4 => Type::list(gen_type(rng, depth - 1, opts)),
            5 => Type::set(gen_type(rng, depth - 1, opts)),
            6 => Type::map(gen_type(rng, depth - 1, opts)),
            7 => {
                let mut attrs = BTreeMap::new();
                for _ in 0..rng.below(4) {
                    attrs.insert(rng.pick(NAMES).to_string(), gen_type(rng, depth - 1, opts));
                }
                let optional: BTreeSet<String> =
                    attrs.keys().filter(|_| rng.chance(20)).cloned().collect();
                Type::object_with_optional(attrs, optional)
            }
            _ => Type::tuple(
                (0..rng.below(4))
                    .map(|_| gen_type(rng, depth - 1, opts))
                    .collect(),
            ),
        }
    }

    /// A type like `ty` with every `Dynamic` replaced by a concrete type.
    fn concretize(rng: &mut Rng, ty: &Type, opts: Options) -> Type {
        match ty {
            Type::Dynamic => {
                let ty = gen_type(rng, 1, opts);
                concretize(rng, &ty, opts)
            }
            Type::List(e) => Type::list(concretize(rng, e, opts)),
            Type::Set(e) => Type::set(concretize(rng, e, opts)),
            Type::Map(e) => Type::map(concretize(rng, e, opts)),
            Type::Object(o) => Type::object(
                o.attributes
                    .iter()
                    .map(|(k, t)| (k.clone(), concretize(rng, t, opts))),
            ),
            Type::Tuple(ts) => Type::tuple(ts.iter().map(|t| concretize(rng, t, opts)).collect()),
            _ => ty.clone(),
        }
    }

    fn gen_number(rng: &mut Rng, opts: Options) -> Number {
        match rng.below(if opts.infinities { 5 } else { 4 }) {
            0 => Number::from_i64(*rng.pick(INTS)),
            1 => Number::from_i64(
                (rng.next() >> rng.below(64)) as i64 * if rng.chance(50) { -1 } else { 1 },
            ),
            2 => Number::parse(rng.pick::<&str>(DECIMALS)).expect("test decimals parse"),
            // Only non-integers: cty writes a float64-precision integer beyond
            // int64 as its shortest text, which does not read back exactly.
            3 => Number::from_f64(*rng.pick(&[1.5, -0.375, 0.1, 1e-300, 4503599627370495.5]))
                .expect("test floats are numbers"),
            _ => Number::infinity(rng.chance(50)),
        }
    }

    /// A value that can be encoded in a slot of type `schema` and decoded
    /// back unchanged: its type conforms to `schema`, and null or unknown
    /// values appear only where the decoder can recover their type.
    pub(crate) fn gen_value(rng: &mut Rng, schema: &Type, depth: u32, opts: Options) -> Value {
        if schema.is_dynamic() {
            return match rng.below(20) {
                0..=2 => Value::null(Type::Dynamic),
                3 if opts.unknowns => Value::dynamic(),
                _ => {
                    let ty = gen_type(rng, depth, opts);
                    gen_value(rng, &ty, depth, opts)
                }
            };
        }
        let concrete = concretize(rng, schema, opts);
        gen_exact(rng, schema, &concrete, depth, opts)
    }

    /// A value of exactly type `concrete` (which conforms to `schema`).
    fn gen_exact(
        rng: &mut Rng,
        schema: &Type,
        concrete: &Type,
        depth: u32,
        opts: Options,
    ) -> Value {
        // A null or unknown value carries no type of its own on the wire:
        // the decoder uses the schema type, or the type of a dynamic
        // wrapper.
        let typed_on_wire = schema.is_dynamic() || schema == concrete;
        if typed_on_wire && rng.chance(10) {
            return Value::null(concrete.clone());
        }
        if typed_on_wire && opts.unknowns && rng.chance(10) {
            return gen_unknown(rng, concrete, opts);
        }
        let schema = if schema.is_dynamic() {
            concrete
        } else {
            schema
        };
        // Likewise an empty collection takes the schema's element type.
        let count = |rng: &mut Rng, se: &Type, ce: &Type| {
            if se != ce {
                1 + rng.below(3)
            } else {
                rng.below(4)
            }
        };
        match (schema, concrete) {
            (_, Type::Bool) => Value::bool(rng.chance(50)),
            (_, Type::Number) => Value::number(gen_number(rng, opts)),
            (_, Type::String) => Value::string(rng.pick(STRINGS)),
            (Type::List(se), Type::List(ce)) | (Type::Set(se), Type::Set(ce)) => {
                let n = count(rng, se, ce);
                let elems = (0..n)
                    .map(|_| gen_exact(rng, se, ce, depth.saturating_sub(1), opts))
                    .collect();
                if concrete.is_set() {
                    Value::set((**ce).clone(), elems)
                } else {
                    Value::list((**ce).clone(), elems)
                }
            }
            (Type::Map(se), Type::Map(ce)) => {
                let n = count(rng, se, ce);
                let elems = (0..n)
                    .map(|_| {
                        (
                            rng.pick(NAMES).to_string(),
                            gen_exact(rng, se, ce, depth.saturating_sub(1), opts),
                        )
                    })
                    .collect();
                Value::map((**ce).clone(), elems)
            }
            (Type::Object(so), Type::Object(co)) => Value::object(
                so.attributes
                    .iter()
                    .zip(co.attributes.values())
                    .map(|((k, st), ct)| {
                        (
                            k.clone(),
                            gen_exact(rng, st, ct, depth.saturating_sub(1), opts),
                        )
                    })
                    .collect(),
            ),
            (Type::Tuple(st), Type::Tuple(ct)) => Value::tuple(
                st.iter()
                    .zip(ct.iter())
                    .map(|(s, c)| gen_exact(rng, s, c, depth.saturating_sub(1), opts))
                    .collect(),
            ),
            _ => Value::null(concrete.clone()),
        }
    }

    /// An unknown with refinements that survive encoding unchanged.
    fn gen_unknown(rng: &mut Rng, ty: &Type, opts: Options) -> Value {
        let mut r = Refinement {
            not_null: rng.chance(50),
            ..Refinement::default()
        };
        match ty {
            Type::String if rng.chance(60) => {
                r.string_prefix = Some(rng.pick(&["ami-", "foo", "é-", "<", "x y"]).to_string());
            }
            Type::Number if opts.numbers => {
                if rng.chance(50) {
                    r.number_lower =
                        Some((Number::from_i64(-(rng.below(100) as i64)), rng.chance(50)));
                }
                if rng.chance(50) {
                    r.number_upper =
                        Some((Number::from_i64(1 + rng.below(100) as i64), rng.chance(50)));
                }
            }
            t if t.is_collection() => {
                let lower = rng.below(4);
                if lower > 0 {
                    r.length_lower = Some(lower);
                }
                if rng.chance(50) {
                    r.length_upper = Some(lower + 1 + rng.below(5));
                }
            }
            _ => {}
        }
        Value::unknown_refined(ty.clone(), r)
    }
}
