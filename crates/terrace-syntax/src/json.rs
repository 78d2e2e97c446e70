//! HCL's JSON syntax: a strict JSON parser with byte spans (no comments,
//! no trailing commas, HCL's exact error messages and recovery), and the
//! expression-mode reading of JSON values, where strings are templates.

use crate::ast::{
    Expr, ExprKind, ExprOrigin, JsonBody, JsonProperty, JsonValue, JsonValueKind, ObjectItem,
    ObjectKey, SourceFile,
};
use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::lexer::ScanMode;
use crate::parser::Parser;
use crate::pos::Span;
use crate::text::{name_suggestion, SpanMap};
use terrace_value::gostr;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum JK {
    BraceO,
    BraceC,
    BrackO,
    BrackC,
    Comma,
    Colon,
    Equals,
    Keyword,
    String,
    Number,
    Eof,
    Invalid,
}

#[derive(Clone, Copy, Debug)]
struct JTok {
    kind: JK,
    start: u32,
    end: u32,
}

impl JTok {
    fn span(self) -> Span {
        Span {
            start: self.start,
            end: self.end,
        }
    }
}

/// Splits JSON text into tokens, leniently (whole runs of number-ish or
/// letter characters) so the parser can say what is wrong with them. Stops
/// at the first character that cannot start a token.
fn scan(text: &str) -> Vec<JTok> {
    let b = text.as_bytes();
    let mut toks = Vec::with_capacity(text.len() / 4 + 2);
    let mut i = 0;
    loop {
        while i < b.len() && matches!(b[i], b' ' | b'\n' | b'\r' | b'\t') {
            i += 1;
        }
        if i >= b.len() {
            break;
        }
        let start = i;
        let kind = match b[i] {
            b'{' => JK::BraceO,
            b'}' => JK::BraceC,
            b'[' => JK::BrackO,
            b']' => JK::BrackC,
            b',' => JK::Comma,
            b':' => JK::Colon,
            b'=' => JK::Equals,
            b'"' => {
                i += 1;
                let mut escaping = false;
                while i < b.len() {
                    let c = b[i];
                    if c == b'\\' {
                        escaping = !escaping;
                        i += 1;
                    } else if c == b'"' {
                        i += 1;
                        if !escaping {
                            break;
                        }
                        escaping = false;
                    } else if c < 32 {
                        break;
                    } else {
                        i += text[i..].chars().next().map(char::len_utf8).unwrap_or(1);
                        escaping = false;
                    }
                }
                toks.push(JTok {
                    kind: JK::String,
                    start: start as u32,
                    end: i as u32,
                });
                continue;
            }
            b'-' | b'+' | b'.' | b'0'..=b'9' => {
                while i < b.len() && matches!(b[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    i += 1;
                }
                toks.push(JTok {
                    kind: JK::Number,
                    start: start as u32,
                    end: i as u32,
                });
                continue;
            }
            c if c.is_ascii_alphabetic() => {
                while i < b.len() && (b[i].is_ascii_alphabetic() || b[i] == b'_') {
                    i += 1;
                }
                toks.push(JTok {
                    kind: JK::Keyword,
                    start: start as u32,
                    end: i as u32,
                });
                continue;
            }
            _ => {
                let len = text[i..].chars().next().map(char::len_utf8).unwrap_or(1);
                toks.push(JTok {
                    kind: JK::Invalid,
                    start: start as u32,
                    end: (i + len) as u32,
                });
                let end = (i + len) as u32;
                toks.push(JTok {
                    kind: JK::Eof,
                    start: end,
                    end,
                });
                return toks;
            }
        };
        i += 1;
        toks.push(JTok {
            kind,
            start: start as u32,
            end: i as u32,
        });
    }
    let end = b.len() as u32;
    toks.push(JTok {
        kind: JK::Eof,
        start: end,
        end,
    });
    toks
}

/// Whether `s` is a number by JSON's grammar.
fn valid_json_number(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if b.first() == Some(&b'-') {
        i += 1;
    }
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
        }
        _ => return false,
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if !b.get(i).is_some_and(u8::is_ascii_digit) {
            return false;
        }
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !b.get(i).is_some_and(u8::is_ascii_digit) {
            return false;
        }
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
    }
    i == b.len()
}

