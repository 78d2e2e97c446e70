//! JSON read and written the way Go's `encoding/json` does it: state
//! files, plan and provider-schema JSON, the machine-readable UI stream and
//! the module manifest are all Go's bytes, and every crate that writes or
//! reads them goes through this module.
//!
//! Reading is `json.Unmarshal`'s: one document, syntax errors with Go's
//! wording and byte offset (which terraform shows). It keeps what Go keeps:
//! every value's byte span (so embedded raw messages such as resource
//! attributes come back verbatim), number literals as text (no precision
//! lost), object members in file order with duplicates (Go's last-wins is
//! the caller's choice), and invalid UTF-8 inside strings as one U+FFFD per
//! bad byte.
//!
//! Writing is `json.Marshal`'s with HTML escaping on (Go's default, which
//! no caller of ours turns off): strings escaped as Go escapes them, raw
//! messages compacted with the same escaping, and `json.MarshalIndent(v,
//! "", "  ")`'s layout.

use std::fmt;

/// A parsed JSON value with its byte span in the source.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub json: Json,
    pub start: usize,
    pub end: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    /// The literal as written.
    Number(String),
    String(String),
    Array(Vec<Node>),
    /// Members in file order, duplicates kept.
    Object(Vec<(String, Node)>),
}

impl Json {
    /// Go's name for the kind of a JSON value in `UnmarshalTypeError`s.
    pub fn kind_name(&self) -> &'static str {
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

/// A syntax error as Go's scanner reports it: `offset` is the number of
/// bytes read when the error was found (the bad byte included, or the
/// whole input when it ends too early).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    pub offset: usize,
    pub message: String,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Go's scanner gives up beyond this nesting depth.
const MAX_DEPTH: usize = 10000;

/// Like [`parse`], except that an object or array that is the value of a
/// member named in `hollow` (at any depth) comes back empty: checked as
/// JSON and with its span, so the caller reads its text from `src`, but
/// without its content as a tree. A state file is mostly its objects'
/// attributes, which are kept as text: parsed whole, its tree took three
/// times the file's size at once.
pub fn parse_hollow<'a>(src: &'a [u8], hollow: &'a [&'a str]) -> Result<Node, SyntaxError> {
    let mut p = Parser {
        src,
        pos: 0,
        hollow,
    };
    p.skip_ws();
    let node = p.value()?;
    p.skip_ws();
    if p.pos < src.len() {
        return Err(p.err_char("after top-level value"));
    }
    Ok(node)
}

/// Parses a whole document: one value, optionally surrounded by
/// whitespace.
pub fn parse(src: &[u8]) -> Result<Node, SyntaxError> {
    parse_hollow(src, &[])
}

/// Parses the value at the start of `src` (after whitespace) and stops
/// where it ends, whatever follows: the value's `end` says where. A number
/// or literal at the very end of `src` is complete, as it is for Go's
/// decoder at the end of its input.
pub fn parse_value_prefix(src: &[u8]) -> Result<Node, SyntaxError> {
    let mut p = Parser {
        src,
        pos: 0,
        hollow: &[],
    };
    p.skip_ws();
    p.value()
}

/// Bytes as Go turns them into text when decoding: valid UTF-8 as is, and
/// each byte of an invalid sequence as one U+FFFD.
pub fn lossy_utf8(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        for _ in chunk.invalid() {
            out.push('\u{FFFD}');
        }
    }
    out
}

struct Parser<'a> {
    src: &'a [u8],
    pos: usize,
    /// Names of object members whose objects and arrays are checked and
    /// spanned but not kept (see [`parse_hollow`]).
    hollow: &'a [&'a str],
}

enum Frame {
    Array(usize, Vec<Node>),
    Object(usize, Vec<(String, Node)>, String),
}