/// A decoded JSON string and the map from offsets in it to offsets in the
/// file, so templates inside JSON strings report exact positions.
pub(crate) struct DecodedString {
    pub(crate) text: String,
    pub(crate) map: SpanMap,
}

/// Decodes a JSON string token (with its quotes) that starts at file offset
/// `file_start`. On failure returns the offset, within the token, that Go's
/// JSON decoder reports: one past the offending byte.
pub(crate) fn decode_json_string(raw: &str, file_start: u32) -> Result<DecodedString, usize> {
    let b = raw.as_bytes();
    if b.first() != Some(&b'"') {
        return Err(1);
    }
    let mut out = String::with_capacity(raw.len());
    let mut points = vec![(0u32, file_start + 1)];
    let mut i = 1;
    let mut lit_start = 1;
    loop {
        let Some(&c) = b.get(i) else {
            return Err(b.len());
        };
        match c {
            b'"' => {
                out.push_str(&raw[lit_start..i]);
                if i + 1 != b.len() {
                    return Err(i + 2);
                }
                return Ok(DecodedString {
                    text: out,
                    map: SpanMap::new(points),
                });
            }
            b'\\' => {
                out.push_str(&raw[lit_start..i]);
                let Some(&sel) = b.get(i + 1) else {
                    return Err(b.len());
                };
                let mut next = i + 2;
                match sel {
                    b'"' => out.push('"'),
                    b'\\' => out.push('\\'),
                    b'/' => out.push('/'),
                    b'b' => out.push('\u{8}'),
                    b'f' => out.push('\u{c}'),
                    b'n' => out.push('\n'),
                    b'r' => out.push('\r'),
                    b't' => out.push('\t'),
                    b'u' => {
                        let first = hex4(b, i + 2)?;
                        next = i + 6;
                        let c = if (0xD800..0xDC00).contains(&first) {
                            // A high surrogate pairs with a following low one;
                            // alone, it decodes to U+FFFD as Go does.
                            let low =
                                if b.get(next) == Some(&b'\\') && b.get(next + 1) == Some(&b'u') {
                                    hex4(b, next + 2)
                                        .ok()
                                        .filter(|l| (0xDC00..0xE000).contains(l))
                                } else {
                                    None
                                };
                            match low {
                                Some(low) => {
                                    next += 6;
                                    char::from_u32(
                                        0x10000 + ((first - 0xD800) << 10) + (low - 0xDC00),
                                    )
                                }
                                None => None,
                            }
                        } else {
                            char::from_u32(first)
                        };
                        out.push(c.unwrap_or('\u{FFFD}'));
                    }
                    _ => return Err(i + 2),
                }
                i = next;
                lit_start = i;
                points.push((out.len() as u32, file_start + i as u32));
            }
            c if c < 0x20 => return Err(i + 1),
            _ => i += 1,
        }
    }
}

fn hex4(b: &[u8], at: usize) -> Result<u32, usize> {
    let mut v = 0u32;
    for k in 0..4 {
        let Some(&c) = b.get(at + k) else {
            return Err(b.len());
        };
        let d = (c as char).to_digit(16).ok_or(at + k + 1)?;
        v = v * 16 + d;
    }
    Ok(v)
}

struct JsonParser<'a> {
    text: &'a str,
    toks: Vec<JTok>,
    pos: usize,
    source: &'a SourceFile,
    diags: Diagnostics,
    /// Nesting depth, bounded as in the native parser.
    depth: u32,
}

impl<'a> JsonParser<'a> {
    fn peek(&self) -> JTok {
        self.toks[self.pos.min(self.toks.len() - 1)]
    }

    fn read(&mut self) -> JTok {
        let t = self.peek();
        if t.kind != JK::Eof {
            self.pos += 1;
        }
        t
    }

    fn error(&mut self, summary: &str, detail: impl Into<String>, subject: Span) {
        self.diags
            .push(Diagnostic::error(summary, detail).with_subject(self.source.range(subject)));
    }