impl Parser<'_> {
    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.src.get(self.pos) {
            self.pos += 1;
        }
    }

    fn eof(&self) -> SyntaxError {
        SyntaxError {
            offset: self.src.len(),
            message: "unexpected end of JSON input".to_string(),
        }
    }

    /// An error about the byte at `pos`.
    fn err_char(&self, context: &str) -> SyntaxError {
        match self.src.get(self.pos) {
            None => self.eof(),
            Some(&c) => SyntaxError {
                offset: self.pos + 1,
                message: format!("invalid character {} {context}", quote_char(c)),
            },
        }
    }

    /// Iterative, so that deep nesting cannot exhaust the stack.
    fn value(&mut self) -> Result<Node, SyntaxError> {
        let mut stack: Vec<Frame> = Vec::new();
        loop {
            // Parse one value start; containers push a frame.
            self.skip_ws();
            let start = self.pos;
            let mut done: Option<Node> = match self.src.get(self.pos) {
                None => return Err(self.eof()),
                Some(b'{') => {
                    self.pos += 1;
                    if stack.len() >= MAX_DEPTH {
                        return Err(SyntaxError {
                            offset: self.pos,
                            message: "exceeded max depth".to_string(),
                        });
                    }
                    self.skip_ws();
                    if self.src.get(self.pos) == Some(&b'}') {
                        self.pos += 1;
                        Some(Node {
                            json: Json::Object(Vec::new()),
                            start,
                            end: self.pos,
                        })
                    } else {
                        let key = self.object_key()?;
                        stack.push(Frame::Object(start, Vec::new(), key));
                        None
                    }
                }
                Some(b'[') => {
                    self.pos += 1;
                    if stack.len() >= MAX_DEPTH {
                        return Err(SyntaxError {
                            offset: self.pos,
                            message: "exceeded max depth".to_string(),
                        });
                    }
                    self.skip_ws();
                    if self.src.get(self.pos) == Some(&b']') {
                        self.pos += 1;
                        Some(Node {
                            json: Json::Array(Vec::new()),
                            start,
                            end: self.pos,
                        })
                    } else {
                        stack.push(Frame::Array(start, Vec::new()));
                        None
                    }
                }
                Some(_) => Some(self.scalar()?),
            };
            // Close as many containers as the value completes.
            while let Some(node) = done.take() {
                let Some(frame) = stack.last_mut() else {
                    return Ok(node);
                };
                self.skip_ws();
                match frame {
                    Frame::Array(start, items) => {
                        items.push(node);
                        match self.src.get(self.pos) {
                            Some(b',') => self.pos += 1,
                            Some(b']') => {
                                self.pos += 1;
                                let start = *start;
                                let items = std::mem::take(items);
                                stack.pop();
                                done = Some(Node {
                                    json: Json::Array(items),
                                    start,
                                    end: self.pos,
                                });
                            }
                            _ => return Err(self.err_char("after array element")),
                        }
                    }
                    Frame::Object(start, members, key) => {
                        let mut node = node;
                        if self.hollow.contains(&key.as_str()) {
                            match &mut node.json {
                                Json::Object(m) => *m = Vec::new(),
                                Json::Array(a) => *a = Vec::new(),
                                _ => {}
                            }
                        }
                        members.push((std::mem::take(key), node));
                        match self.src.get(self.pos) {
                            Some(b',') => {
                                self.pos += 1;
                                *key = self.object_key()?;
                            }
                            Some(b'}') => {
                                self.pos += 1;
                                let start = *start;
                                let members = std::mem::take(members);
                                stack.pop();
                                done = Some(Node {
                                    json: Json::Object(members),
                                    start,
                                    end: self.pos,
                                });
                            }
                            _ => return Err(self.err_char("after object key:value pair")),
                        }
                    }
                }
            }
        }
    }

    /// A key and its colon.
    fn object_key(&mut self) -> Result<String, SyntaxError> {
        self.skip_ws();
        if self.src.get(self.pos) != Some(&b'"') {
            return Err(self.err_char("looking for beginning of object key string"));
        }
        let key = self.string()?;
        self.skip_ws();
        if self.src.get(self.pos) != Some(&b':') {
            return Err(self.err_char("after object key"));
        }
        self.pos += 1;
        Ok(key)
    }

    fn scalar(&mut self) -> Result<Node, SyntaxError> {
        let start = self.pos;
        let json = match self.src[self.pos] {
            b'"' => Json::String(self.string()?),
            b't' => {
                self.literal(b"true")?;
                Json::Bool(true)
            }
            b'f' => {
                self.literal(b"false")?;
                Json::Bool(false)
            }
            b'n' => {
                self.literal(b"null")?;
                Json::Null
            }
            b'-' | b'0'..=b'9' => Json::Number(self.number()?),
            _ => return Err(self.err_char("looking for beginning of value")),
        };
        Ok(Node {
            json,
            start,
            end: self.pos,
        })
    }

    fn literal(&mut self, word: &[u8]) -> Result<(), SyntaxError> {
        for (i, &want) in word.iter().enumerate() {
            match self.src.get(self.pos) {
                None => return Err(self.eof()),
                Some(&c) if c == want => self.pos += 1,
                Some(_) if i == 0 => return Err(self.err_char("looking for beginning of value")),
                Some(_) => {
                    // Go names the whole literal it was reading.
                    let what = String::from_utf8_lossy(word).into_owned();
                    return Err(self.err_char(&format!(
                        "in literal {what} (expecting {})",
                        quote_char(word[i])
                    )));
                }
            }
        }
        Ok(())
    }

    fn digits(&mut self) -> usize {
        let from = self.pos;
        while let Some(b'0'..=b'9') = self.src.get(self.pos) {
            self.pos += 1;
        }
        self.pos - from
    }

    fn number(&mut self) -> Result<String, SyntaxError> {
        let start = self.pos;
        if self.src[self.pos] == b'-' {
            self.pos += 1;
        }
        match self.src.get(self.pos) {
            None => return Err(self.eof()),
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            Some(_) => return Err(self.err_char("in numeric literal")),
        }
        if self.src.get(self.pos) == Some(&b'.') {
            self.pos += 1;
            if self.pos >= self.src.len() {
                return Err(self.eof());
            }
            if self.digits() == 0 {
                return Err(self.err_char("after decimal point in numeric literal"));
            }
        }
        if let Some(b'e' | b'E') = self.src.get(self.pos) {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.src.get(self.pos) {
                self.pos += 1;
            }
            if self.pos >= self.src.len() {
                return Err(self.eof());
            }
            if self.digits() == 0 {
                return Err(self.err_char("in exponent of numeric literal"));
            }
        }
        Ok(String::from_utf8_lossy(&self.src[start..self.pos]).into_owned())
    }

    /// A string literal at `pos`, decoded as Go decodes it (invalid UTF-8
    /// and lone surrogates become U+FFFD).
    fn string(&mut self) -> Result<String, SyntaxError> {
        self.pos += 1;
        let mut out: Vec<u8> = Vec::new();
        loop {
            let Some(&c) = self.src.get(self.pos) else {
                return Err(self.eof());
            };
            match c {
                b'"' => {
                    self.pos += 1;
                    return Ok(lossy_utf8(&out));
                }
                b'\\' => {
                    self.pos += 1;
                    let Some(&e) = self.src.get(self.pos) else {
                        return Err(self.eof());
                    };
                    self.pos += 1;
                    let simple = match e {
                        b'"' => Some(b'"'),
                        b'\\' => Some(b'\\'),
                        b'/' => Some(b'/'),
                        b'b' => Some(8),
                        b'f' => Some(12),
                        b'n' => Some(b'\n'),
                        b'r' => Some(b'\r'),
                        b't' => Some(b'\t'),
                        b'u' => None,
                        _ => {
                            self.pos -= 1;
                            return Err(self.err_char("in string escape code"));
                        }
                    };
                    if let Some(b) = simple {
                        out.push(b);
                        continue;
                    }
                    let hi = self.hex4()?;
                    let ch = if (0xD800..0xDC00).contains(&hi)
                        && self.src.get(self.pos) == Some(&b'\\')
                        && self.src.get(self.pos + 1) == Some(&b'u')
                    {
                        let save = self.pos;
                        self.pos += 2;
                        let lo = self.hex4()?;
                        if (0xDC00..0xE000).contains(&lo) {
                            char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))
                        } else {
                            // Not a pair: the first is replaced, the
                            // second read on its own.
                            self.pos = save;
                            None
                        }
                    } else {
                        char::from_u32(hi)
                    };
                    let ch = ch.unwrap_or('\u{FFFD}');
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                }
                0..=0x1f => return Err(self.err_char("in string literal")),
                _ => {
                    out.push(c);
                    self.pos += 1;
                }
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, SyntaxError> {
        let mut v = 0u32;
        for _ in 0..4 {
            let Some(&c) = self.src.get(self.pos) else {
                return Err(self.eof());
            };
            let d = match c {
                b'0'..=b'9' => c - b'0',
                b'a'..=b'f' => c - b'a' + 10,
                b'A'..=b'F' => c - b'A' + 10,
                _ => return Err(self.err_char("in \\u hexadecimal character escape")),
            };
            v = v * 16 + u32::from(d);
            self.pos += 1;
        }
        Ok(v)
    }
}