    fn text(&self, t: JTok) -> &'a str {
        self.text
            .get(t.start as usize..t.end as usize)
            .unwrap_or("")
    }

    /// Always returns a value; `Invalid` where HCL's parser gives up on one.
    fn parse_value(&mut self) -> JsonValue {
        self.depth += 1;
        let v = if self.depth <= crate::parser::MAX_NESTING {
            self.parse_value_inner()
        } else {
            let tok = self.peek();
            if self.depth == crate::parser::MAX_NESTING + 1 {
                self.error(
                    "Nesting too deep",
                    format!(
                        "This configuration nests values more than {} levels deep, which is not supported.",
                        crate::parser::MAX_NESTING
                    ),
                    tok.span(),
                );
            }
            // Give up on the rest of the document.
            self.pos = self.toks.len() - 1;
            JsonValue {
                kind: JsonValueKind::Invalid,
                span: tok.span(),
            }
        };
        self.depth -= 1;
        v
    }

    fn parse_value_inner(&mut self) -> JsonValue {
        let tok = self.peek();
        let parsed = match tok.kind {
            JK::BraceO => self.parse_object(),
            JK::BrackO => self.parse_array(),
            JK::Number => self.parse_number(),
            JK::String => self.parse_string(),
            JK::Keyword => self.parse_keyword(),
            JK::BraceC => {
                self.error(
                    "Missing JSON value",
                    "A JSON value must start with a brace, a bracket, a number, a string, or a keyword.",
                    tok.span(),
                );
                None
            }
            JK::BrackC => {
                self.error(
                    "Missing array element value",
                    "A JSON value must start with a brace, a bracket, a number, a string, or a keyword.",
                    tok.span(),
                );
                None
            }
            JK::Eof => {
                self.error(
                    "Missing value",
                    "The JSON data ends prematurely.",
                    tok.span(),
                );
                None
            }
            _ => {
                self.error(
                    "Invalid start of value",
                    "A JSON value must start with a brace, a bracket, a number, a string, or a keyword.",
                    tok.span(),
                );
                None
            }
        };
        parsed.unwrap_or(JsonValue {
            kind: JsonValueKind::Invalid,
            span: tok.span(),
        })
    }

    /// HCL's recovery inside a container: skip tokens from `tok` on until a
    /// closer brings the nesting count (starting at one) back to one.
    fn recover_container(&mut self, mut tok: JTok, open: JK, close: JK) {
        let mut depth = 1;
        loop {
            if tok.kind == open {
                depth += 1;
            } else if tok.kind == close {
                depth -= 1;
                if depth <= 1 {
                    return;
                }
            } else if tok.kind == JK::Eof {
                return;
            }
            tok = self.read();
        }
    }

    fn parse_object(&mut self) -> Option<JsonValue> {
        let open = self.read();
        let mut props = Vec::new();
        loop {
            if self.peek().kind == JK::BraceC {
                break;
            }
            let key = self.parse_value();
            let JsonValueKind::String(name) = key.kind else {
                let start = start_span(&key);
                self.error(
                    "Invalid object property name",
                    "A JSON object property name must be a string",
                    start,
                );
                return None;
            };
            let colon = self.read();
            if colon.kind != JK::Colon {
                self.recover_container(colon, JK::BraceO, JK::BraceC);
                match colon.kind {
                    JK::BraceC | JK::Comma => self.error(
                        "Missing object value",
                        "A JSON object attribute must have a value, introduced by a colon.",
                        colon.span(),
                    ),
                    JK::Equals => self.error(
                        "Missing property value colon",
                        "JSON uses a colon as its name/value delimiter, not an equals sign.",
                        colon.span(),
                    ),
                    _ => self.error(
                        "Missing property value colon",
                        "A colon must appear between an object property's name and its value.",
                        colon.span(),
                    ),
                }
                return None;
            }
            let value = self.parse_value();
            props.push(JsonProperty {
                name,
                name_span: key.span,
                value,
            });
            match self.peek().kind {
                JK::Comma => {
                    let comma = self.read();
                    if self.peek().kind == JK::BraceC {
                        self.error(
                            "Trailing comma in object",
                            "JSON does not permit a trailing comma after the final property in an object.",
                            comma.span(),
                        );
                        return None;
                    }
                }
                JK::Eof => {
                    self.error(
                        "Unclosed object",
                        "No closing brace was found for this JSON object.",
                        open.span(),
                    );
                    return None;
                }
                JK::BrackC => {
                    self.read();
                    let sp = self.peek().span();
                    self.error(
                        "Mismatched braces",
                        "A JSON object must be closed with a brace, not a bracket.",
                        sp,
                    );
                    return None;
                }
                JK::BraceC => break,
                _ => {
                    let t = self.read();
                    self.recover_container(t, JK::BraceO, JK::BraceC);
                    let sp = self.peek().span();
                    self.error(
                        "Missing attribute seperator comma",
                        "A comma must appear between each property definition in an object.",
                        sp,
                    );
                    return None;
                }
            }
        }
        let close = self.read();
        Some(JsonValue {
            kind: JsonValueKind::Object(props),
            span: Span {
                start: open.start,
                end: close.end,
            },
        })
    }

    fn parse_array(&mut self) -> Option<JsonValue> {
        let open = self.read();
        let mut vals = Vec::new();
        loop {
            if self.peek().kind == JK::BrackC {
                break;
            }
            vals.push(self.parse_value());
            match self.peek().kind {
                JK::Comma => {
                    let comma = self.read();
                    if self.peek().kind == JK::BrackC {
                        self.error(
                            "Trailing comma in array",
                            "JSON does not permit a trailing comma after the final value in an array.",
                            comma.span(),
                        );
                        return None;
                    }
                }
                JK::Colon => {
                    let t = self.read();
                    self.recover_container(t, JK::BrackO, JK::BrackC);
                    let sp = self.peek().span();
                    self.error(
                        "Invalid array value",
                        "A colon is not used to introduce values in a JSON array.",
                        sp,
                    );
                    return None;
                }
                JK::Eof => {
                    let t = self.read();
                    self.recover_container(t, JK::BrackO, JK::BrackC);
                    self.error(
                        "Unclosed object",
                        "No closing bracket was found for this JSON array.",
                        open.span(),
                    );
                    return None;
                }
                JK::BraceC => {
                    let t = self.read();
                    self.recover_container(t, JK::BrackO, JK::BrackC);
                    let sp = self.peek().span();
                    self.error(
                        "Mismatched brackets",
                        "A JSON array must be closed with a bracket, not a brace.",
                        sp,
                    );
                    return None;
                }
                JK::BrackC => break,
                _ => {
                    let t = self.read();
                    self.recover_container(t, JK::BrackO, JK::BrackC);
                    let sp = self.peek().span();
                    self.error(
                        "Missing attribute seperator comma",
                        "A comma must appear between each value in an array.",
                        sp,
                    );
                    return None;
                }
            }
        }
        let close = self.read();
        Some(JsonValue {
            kind: JsonValueKind::Array(vals),
            span: Span {
                start: open.start,
                end: close.end,
            },
        })
    }

    fn parse_number(&mut self) -> Option<JsonValue> {
        let tok = self.read();
        let text = self.text(tok);
        if !valid_json_number(text) {
            self.error(
                "Invalid JSON number",
                "There is a syntax error in the given JSON number.",
                tok.span(),
            );
            return None;
        }
        Some(JsonValue {
            kind: JsonValueKind::Number(text.to_string()),
            span: tok.span(),
        })
    }

    fn parse_string(&mut self) -> Option<JsonValue> {
        let tok = self.read();
        match decode_json_string(self.text(tok), tok.start) {
            Ok(d) => Some(JsonValue {
                kind: JsonValueKind::String(d.text),
                span: tok.span(),
            }),
            Err(offset) => {
                let at = tok.start + offset as u32;
                let subject = Span {
                    start: at,
                    end: at + 1,
                };
                let mut d = Diagnostic::error(
                    "Invalid JSON string",
                    "There is a syntax error in the given JSON string.",
                )
                .with_subject(self.source.range(subject));
                if subject != tok.span() {
                    d = d.with_context(self.source.range(tok.span()));
                }
                self.diags.push(d);
                None
            }
        }
    }

    fn parse_keyword(&mut self) -> Option<JsonValue> {
        let tok = self.read();
        let s = self.text(tok);
        let kind = match s {
            "true" => JsonValueKind::Bool(true),
            "false" => JsonValueKind::Bool(false),
            "null" => JsonValueKind::Null,
            "undefined" | "NaN" | "Infinity" => {
                let detail = format!(
                    "The JavaScript identifier {} cannot be used in JSON.",
                    gostr::quote(s)
                );
                self.error("Invalid JSON keyword", detail, tok.span());
                return None;
            }
            _ => {
                let dym = name_suggestion(s, &["false", "true", "null"])
                    .map(|k| format!(" Did you mean {}?", gostr::quote(k)))
                    .unwrap_or_default();
                let detail = format!("{} is not a valid JSON keyword.{dym}", gostr::quote(s));
                self.error("Invalid JSON keyword", detail, tok.span());
                return None;
            }
        };
        Some(JsonValue {
            kind,
            span: tok.span(),
        })
    }
}