/// Go's `quoteChar`: `'x'`, `'\''`, `'"'`, or a Go-quoted rune.
fn quote_char(c: u8) -> String {
    match c {
        b'\'' => "'\\''".to_string(),
        b'"' => "'\"'".to_string(),
        0x20..=0x7e => format!("'{}'", c as char),
        _ if c < 0x80 => format!("'\\x{c:02x}'"),
        _ => "'\\ufffd'".to_string(),
    }
}

// ----- writing -----

/// Appends `s` as a JSON string the way Go's `json.Marshal` writes it:
/// `"`, `\\` and control characters escaped (`\n`, `\r`, `\t`, `\b`,
/// `\f` by name, the rest as `\u00XX`), and, HTML-safe, `<`, `>`, `&`,
/// U+2028 and U+2029 as `\u003c`, `\u003e`, `\u0026`, `\u2028`,
/// `\u2029`.
pub fn write_string(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(s.len() + 2);
    out.push('"');
    let bytes = s.as_bytes();
    // Runs of bytes that need no escape are copied whole; only the bytes
    // that start an escape are looked at one by one.
    let mut run_start = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let escape: Option<&str> = match b {
            b'"' => Some("\\\""),
            b'\\' => Some("\\\\"),
            b'\n' => Some("\\n"),
            b'\r' => Some("\\r"),
            b'\t' => Some("\\t"),
            0x08 => Some("\\b"),
            0x0c => Some("\\f"),
            b'<' => Some("\\u003c"),
            b'>' => Some("\\u003e"),
            b'&' => Some("\\u0026"),
            // U+2028 and U+2029 are E2 80 A8 and E2 80 A9 in UTF-8.
            0xe2 if bytes.get(i + 1) == Some(&0x80) && bytes.get(i + 2) == Some(&0xa8) => {
                Some("\\u2028")
            }
            0xe2 if bytes.get(i + 1) == Some(&0x80) && bytes.get(i + 2) == Some(&0xa9) => {
                Some("\\u2029")
            }
            _ => None,
        };
        if let Some(escape) = escape {
            out.push_str(&s[run_start..i]);
            out.push_str(escape);
            i += if b == 0xe2 { 3 } else { 1 };
            run_start = i;
        } else if b < 0x20 {
            out.push_str(&s[run_start..i]);
            out.push_str("\\u00");
            out.push(HEX[usize::from(b >> 4)] as char);
            out.push(HEX[usize::from(b & 0xf)] as char);
            i += 1;
            run_start = i;
        } else {
            i += 1;
        }
    }
    out.push_str(&s[run_start..]);
    out.push('"');
}

/// `s` as a Go JSON string literal.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    write_string(&mut out, s);
    out
}

/// JSON text from an encoder that escapes only what JSON requires (such as
/// serde_json) made into Go's bytes: `<`, `>`, `&`, U+2028 and U+2029,
/// which can only occur inside strings there, escaped as Go escapes them.
pub fn escape_html(json_text: &str) -> String {
    let mut out = String::with_capacity(json_text.len());
    let mut run_start = 0;
    for (at, c) in json_text.char_indices() {
        let escape = match c {
            '<' => "\\u003c",
            '>' => "\\u003e",
            '&' => "\\u0026",
            '\u{2028}' => "\\u2028",
            '\u{2029}' => "\\u2029",
            _ => continue,
        };
        out.push_str(&json_text[run_start..at]);
        out.push_str(escape);
        run_start = at + c.len_utf8();
    }
    out.push_str(&json_text[run_start..]);
    out
}

/// Appends the raw (valid) JSON text `raw` without insignificant
/// whitespace, escaping `<`, `>`, `&`, U+2028 and U+2029 inside strings:
/// what `json.Marshal` does with a `json.RawMessage`.
pub fn compact_into(out: &mut String, raw: &[u8]) {
    let text = String::from_utf8_lossy(raw);
    let bytes = text.as_bytes();
    out.reserve(bytes.len());
    // The text is copied in runs between the bytes that change: a state's
    // attributes are mostly already compact, and copying them byte by byte
    // was a few percent of a large apply.
    let mut run = 0;
    let mut in_string = false;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                // The escaped character is kept as it is.
                b'\\' => {
                    i += 2;
                    continue;
                }
                b'"' => in_string = false,
                b'<' | b'>' | b'&' => {
                    out.push_str(&text[run..i]);
                    push_unicode_escape(out, u32::from(b));
                    run = i + 1;
                }
                // U+2028 and U+2029 are E2 80 A8 and E2 80 A9 in UTF-8.
                0xE2 if bytes.get(i + 1) == Some(&0x80)
                    && matches!(bytes.get(i + 2), Some(0xA8 | 0xA9)) =>
                {
                    out.push_str(&text[run..i]);
                    let low = if bytes[i + 2] == 0xA8 { 0x2028 } else { 0x2029 };
                    push_unicode_escape(out, low);
                    i += 3;
                    run = i;
                    continue;
                }
                _ => {}
            }
        } else {
            match b {
                b' ' | b'\t' | b'\n' | b'\r' => {
                    out.push_str(&text[run..i]);
                    run = i + 1;
                }
                b'"' => in_string = true,
                _ => {}
            }
        }
        i += 1;
    }
    out.push_str(&text[run..]);
}