/// Where HCL points for a value as a whole: the opening bracket of a
/// container, the whole token otherwise.
pub(crate) fn start_span(v: &JsonValue) -> Span {
    match v.kind {
        JsonValueKind::Object(_) | JsonValueKind::Array(_) => Span {
            start: v.span.start,
            end: v.span.start + 1,
        },
        _ => v.span,
    }
}

/// Parses a whole JSON document; the root value is returned even when it
/// is not an object.
pub(crate) fn parse_document(source: &SourceFile) -> (JsonValue, Diagnostics) {
    let mut p = JsonParser {
        text: &source.text,
        toks: scan(&source.text),
        pos: 0,
        source,
        diags: Vec::new(),
        depth: 0,
    };
    let root = p.parse_value();
    if p.diags.is_empty() && p.peek().kind != JK::Eof {
        let sp = p.peek().span();
        p.error(
            "Extraneous data after value",
            "Extra characters appear after the JSON value.",
            sp,
        );
    }
    (root, p.diags)
}

/// The body of a JSON configuration file. A root array of objects is read
/// as one body holding all their properties, as HCL reads it.
pub(crate) fn parse_body(source: &SourceFile) -> (JsonBody, Diagnostics) {
    let (root, mut diags) = parse_document(source);
    let span = root.span;
    let properties = match root.kind {
        JsonValueKind::Object(props) => props,
        JsonValueKind::Array(elems) => {
            let mut props = Vec::new();
            for elem in elems {
                match elem.kind {
                    JsonValueKind::Object(p) => props.extend(p),
                    _ => diags.push(
                        Diagnostic::error(
                            "Incorrect JSON value type",
                            "A JSON object is required here, to define arguments and child blocks.",
                        )
                        .with_subject(source.range(start_span(&elem))),
                    ),
                }
            }
            props
        }
        _ => {
            diags.push(
                Diagnostic::error(
                    "Root value must be object",
                    "The root value in a JSON-based configuration must be either a JSON object or a JSON array of objects.",
                )
                .with_subject(source.range(start_span(&root))),
            );
            return (
                JsonBody {
                    properties: Vec::new(),
                    span: Span::default(),
                },
                diags,
            );
        }
    };
    (JsonBody { properties, span }, diags)
}

/// The decoded content of the JSON string at `span` in `source`.
fn string_at(source: &SourceFile, span: Span) -> DecodedString {
    let raw = source
        .text
        .get(span.start as usize..span.end as usize)
        .unwrap_or("");
    decode_json_string(raw, span.start).unwrap_or_else(|_| DecodedString {
        text: raw.trim_matches('"').to_string(),
        map: SpanMap::new(vec![(0, span.start + 1)]),
    })
}

fn template_from_json_string(source: &SourceFile, span: Span) -> (Expr, Diagnostics) {
    let decoded = string_at(source, span);
    let mut p = Parser::new(&decoded.text, ScanMode::Template, source, &decoded.map);
    let mut expr = p.parse_standalone_template();
    if let ExprKind::Template(t) = &mut expr.kind {
        t.origin = ExprOrigin::Json;
    }
    expr.span = span;
    (expr, p.diags)
}

/// Reads a JSON value as an expression, as HCL's JSON syntax does when an
/// attribute is evaluated: strings (and object keys) are templates,
/// arrays are tuples, objects are objects.
pub fn json_value_to_expr(source: &SourceFile, value: &JsonValue) -> (Expr, Diagnostics) {
    let mut diags = Vec::new();
    let expr = convert(source, value, &mut diags);
    (expr, diags)
}