/// `\u` and four lowercase hex digits, as Go's encoder writes them.
fn push_unicode_escape(out: &mut String, code: u32) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push_str("\\u");
    for shift in [12, 8, 4, 0] {
        out.push(char::from(HEX[((code >> shift) & 0xF) as usize]));
    }
}

/// `raw` compacted, as a new string.
pub fn compact(raw: &[u8]) -> String {
    let mut out = String::with_capacity(raw.len());
    compact_into(&mut out, raw);
    out
}

/// Go's `json.Indent(dst, src, "", "  ")` of compact, valid JSON: a newline
/// and indentation after `{`, `[` and `,` (empty containers stay `{}` and
/// `[]`), and `": "` between keys and values.
///
/// The result is measured first and then written into a string of
/// exactly that size (with room for one more byte, the newline a file
/// form ends with): a state file is mostly indentation, and a growing
/// buffer would reach nearly twice its size at the moment it is largest.
pub fn indent(compact: &str) -> String {
    indent_at(compact, 0).0
}

/// [`indent`] of a piece of a compact document that starts `depth` levels
/// deep and outside any string, with the depth at its end: a document cut
/// into pieces at those places and indented piece by piece is the
/// document indented whole.
pub fn indent_at(compact: &str, depth: usize) -> (String, usize) {
    let mut out = String::with_capacity(indented_len(compact, depth).0 + 1);
    let end = indent_onto(&mut out, compact, depth);
    (out, end)
}