fn convert(source: &SourceFile, value: &JsonValue, diags: &mut Diagnostics) -> Expr {
    let kind = match &value.kind {
        JsonValueKind::Null => ExprKind::Null,
        JsonValueKind::Bool(b) => ExprKind::Bool(*b),
        JsonValueKind::Number(n) => ExprKind::Number(n.clone()),
        JsonValueKind::String(_) => {
            let (e, d) = template_from_json_string(source, value.span);
            diags.extend(d);
            return e;
        }
        JsonValueKind::Array(vals) => {
            ExprKind::Tuple(vals.iter().map(|v| convert(source, v, diags)).collect())
        }
        JsonValueKind::Object(props) => ExprKind::Object(
            props
                .iter()
                .map(|p| {
                    let (key, d) = template_from_json_string(source, p.name_span);
                    diags.extend(d);
                    ObjectItem {
                        key: ObjectKey::Expr(key),
                        value: convert(source, &p.value, diags),
                    }
                })
                .collect(),
        ),
        JsonValueKind::Invalid => ExprKind::Invalid,
    };
    Expr {
        kind,
        span: value.span,
    }
}

/// Parses the content of a JSON string as a native-syntax expression, for
/// the places where HCL's JSON syntax does (`hcl.ExprCall`, type
/// constraints). `None` when the value is not a string.
pub fn json_string_as_expression(
    source: &SourceFile,
    value: &JsonValue,
) -> Option<(Expr, Diagnostics)> {
    if !matches!(value.kind, JsonValueKind::String(_)) {
        return None;
    }
    let decoded = string_at(source, value.span);
    let mut p = Parser::new(&decoded.text, ScanMode::Normal, source, &decoded.map);
    let expr = p.parse_standalone_expression();
    Some((expr, p.diags))
}

/// Parses the content of a JSON string as an absolute traversal, as HCL's
/// JSON syntax does for references such as `provider = "aws.west"`. `None`
/// when the value is not a string.
pub fn json_string_as_traversal(
    source: &SourceFile,
    value: &JsonValue,
    allow_splat: bool,
) -> Option<(Option<crate::traversal::PartialTraversal>, Diagnostics)> {
    if !matches!(value.kind, JsonValueKind::String(_)) {
        return None;
    }
    let decoded = string_at(source, value.span);
    Some(crate::traversal::parse_with(
        &decoded.text,
        source,
        &decoded.map,
        allow_splat,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        for ok in ["0", "-0", "1", "-12.5", "1e5", "1E+5", "2.5e-3"] {
            assert!(valid_json_number(ok), "{ok}");
        }
        for bad in ["", "-", "01", "+1", "1.", ".5", "1e", "1e+", "1.2.3", "--1"] {
            assert!(!valid_json_number(bad), "{bad}");
        }
    }

    #[test]
    fn strings_decode_with_offsets() {
        let d = decode_json_string(r#""a\"b\u00e9c""#, 10).map_err(|e| e.to_string());
        let Ok(d) = d else { panic!("decode failed") };
        assert_eq!(d.text, "a\"bé c".replace(' ', ""));
        // 'b' is decoded offset 2, file offset 10 + 1 + 3.
        assert_eq!(d.map.map(2), 14);
        // 'c' follows the two-byte é: decoded offset 5, file offset 10 + 12.
        assert_eq!(d.map.map(5), 21);
        assert_eq!(
            decode_json_string(r#""\ud83d\ude00""#, 0)
                .map(|d| d.text)
                .ok(),
            Some("😀".to_string())
        );
        assert_eq!(
            decode_json_string(r#""\ud83d""#, 0).map(|d| d.text).ok(),
            Some("\u{FFFD}".to_string())
        );
        assert_eq!(decode_json_string(r#""a\qb""#, 0).err(), Some(4));
        assert_eq!(decode_json_string(r#""\u12g4""#, 0).err(), Some(6));
        assert_eq!(decode_json_string(r#""abc"#, 0).err(), Some(4));
    }
}