/// The length of [`indent_at`]'s text, and the depth at its end.
pub fn indented_len(compact: &str, depth: usize) -> (usize, usize) {
    let mut size = IndentedSize(0);
    let end = indent_into(compact, depth, &mut size);
    (size.0, end)
}

/// [`indent_at`], appended to `out`.
pub fn indent_onto(out: &mut String, compact: &str, depth: usize) -> usize {
    indent_into(compact, depth, out)
}

/// Where the indenting walk puts its text: the output, or a count of it.
trait IndentSink {
    fn text(&mut self, s: &str);
    fn newline(&mut self, depth: usize);
}

impl IndentSink for String {
    fn text(&mut self, s: &str) {
        self.push_str(s);
    }
    fn newline(&mut self, depth: usize) {
        self.push('\n');
        for _ in 0..depth {
            self.push_str("  ");
        }
    }
}

struct IndentedSize(usize);

impl IndentSink for IndentedSize {
    fn text(&mut self, s: &str) {
        self.0 += s.len();
    }
    fn newline(&mut self, depth: usize) {
        self.0 += 1 + 2 * depth;
    }
}

fn indent_into(compact: &str, mut depth: usize, out: &mut impl IndentSink) -> usize {
    let bytes = compact.as_bytes();
    let mut in_string = false;
    let mut escaped = false;
    let mut i = 0;
    let mut start = 0;
    // Copy unchanged runs in bulk; only structural bytes are rewritten.
    while i < bytes.len() {
        let c = bytes[i];
        if in_string {
            if escaped {
                escaped = false;
            } else if c == b'\\' {
                escaped = true;
            } else if c == b'"' {
                in_string = false;
            }
            i += 1;
            continue;
        }
        match c {
            b'"' => {
                in_string = true;
                i += 1;
            }
            b'{' | b'[' => {
                let close = if c == b'{' { b'}' } else { b']' };
                if bytes.get(i + 1) == Some(&close) {
                    i += 2;
                } else {
                    out.text(&compact[start..=i]);
                    depth += 1;
                    out.newline(depth);
                    i += 1;
                    start = i;
                }
            }
            b'}' | b']' => {
                out.text(&compact[start..i]);
                depth = depth.saturating_sub(1);
                out.newline(depth);
                out.text(&compact[i..=i]);
                i += 1;
                start = i;
            }
            b',' => {
                out.text(&compact[start..=i]);
                out.newline(depth);
                i += 1;
                start = i;
            }
            b':' => {
                out.text(&compact[start..=i]);
                out.text(" ");
                i += 1;
                start = i;
            }
            _ => i += 1,
        }
    }
    out.text(&compact[start..]);
    depth
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_error_offsets_follow_go() {
        // (input, Go's offset)
        let cases: &[(&str, usize)] = &[
            (r#"{"version": 4, "serial": 1"#, 26),
            (r#"{"version": x}"#, 13),
            (r#"{"a": 1} x"#, 10),
            (r#"{"a" 1}"#, 6),
            (r#"[1,]"#, 4),
            (r#"{"a": tru}"#, 10),
            (r#"{"a": 01}"#, 8),
            ("\"a\u{1}\"", 3),
            ("", 0),
        ];
        for (src, offset) in cases {
            let err = parse(src.as_bytes()).unwrap_err();
            assert_eq!(err.offset, *offset, "{src}: {}", err.message);
        }
        let err = parse(br#"{"a": tru}"#).unwrap_err();
        assert_eq!(
            err.message,
            "invalid character '}' in literal true (expecting 'e')"
        );
        let err = parse(b"[nul").unwrap_err();
        assert_eq!(err.message, "unexpected end of JSON input");
    }

    #[test]
    fn parses_with_spans_literals_and_escapes() {
        let src = br#" {"n": 1.50e3, "s": "a\u00e9\ud83d\ude00\ud800x\/", "l": [true, null, {}], "n": 2} "#;
        let node = parse(src).unwrap();
        let Json::Object(members) = &node.json else {
            panic!("not an object")
        };
        assert_eq!(members.len(), 4);
        assert_eq!(members[0].1.json, Json::Number("1.50e3".into()));
        assert_eq!(
            members[1].1.json,
            Json::String("a\u{e9}\u{1F600}\u{FFFD}x/".into())
        );
        let l = &members[2].1;
        assert_eq!(&src[l.start..l.end], b"[true, null, {}]");
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let src = "[".repeat(20000) + &"]".repeat(20000);
        let err = parse(src.as_bytes()).unwrap_err();
        assert_eq!(err.message, "exceeded max depth");
        let ok = "[".repeat(5000) + &"]".repeat(5000);
        assert!(parse(ok.as_bytes()).is_ok());
    }

    #[test]
    fn strings_are_written_as_go_writes_them() {
        let cases = [
            ("", r#""""#),
            ("plain", r#""plain""#),
            ("a \"q\" \\ b /", r#""a \"q\" \\ b /""#),
            (
                "Security & <Credentials>",
                r#""Security \u0026 \u003cCredentials\u003e""#,
            ),
            ("line\nbreak\ttab\r", r#""line\nbreak\ttab\r""#),
            ("\u{8}\u{c}\u{1}\u{1f}", r#""\b\f\u0001\u001f""#),
            ("sep\u{2028}\u{2029}end", r#""sep\u2028\u2029end""#),
            // Other characters that start with the same UTF-8 byte as the
            // two separators are not escaped.
            ("\u{2027}\u{202a}\u{20ac}", "\"\u{2027}\u{202a}\u{20ac}\""),
            ("ünïcødé ✓ 😀 \u{7f}", "\"ünïcødé ✓ 😀 \u{7f}\""),
        ];
        for (input, want) in cases {
            assert_eq!(quote(input), want, "{input:?}");
            // And it reads back as the input.
            let node = parse(want.as_bytes()).unwrap();
            assert_eq!(node.json, Json::String(input.to_string()));
        }
    }

    #[test]
    fn html_characters_in_other_encoders_text_are_escaped() {
        assert_eq!(
            escape_html("{\"a\":\"<x> & \u{2028}\u{2029} é\"}"),
            r#"{"a":"\u003cx\u003e \u0026 \u2028\u2029 é"}"#
        );
        assert_eq!(escape_html(""), "");
    }

    #[test]
    fn invalid_utf8_becomes_one_replacement_per_byte() {
        assert_eq!(
            lossy_utf8(b"a\xe2\x82b\xffc"),
            "a\u{FFFD}\u{FFFD}b\u{FFFD}c"
        );
        let node = parse(b"\"\xe2\x82\"").unwrap();
        assert_eq!(node.json, Json::String("\u{FFFD}\u{FFFD}".to_string()));
    }

    #[test]
    fn a_prefix_value_ends_where_it_ends() {
        let node = parse_value_prefix(b" [1, {}] trailing").unwrap();
        assert_eq!((node.start, node.end), (1, 8));
        let node = parse_value_prefix(b"12 x").unwrap();
        assert_eq!((node.json, node.end), (Json::Number("12".into()), 2));
        assert!(parse_value_prefix(b"{\"a\":").is_err());
    }

    #[test]
    fn compact_and_indent_as_marshal_indent() {
        let raw = br#"{ "a" : [ 1, 2 ], "b": {}, "c": [], "d": "x<y> \" , : {" }"#;
        let c = compact(raw);
        assert_eq!(
            c,
            r#"{"a":[1,2],"b":{},"c":[],"d":"x\u003cy\u003e \" , : {"}"#
        );
        assert_eq!(
            indent(&c),
            "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": {},\n  \"c\": [],\n  \"d\": \"x\\u003cy\\u003e \\\" , : {\"\n}"
        );
    }
    #[test]
    fn compact_escapes_what_go_escapes_inside_strings_only() {
        let raw = "{ \"k<\" :\n\t[\"a&b\", \"\u{2028}x\u{2029}\", \"\\\\\", \"\\\"<\\\"\", \"é\u{2027}\"] }\r\n";
        assert_eq!(
            compact(raw.as_bytes()),
            // U+2027 is not one of the two Go escapes.
            "{\"k\\u003c\":[\"a\\u0026b\",\"\\u2028x\\u2029\",\"\\\\\",\"\\\"\\u003c\\\"\",\"é\u{2027}\"]}"
        );
        // Already compact text comes back as it is.
        let plain = r#"{"id":"x","v":[1,{"a":null}],"s":"\n\t"}"#;
        assert_eq!(compact(plain.as_bytes()), plain);
        // Text that is not UTF-8 is read as Go reads it, with U+FFFD, and
        // a backslash at the very end does not run past it.
        assert_eq!(compact(b"\"\xff\""), "\"\u{fffd}\"");
        assert_eq!(compact(b"\"a\\"), "\"a\\");
    }

    #[test]
    fn hollow_members_keep_their_span_and_kind_only() {
        let src = br#"{"a": {"attributes": {"x": [1, 2]}, "b": [3]}, "attributes": "s"}"#;
        let Ok(root) = parse_hollow(src, &["attributes"]) else {
            panic!("parses");
        };
        let Json::Object(top) = &root.json else {
            panic!("object");
        };
        let Json::Object(a) = &top[0].1.json else {
            panic!("object a");
        };
        assert_eq!(a[0].1.json, Json::Object(Vec::new()));
        assert_eq!(&src[a[0].1.start..a[0].1.end], br#"{"x": [1, 2]}"#);
        // Other members keep their content.
        assert!(matches!(&a[1].1.json, Json::Array(items) if items.len() == 1));
        // Scalars stay as they are; broken JSON inside is still an error,
        // at the offset a whole parse gives.
        assert_eq!(top[1].1.json, Json::String("s".into()));
        let broken = br#"{"attributes": {"x": tru}}"#;
        let hollow = parse_hollow(broken, &["attributes"])
            .map(|_| ())
            .map_err(|e| e.offset);
        let whole = parse(broken).map(|_| ()).map_err(|e| e.offset);
        assert_eq!(hollow, whole);
        assert!(hollow.is_err());
    }

    #[test]
    fn indent_measures_before_it_writes() {
        let c = compact(br#"{"a":{"b":[[],[{"c":"}],{"}]],"d":{}},"e":[1,{"f":null}]}"#);
        let text = indent(&c);
        let mut size = IndentedSize(0);
        indent_into(&c, 0, &mut size);
        assert_eq!(size.0, text.len());
        // Room for the file's closing newline, and no growth beyond it.
        assert!(text.capacity() > text.len() && text.capacity() <= text.len() + 8);
    }

    #[test]
    fn a_document_indented_in_pieces_is_the_document_indented_whole() {
        let c = compact(br#"{"a":{"b":[[],[{"c":"}],{"}]],"d":{}},"e":[1,{"f":null}],"g":"x,y"}"#);
        let whole = indent(&c);
        // Every cut outside a string.
        let mut in_string = false;
        let mut escaped = false;
        for (cut, ch) in c.char_indices() {
            if !in_string {
                let (first, depth) = indent_at(&c[..cut], 0);
                let (second, end) = indent_at(&c[cut..], depth);
                // `[]` and `{}` cut in two are not empty containers to
                // either piece: a writer never cuts there.
                let splits_empty =
                    c[..cut].ends_with(['[', '{']) && c[cut..].starts_with([']', '}']);
                if !splits_empty {
                    assert_eq!(first + &second, whole, "cut at {cut}");
                    assert_eq!(end, 0);
                }
            }
            if in_string {
                if escaped {
                    escaped = false;
                } else if ch == '\\' {
                    escaped = true;
                } else if ch == '"' {
                    in_string = false;
                }
            } else if ch == '"' {
                in_string = true;
            }
        }
    }
}
