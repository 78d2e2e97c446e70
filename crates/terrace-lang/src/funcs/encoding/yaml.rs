//! `yamlencode` and `yamldecode` as go-cty-yaml v1.1 (the version
//! Terraform 1.11 ships) does them.
//!
//! Encoding writes block-style YAML with libyaml's emitter rules (go-cty-yaml
//! carries a Go port of libyaml): strings are double-quoted, or literal
//! blocks when they contain a newline, long double-quoted strings are folded
//! at 80 columns, and the emitter's choices of style, escapes and chomping
//! indicators are reproduced here so the output is byte-identical.
//!
//! Decoding reads events from `libyaml_safer` (a Rust port of the same
//! libyaml parser, so syntax errors carry libyaml's wording) and resolves
//! scalars with go-cty-yaml's YAML 1.1-flavoured rules: `yes`/`on` are
//! booleans, timestamps become RFC 3339 strings, `<<` merges mappings.

use super::super::datetime::GoTime;
use libyaml_safer::{ErrorKind, Event, EventData, Mark, Parser, ScalarStyle};
use std::collections::{BTreeMap, HashMap};
use terrace_value::convert::convert;
use terrace_value::gostr;
use terrace_value::{Number, Type, Value};

// ===== encoding =====

/// Serializes a wholly known value.
pub(super) fn marshal(value: &Value) -> Result<String, String> {
    let mut emitter = Emitter::new();
    emitter.emit_node(value, true, false, false, false)?;
    // Implicit document end, then the stream end.
    emitter.write_indent();
    if emitter.open_ended {
        emitter.write_indicator(b"...", true, false, false);
        emitter.write_indent();
    }
    String::from_utf8(emitter.out).map_err(|_| "failed to write YAML token".to_string())
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Style {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
}

/// libyaml's `yaml_emitter_analyze_scalar` results.
struct Analysis {
    multiline: bool,
    flow_plain_allowed: bool,
    block_plain_allowed: bool,
    single_quoted_allowed: bool,
    block_allowed: bool,
}

/// The emitter state libyaml keeps, for the block styles and empty flow
/// collections go-cty-yaml produces.
struct Emitter {
    out: Vec<u8>,
    column: i64,
    whitespace: bool,
    indention: bool,
    open_ended: bool,
    indent: i64,
    indents: Vec<i64>,
    flow_level: i64,
    root_context: bool,
    mapping_context: bool,
    simple_key_context: bool,
}

const BEST_INDENT: i64 = 2;
const BEST_WIDTH: i64 = 80;

// Byte classes, as libyaml's macros define them. Positions past the end
// read as a NUL byte.
fn at(b: &[u8], i: usize) -> u8 {
    b.get(i).copied().unwrap_or(0)
}
fn is_space(b: &[u8], i: usize) -> bool {
    at(b, i) == b' '
}
fn is_blank(b: &[u8], i: usize) -> bool {
    matches!(at(b, i), b' ' | b'\t')
}
fn is_break(b: &[u8], i: usize) -> bool {
    let c = at(b, i);
    c == b'\r'
        || c == b'\n'
        || (c == 0xC2 && at(b, i + 1) == 0x85)
        || (c == 0xE2 && at(b, i + 1) == 0x80 && (at(b, i + 2) == 0xA8 || at(b, i + 2) == 0xA9))
}
fn is_blankz(b: &[u8], i: usize) -> bool {
    is_blank(b, i) || is_break(b, i) || at(b, i) == 0
}
/// libyaml's printable test, which leaves out everything beyond the Basic
/// Multilingual Plane.
fn is_printable(b: &[u8], i: usize) -> bool {
    let c = at(b, i);
    let c1 = at(b, i + 1);
    let c2 = at(b, i + 2);
    c == 0x0A
        || (0x20..=0x7E).contains(&c)
        || (c == 0xC2 && c1 >= 0xA0)
        || (c > 0xC2 && c < 0xED)
        || (c == 0xED && c1 < 0xA0)
        || c == 0xEE
        || (c == 0xEF && !(c1 == 0xBB && c2 == 0xBF) && !(c1 == 0xBF && (c2 == 0xBE || c2 == 0xBF)))
}
/// libyaml checks for a byte order mark at the start of the value, whatever
/// position it is asked about.
fn starts_with_bom(b: &[u8]) -> bool {
    b.starts_with(&[0xEF, 0xBB, 0xBF])
}
fn width(c: u8) -> usize {
    if c & 0x80 == 0 {
        1
    } else if c & 0xE0 == 0xC0 {
        2
    } else if c & 0xF0 == 0xE0 {
        3
    } else if c & 0xF8 == 0xF0 {
        4
    } else {
        // Not reachable for valid UTF-8; stepping one byte keeps loops going.
        1
    }
}

fn analyze_scalar(value: &[u8]) -> Analysis {
    if value.is_empty() {
        return Analysis {
            multiline: false,
            flow_plain_allowed: false,
            block_plain_allowed: true,
            single_quoted_allowed: true,
            block_allowed: false,
        };
    }
    let mut block_indicators = false;
    let mut flow_indicators = false;
    let mut line_breaks = false;
    let mut special_characters = false;
    let mut leading_space = false;
    let mut leading_break = false;
    let mut trailing_space = false;
    let mut trailing_break = false;
    let mut break_space = false;
    let mut space_break = false;
    let mut previous_space = false;
    let mut previous_break = false;

    if value.starts_with(b"---") || value.starts_with(b"...") {
        block_indicators = true;
        flow_indicators = true;
    }
    let mut preceded_by_whitespace = true;
    let mut i = 0;
    while i < value.len() {
        let w = width(value[i]);
        let followed_by_whitespace = i + w >= value.len() || is_blank(value, i + w);
        if i == 0 {
            match value[i] {
                b'#' | b',' | b'[' | b']' | b'{' | b'}' | b'&' | b'*' | b'!' | b'|' | b'>'
                | b'\'' | b'"' | b'%' | b'@' | b'`' => {
                    flow_indicators = true;
                    block_indicators = true;
                }
                b'?' | b':' => {
                    flow_indicators = true;
                    if followed_by_whitespace {
                        block_indicators = true;
                    }
                }
                b'-' if followed_by_whitespace => {
                    flow_indicators = true;
                    block_indicators = true;
                }
                _ => {}
            }
        } else {
            match value[i] {
                b',' | b'?' | b'[' | b']' | b'{' | b'}' => flow_indicators = true,
                b':' => {
                    flow_indicators = true;
                    if followed_by_whitespace {
                        block_indicators = true;
                    }
                }
                b'#' if preceded_by_whitespace => {
                    flow_indicators = true;
                    block_indicators = true;
                }
                _ => {}
            }
        }
        // go-cty-yaml turns unicode output on, so only unprintable
        // characters are special.
        if !is_printable(value, i) {
            special_characters = true;
        }
        if is_space(value, i) {
            if i == 0 {
                leading_space = true;
            }
            if i + w == value.len() {
                trailing_space = true;
            }
            if previous_break {
                break_space = true;
            }
            previous_space = true;
            previous_break = false;
        } else if is_break(value, i) {
            line_breaks = true;
            if i == 0 {
                leading_break = true;
            }
            if i + w == value.len() {
                trailing_break = true;
            }
            if previous_space {
                space_break = true;
            }
            previous_space = false;
            previous_break = true;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_whitespace = is_blankz(value, i);
        i += w;
    }

    let mut a = Analysis {
        multiline: line_breaks,
        flow_plain_allowed: true,
        block_plain_allowed: true,
        single_quoted_allowed: true,
        block_allowed: true,
    };
    if leading_space || leading_break || trailing_space || trailing_break {
        a.flow_plain_allowed = false;
        a.block_plain_allowed = false;
    }
    if trailing_space {
        a.block_allowed = false;
    }
    if break_space {
        a.flow_plain_allowed = false;
        a.block_plain_allowed = false;
        a.single_quoted_allowed = false;
    }
    if space_break || special_characters {
        a.flow_plain_allowed = false;
        a.block_plain_allowed = false;
        a.single_quoted_allowed = false;
        a.block_allowed = false;
    }
    if line_breaks {
        a.flow_plain_allowed = false;
        a.block_plain_allowed = false;
    }
    if flow_indicators {
        a.flow_plain_allowed = false;
    }
    if block_indicators {
        a.block_plain_allowed = false;
    }
    a
}

/// How go-cty-yaml asks for a primitive to be written.
fn scalar_text(value: &Value) -> Option<(String, Style)> {
    if value.is_null() {
        return Some(("null".to_string(), Style::Plain));
    }
    match value.ty() {
        Type::String => {
            let text = value.as_str().unwrap_or_default();
            let style = if text.contains('\n') {
                Style::Literal
            } else {
                Style::DoubleQuoted
            };
            Some((text.to_string(), style))
        }
        Type::Number => Some((value.as_number()?.text('f', -1), Style::Plain)),
        Type::Bool => Some((
            if value.as_bool()? { "true" } else { "false" }.to_string(),
            Style::Plain,
        )),
        _ => None,
    }
}

impl Emitter {
    fn new() -> Emitter {
        Emitter {
            out: Vec::new(),
            column: 0,
            whitespace: true,
            indention: true,
            open_ended: false,
            indent: -1,
            indents: Vec::new(),
            flow_level: 0,
            root_context: false,
            mapping_context: false,
            simple_key_context: false,
        }
    }

    fn put(&mut self, byte: u8) {
        self.out.push(byte);
        self.column += 1;
    }

    fn put_break(&mut self) {
        self.out.push(b'\n');
        self.column = 0;
    }

    /// Copies one character; the column counts characters.
    fn write(&mut self, value: &[u8], i: &mut usize) {
        let w = width(value[*i]).min(value.len() - *i);
        self.out.extend_from_slice(&value[*i..*i + w]);
        self.column += 1;
        *i += w;
    }

    fn write_break(&mut self, value: &[u8], i: &mut usize) {
        if value[*i] == b'\n' {
            self.put_break();
            *i += 1;
        } else {
            self.write(value, i);
            self.column = 0;
        }
    }

    fn increase_indent(&mut self, flow: bool, indentless: bool) {
        self.indents.push(self.indent);
        if self.indent < 0 {
            self.indent = if flow { BEST_INDENT } else { 0 };
        } else if !indentless {
            self.indent += BEST_INDENT;
        }
    }

    fn pop_indent(&mut self) {
        self.indent = self.indents.pop().unwrap_or(-1);
    }

    fn write_indent(&mut self) {
        let indent = self.indent.max(0);
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent {
            self.put(b' ');
        }
        self.whitespace = true;
        self.indention = true;
    }

    fn write_indicator(
        &mut self,
        indicator: &[u8],
        need_whitespace: bool,
        is_whitespace: bool,
        is_indention: bool,
    ) {
        if need_whitespace && !self.whitespace {
            self.put(b' ');
        }
        let mut i = 0;
        while i < indicator.len() {
            self.write(indicator, &mut i);
        }
        self.whitespace = is_whitespace;
        self.indention = self.indention && is_indention;
        self.open_ended = false;
    }

    fn emit_node(
        &mut self,
        value: &Value,
        root: bool,
        _sequence: bool,
        mapping: bool,
        simple_key: bool,
    ) -> Result<(), String> {
        self.root_context = root;
        self.mapping_context = mapping;
        self.simple_key_context = simple_key;
        if let Some((text, style)) = scalar_text(value) {
            self.emit_scalar(text.as_bytes(), style);
            return Ok(());
        }
        if !value.is_known() {
            return Err("cannot serialize unknown value as YAML".to_string());
        }
        match value.ty() {
            Type::List(_) | Type::Set(_) | Type::Tuple(_) => {
                let items = value.as_elements().unwrap_or(&[]);
                if self.flow_level > 0 || items.is_empty() {
                    self.write_indicator(b"[", true, true, false);
                    self.increase_indent(true, false);
                    self.flow_level += 1;
                    self.flow_level -= 1;
                    self.pop_indent();
                    self.write_indicator(b"]", false, false, false);
                    return Ok(());
                }
                self.increase_indent(false, self.mapping_context && !self.indention);
                for item in items {
                    self.write_indent();
                    self.write_indicator(b"-", true, false, true);
                    self.emit_node(item, false, true, false, false)?;
                }
                self.pop_indent();
                Ok(())
            }
            Type::Map(_) | Type::Object(_) => {
                let empty = terrace_value::Attrs::new();
                let entries = value.as_attributes().unwrap_or(&empty);
                if self.flow_level > 0 || entries.is_empty() {
                    self.write_indicator(b"{", true, true, false);
                    self.increase_indent(true, false);
                    self.flow_level += 1;
                    self.flow_level -= 1;
                    self.pop_indent();
                    self.write_indicator(b"}", false, false, false);
                    return Ok(());
                }
                self.increase_indent(false, false);
                for (key, item) in entries {
                    self.write_indent();
                    let key_value = Value::string(key);
                    let analysis = analyze_scalar(key.as_bytes());
                    if !analysis.multiline && key.len() <= 128 {
                        self.emit_node(&key_value, false, false, true, true)?;
                        self.write_indicator(b":", false, false, false);
                    } else {
                        self.write_indicator(b"?", true, false, true);
                        self.emit_node(&key_value, false, false, true, false)?;
                        self.write_indent();
                        self.write_indicator(b":", true, false, true);
                    }
                    self.emit_node(item, false, false, true, false)?;
                }
                self.pop_indent();
                Ok(())
            }
            other => Err(format!("can't marshal {} as YAML", other.friendly_name())),
        }
    }

    fn select_style(&self, requested: Style, analysis: &Analysis, value: &[u8]) -> Style {
        let mut style = requested;
        if self.simple_key_context && analysis.multiline {
            style = Style::DoubleQuoted;
        }
        if style == Style::Plain {
            if (self.flow_level > 0 && !analysis.flow_plain_allowed)
                || (self.flow_level == 0 && !analysis.block_plain_allowed)
            {
                style = Style::SingleQuoted;
            }
            if value.is_empty() && (self.flow_level > 0 || self.simple_key_context) {
                style = Style::SingleQuoted;
            }
        }
        if style == Style::SingleQuoted && !analysis.single_quoted_allowed {
            style = Style::DoubleQuoted;
        }
        if style == Style::Literal
            && (!analysis.block_allowed || self.flow_level > 0 || self.simple_key_context)
        {
            style = Style::DoubleQuoted;
        }
        style
    }

    fn emit_scalar(&mut self, value: &[u8], requested: Style) {
        let analysis = analyze_scalar(value);
        let style = self.select_style(requested, &analysis, value);
        self.increase_indent(true, false);
        let allow_breaks = !self.simple_key_context;
        match style {
            Style::Plain => self.write_plain(value, allow_breaks),
            Style::SingleQuoted => self.write_single_quoted(value, allow_breaks),
            Style::DoubleQuoted => self.write_double_quoted(value, allow_breaks),
            Style::Literal => self.write_literal(value),
        }
        self.pop_indent();
    }

    fn write_plain(&mut self, value: &[u8], allow_breaks: bool) {
        if !self.whitespace {
            self.put(b' ');
        }
        let mut spaces = false;
        let mut breaks = false;
        let mut i = 0;
        while i < value.len() {
            if is_space(value, i) {
                if allow_breaks && !spaces && self.column > BEST_WIDTH && !is_space(value, i + 1) {
                    self.write_indent();
                    i += width(value[i]);
                } else {
                    self.write(value, &mut i);
                }
                spaces = true;
            } else if is_break(value, i) {
                if !breaks && value[i] == b'\n' {
                    self.put_break();
                }
                self.write_break(value, &mut i);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.write(value, &mut i);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        self.whitespace = false;
        self.indention = false;
        if self.root_context {
            self.open_ended = true;
        }
    }

    fn write_single_quoted(&mut self, value: &[u8], allow_breaks: bool) {
        self.write_indicator(b"'", true, false, false);
        let mut spaces = false;
        let mut breaks = false;
        let mut i = 0;
        while i < value.len() {
            if is_space(value, i) {
                if allow_breaks
                    && !spaces
                    && self.column > BEST_WIDTH
                    && i > 0
                    && i < value.len() - 1
                    && !is_space(value, i + 1)
                {
                    self.write_indent();
                    i += width(value[i]);
                } else {
                    self.write(value, &mut i);
                }
                spaces = true;
            } else if is_break(value, i) {
                if !breaks && value[i] == b'\n' {
                    self.put_break();
                }
                self.write_break(value, &mut i);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                if value[i] == b'\'' {
                    self.put(b'\'');
                }
                self.write(value, &mut i);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        self.write_indicator(b"'", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_double_quoted(&mut self, value: &[u8], allow_breaks: bool) {
        let mut spaces = false;
        self.write_indicator(b"\"", true, false, false);
        let mut i = 0;
        while i < value.len() {
            if !is_printable(value, i)
                || starts_with_bom(value)
                || is_break(value, i)
                || value[i] == b'"'
                || value[i] == b'\\'
            {
                let w = width(value[i]).min(value.len() - i);
                let mut v: u32 = match w {
                    1 => u32::from(value[i] & 0x7F),
                    2 => u32::from(value[i] & 0x1F),
                    3 => u32::from(value[i] & 0x0F),
                    _ => u32::from(value[i] & 0x07),
                };
                for k in 1..w {
                    v = (v << 6) + u32::from(value[i + k] & 0x3F);
                }
                i += w;
                self.put(b'\\');
                match v {
                    0x00 => self.put(b'0'),
                    0x07 => self.put(b'a'),
                    0x08 => self.put(b'b'),
                    0x09 => self.put(b't'),
                    0x0A => self.put(b'n'),
                    0x0B => self.put(b'v'),
                    0x0C => self.put(b'f'),
                    0x0D => self.put(b'r'),
                    0x1B => self.put(b'e'),
                    0x22 => self.put(b'"'),
                    0x5C => self.put(b'\\'),
                    0x85 => self.put(b'N'),
                    0xA0 => self.put(b'_'),
                    0x2028 => self.put(b'L'),
                    0x2029 => self.put(b'P'),
                    _ => {
                        let (letter, digits) = if v <= 0xFF {
                            (b'x', 2)
                        } else if v <= 0xFFFF {
                            (b'u', 4)
                        } else {
                            (b'U', 8)
                        };
                        self.put(letter);
                        for k in (0..digits).rev() {
                            let digit = ((v >> (4 * k)) & 0x0F) as u8;
                            self.put(if digit < 10 {
                                b'0' + digit
                            } else {
                                b'A' + digit - 10
                            });
                        }
                    }
                }
                spaces = false;
            } else if is_space(value, i) {
                if allow_breaks
                    && !spaces
                    && self.column > BEST_WIDTH
                    && i > 0
                    && i < value.len() - 1
                {
                    self.write_indent();
                    if is_space(value, i + 1) {
                        self.put(b'\\');
                    }
                    i += width(value[i]);
                } else {
                    self.write(value, &mut i);
                }
                spaces = true;
            } else {
                self.write(value, &mut i);
                spaces = false;
            }
        }
        self.write_indicator(b"\"", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_block_scalar_hints(&mut self, value: &[u8]) {
        if is_space(value, 0) || is_break(value, 0) {
            let hint = [b'0' + BEST_INDENT as u8];
            self.write_indicator(&hint, false, false, false);
        }
        self.open_ended = false;
        let mut chomp = None;
        if value.is_empty() {
            chomp = Some(b'-');
        } else {
            let mut i = value.len() - 1;
            while i > 0 && value[i] & 0xC0 == 0x80 {
                i -= 1;
            }
            if !is_break(value, i) {
                chomp = Some(b'-');
            } else if i == 0 {
                chomp = Some(b'+');
                self.open_ended = true;
            } else {
                i -= 1;
                while i > 0 && value[i] & 0xC0 == 0x80 {
                    i -= 1;
                }
                if is_break(value, i) {
                    chomp = Some(b'+');
                    self.open_ended = true;
                }
            }
        }
        if let Some(chomp) = chomp {
            self.write_indicator(&[chomp], false, false, false);
        }
    }

    fn write_literal(&mut self, value: &[u8]) {
        self.write_indicator(b"|", true, false, false);
        self.write_block_scalar_hints(value);
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        let mut breaks = true;
        let mut i = 0;
        while i < value.len() {
            if is_break(value, i) {
                self.write_break(value, &mut i);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.write(value, &mut i);
                self.indention = false;
                breaks = false;
            }
        }
    }
}

// ===== decoding =====

const STR_TAG: &str = "tag:yaml.org,2002:str";
const BINARY_TAG: &str = "tag:yaml.org,2002:binary";
const BOOL_TAG: &str = "tag:yaml.org,2002:bool";
const INT_TAG: &str = "tag:yaml.org,2002:int";
const FLOAT_TAG: &str = "tag:yaml.org,2002:float";
const NULL_TAG: &str = "tag:yaml.org,2002:null";
const TIMESTAMP_TAG: &str = "tag:yaml.org,2002:timestamp";
const SEQ_TAG: &str = "tag:yaml.org,2002:seq";
const MAP_TAG: &str = "tag:yaml.org,2002:map";

/// The type `yamldecode` gives its result (go-cty-yaml's `ImpliedType`,
/// which makes exactly the decisions the decoder makes).
pub(super) fn implied_type(src: &str) -> Result<Type, String> {
    decode(src).map(|v| v.ty().clone())
}

/// go-cty-yaml's `Unmarshal` into the implied type.
pub(super) fn unmarshal(src: &str, ty: &Type) -> Result<Value, String> {
    let value = decode(src)?;
    convert(&value, ty).map_err(|e| e.to_string())
}

fn with_position(mark: Mark, message: String) -> String {
    // go-cty-yaml reports libyaml's zero-based line, and leaves the position
    // out altogether on the first line.
    if mark.line == 0 {
        message
    } else {
        format!(
            "on line {}, column {}: {message}",
            mark.line,
            mark.column + 1
        )
    }
}

fn parser_error(error: &libyaml_safer::Error) -> String {
    let problem = error.problem();
    let cause = if problem.is_empty() {
        "invalid YAML syntax".to_string()
    } else {
        problem.to_string()
    };
    if let Some(mark) = error.problem_mark().filter(|m| m.line != 0) {
        let (line, column) = if error.kind() == ErrorKind::Scanner {
            (mark.line + 1, 0)
        } else {
            (mark.line, mark.column)
        };
        return format!("on line {line}, column {}: {cause}", column + 1);
    }
    if let Some(mark) = error.context_mark().filter(|m| m.line != 0) {
        return format!("on line {}, column {}: {cause}", mark.line, mark.column + 1);
    }
    cause
}

fn event_name(data: &EventData) -> &'static str {
    match data {
        EventData::StreamStart { .. } => "stream start",
        EventData::StreamEnd => "stream end",
        EventData::DocumentStart { .. } => "document start",
        EventData::DocumentEnd { .. } => "document end",
        EventData::Alias { .. } => "alias",
        EventData::Scalar { .. } => "scalar",
        EventData::SequenceStart { .. } => "sequence start",
        EventData::SequenceEnd => "sequence end",
        EventData::MappingStart { .. } => "mapping start",
        EventData::MappingEnd => "mapping end",
    }
}

struct Decoder<'a> {
    parser: Parser<&'a [u8]>,
    /// Anchors whose node is still being read, with how many times.
    pending: HashMap<String, usize>,
    anchors: HashMap<String, Value>,
}

enum Resolved {
    Value(Value),
    /// The `<<` merge key (go-cty-yaml v1.1 recognises it by resolving it).
    Merge,
}

thread_local! {
    /// Set while libyaml_safer runs on this thread, so its panics are not
    /// reported by the panic hook.
    static PARSING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// libyaml_safer panics on a few malformed inputs where libyaml reports an
/// error (for example a tag followed directly by `,` in a flow
/// collection). User input must never panic, so such a panic becomes a
/// syntax error, without the panic hook printing it.
fn decode(src: &str) -> Result<Value, String> {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !PARSING.with(std::cell::Cell::get) {
                previous(info);
            }
        }));
    });
    PARSING.with(|p| p.set(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| decode_events(src)));
    PARSING.with(|p| p.set(false));
    result.unwrap_or_else(|_| Err("did not find expected whitespace or line break".to_string()))
}

fn decode_events(src: &str) -> Result<Value, String> {
    let input: &[u8] = if src.is_empty() {
        b"\n"
    } else {
        src.as_bytes()
    };
    let mut parser = Parser::new();
    parser.set_input(input);
    let mut decoder = Decoder {
        parser,
        pending: HashMap::new(),
        anchors: HashMap::new(),
    };

    let event = decoder.next()?;
    if !matches!(event.data, EventData::StreamStart { .. }) {
        return Err(with_position(
            event.start_mark,
            "missing stream start token".to_string(),
        ));
    }
    let event = decoder.next()?;
    if !matches!(event.data, EventData::DocumentStart { .. }) {
        return Err(with_position(
            event.start_mark,
            "missing start of document".to_string(),
        ));
    }
    let event = decoder.next()?;
    let value = decoder.node(event)?;
    let event = decoder.next()?;
    match event.data {
        EventData::DocumentStart { .. } => {
            return Err(with_position(
                event.start_mark,
                "only a single document is allowed".to_string(),
            ))
        }
        EventData::DocumentEnd { .. } => {}
        ref other => {
            return Err(with_position(
                event.start_mark,
                format!(
                    "unexpected extra content ({}) after value",
                    event_name(other)
                ),
            ))
        }
    }
    let event = decoder.next()?;
    if !matches!(event.data, EventData::StreamEnd) {
        return Err(with_position(
            event.start_mark,
            "unexpected extra content after value".to_string(),
        ));
    }
    Ok(value)
}

impl Decoder<'_> {
    fn next(&mut self) -> Result<Event, String> {
        self.parser.parse().map_err(|e| parser_error(&e))
    }

    fn begin_anchor(&mut self, anchor: &Option<String>) {
        if let Some(name) = anchor {
            *self.pending.entry(name.clone()).or_insert(0) += 1;
        }
    }

    fn complete_anchor(&mut self, anchor: &Option<String>, value: &Value) {
        if let Some(name) = anchor {
            if let Some(count) = self.pending.get_mut(name) {
                *count -= 1;
                if *count == 0 {
                    self.pending.remove(name);
                }
            }
            self.anchors.insert(name.clone(), value.clone());
        }
    }

    fn node(&mut self, event: Event) -> Result<Value, String> {
        let mark = event.start_mark;
        match event.data {
            EventData::Scalar {
                anchor,
                tag,
                value,
                style,
                ..
            } => {
                self.begin_anchor(&anchor);
                let resolved = resolve_scalar(tag.as_deref().unwrap_or(""), &value, style)
                    .map_err(|e| with_position(mark, e))?;
                // Outside a mapping key, `<<` is just a string.
                let value = match resolved {
                    Resolved::Value(v) => v,
                    Resolved::Merge => Value::string("<<"),
                };
                self.complete_anchor(&anchor, &value);
                Ok(value)
            }
            EventData::Alias { anchor } => {
                if self.pending.contains_key(&anchor) {
                    return Err(with_position(
                        mark,
                        format!(
                            "cannot refer to anchor {} from inside its own definition",
                            gostr::quote(&anchor)
                        ),
                    ));
                }
                self.anchors.get(&anchor).cloned().ok_or_else(|| {
                    with_position(
                        mark,
                        format!("reference to undefined anchor {}", gostr::quote(&anchor)),
                    )
                })
            }
            EventData::MappingStart { anchor, tag, .. } => {
                if let Some(tag) = tag.as_deref().filter(|t| *t != MAP_TAG) {
                    return Err(with_position(
                        mark,
                        format!("can't interpret mapping as {tag}"),
                    ));
                }
                self.begin_anchor(&anchor);
                let value = self.mapping()?;
                self.complete_anchor(&anchor, &value);
                Ok(value)
            }
            EventData::SequenceStart { anchor, tag, .. } => {
                if let Some(tag) = tag.as_deref().filter(|t| *t != SEQ_TAG) {
                    return Err(with_position(
                        mark,
                        format!("can't interpret sequence as {tag}"),
                    ));
                }
                self.begin_anchor(&anchor);
                let mut items = Vec::new();
                loop {
                    let event = self.next()?;
                    if matches!(event.data, EventData::SequenceEnd) {
                        break;
                    }
                    items.push(self.node(event)?);
                }
                let value = Value::tuple(items);
                self.complete_anchor(&anchor, &value);
                Ok(value)
            }
            EventData::DocumentStart { .. } => Err(with_position(
                mark,
                "only a single document is allowed".to_string(),
            )),
            EventData::StreamEnd => Err(with_position(
                mark,
                "expecting value but found end of stream".to_string(),
            )),
            ref other => Err(with_position(
                mark,
                format!("unexpected parser event {}", event_name(other)),
            )),
        }
    }

    fn mapping(&mut self) -> Result<Value, String> {
        let mut attrs: BTreeMap<String, Value> = BTreeMap::new();
        loop {
            let event = self.next()?;
            let mark = event.start_mark;
            let (tag, text, style) = match &event.data {
                EventData::MappingEnd => return Ok(Value::object(attrs)),
                EventData::Scalar {
                    tag, value, style, ..
                } => (tag.clone(), value.clone(), *style),
                _ => {
                    return Err(with_position(
                        mark,
                        "only strings are allowed as mapping keys".to_string(),
                    ))
                }
            };
            let key = match resolve_scalar(tag.as_deref().unwrap_or(""), &text, style)? {
                Resolved::Merge => {
                    let event = self.next()?;
                    let merged = self.node(event)?;
                    match merged.as_attributes().filter(|_| merged.ty().is_object()) {
                        Some(members) => {
                            for (k, v) in members {
                                attrs.insert(k.clone(), v.clone());
                            }
                        }
                        None => {
                            return Err(with_position(
                                mark,
                                format!(
                                    "cannot merge {} into mapping",
                                    merged.ty().friendly_name()
                                ),
                            ))
                        }
                    }
                    continue;
                }
                Resolved::Value(key) => key,
            };
            let key = convert(&key, &Type::String).map_err(|_| {
                with_position(mark, "only strings are allowed as mapping keys".to_string())
            })?;
            let Some(key) = key.as_str().map(str::to_string) else {
                return Err(with_position(
                    mark,
                    "mapping key cannot be null".to_string(),
                ));
            };
            let event = self.next()?;
            let value = self.node(event)?;
            attrs.insert(key, value);
        }
    }
}

fn is_integer_literal(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = |d: &[u8], ok: fn(&u8) -> bool| !d.is_empty() && d.iter().all(ok);
    let unsigned = b
        .strip_prefix(b"-")
        .or_else(|| b.strip_prefix(b"+"))
        .unwrap_or(b);
    digits(unsigned, u8::is_ascii_digit)
        || b.strip_prefix(b"0o")
            .is_some_and(|d| digits(d, |c| (b'0'..=b'7').contains(c)))
        || b.strip_prefix(b"0x")
            .is_some_and(|d| digits(d, u8::is_ascii_hexdigit))
}

/// `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`
fn is_float_literal(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'-' | b'+')));
    let count_digits = |from: usize| b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    if b.get(i) == Some(&b'.') {
        let n = count_digits(i + 1);
        if n == 0 {
            return false;
        }
        i += 1 + n;
    } else {
        let n = count_digits(i);
        if n == 0 {
            return false;
        }
        i += n;
        if b.get(i) == Some(&b'.') {
            i += 1 + count_digits(i + 1);
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'-' | b'+')) {
            i += 1;
        }
        let n = count_digits(i);
        if n == 0 {
            return false;
        }
        i += n;
    }
    i == b.len()
}

/// Go's `strconv.ParseInt(s, 0, 64)`, then `ParseUint(s, 0, 64)`.
fn parse_go_integer(s: &str) -> Option<Number> {
    let (negative, signed, body) = match s.as_bytes().first() {
        Some(b'-') => (true, true, &s[1..]),
        Some(b'+') => (false, true, &s[1..]),
        _ => (false, false, s),
    };
    let lower = body.to_ascii_lowercase();
    let (radix, digits) = if let Some(d) = lower.strip_prefix("0x") {
        (16, d.to_string())
    } else if let Some(d) = lower.strip_prefix("0o") {
        (8, d.to_string())
    } else if let Some(d) = lower.strip_prefix("0b") {
        (2, d.to_string())
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, lower[1..].to_string())
    } else {
        (10, lower)
    };
    if digits.is_empty() {
        return None;
    }
    let magnitude = u128::from_str_radix(&digits, radix).ok()?;
    if negative {
        if magnitude <= 1u128 << 63 {
            return Some(Number::from_i64((magnitude as i128).wrapping_neg() as i64));
        }
        return None;
    }
    if magnitude < 1u128 << 63 {
        return Some(Number::from_i64(magnitude as i64));
    }
    if !signed && magnitude <= u128::from(u64::MAX) {
        return Some(Number::from_u64(magnitude as u64));
    }
    None
}

/// go-cty-yaml's `resolveScalar`.
fn resolve_scalar(tag: &str, src: &str, style: ScalarStyle) -> Result<Resolved, String> {
    let resolvable = matches!(
        tag,
        "" | STR_TAG | BOOL_TAG | INT_TAG | FLOAT_TAG | NULL_TAG | TIMESTAMP_TAG | BINARY_TAG
    );
    if !resolvable {
        return Err(format!("unsupported tag {}", gostr::quote(tag)));
    }
    let hint = match src.as_bytes().first() {
        None => Some(b'N'),
        Some(b'+' | b'-') => Some(b'S'),
        Some(b'0'..=b'9') => Some(b'D'),
        Some(b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~') => {
            Some(b'M')
        }
        Some(b'.') => Some(b'.'),
        _ => None,
    };
    let mut tag = tag;
    if let Some(hint) = hint.filter(|_| tag != STR_TAG && tag != BINARY_TAG) {
        if matches!(style, ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted) {
            return Ok(Resolved::Value(Value::string(src)));
        }
        if let Some(value) = resolve_map(src) {
            return Ok(Resolved::Value(value));
        }
        if tag.is_empty() && matches!(src, ".nan" | ".NaN" | ".NAN") {
            return Err("floating point NaN is not supported".to_string());
        }
        match hint {
            b'.' => {
                if let Some(n) = Number::parse(src) {
                    return Ok(Resolved::Value(Value::number(n)));
                }
            }
            b'D' | b'S' => {
                if tag.is_empty() || tag == TIMESTAMP_TAG {
                    if let Some(text) = yaml_timestamp(src) {
                        return Ok(Resolved::Value(Value::string(text)));
                    }
                }
                if is_integer_literal(src) {
                    tag = INT_TAG;
                } else if is_float_literal(src) {
                    tag = FLOAT_TAG;
                }
            }
            _ => {}
        }
    }
    if tag.is_empty() && src == "<<" {
        return Ok(Resolved::Merge);
    }
    let value = match tag {
        STR_TAG | BINARY_TAG => {
            if tag == BINARY_TAG && super::base64_decode(src.as_bytes()).is_err() {
                return Err(format!(
                    "cannot parse {} as {tag}: not valid base64",
                    gostr::quote(src)
                ));
            }
            Value::string(src)
        }
        BOOL_TAG => match resolve_map(src) {
            Some(v) if v.ty() == &Type::Bool => v,
            _ => return Err(format!("cannot parse {} as {tag}", gostr::quote(src))),
        },
        FLOAT_TAG | INT_TAG => {
            let plain = src.replace('_', "");
            match Number::parse(&plain).or_else(|| parse_go_integer(&plain)) {
                Some(n) => Value::number(n),
                None => return Err(format!("cannot parse {} as {tag}", gostr::quote(src))),
            }
        }
        TIMESTAMP_TAG => match yaml_timestamp(src) {
            Some(text) => Value::string(text),
            None => return Err(format!("cannot parse {} as {tag}", gostr::quote(src))),
        },
        NULL_TAG => Value::null(Type::Dynamic),
        _ => Value::string(src),
    };
    Ok(Resolved::Value(value))
}

fn resolve_map(src: &str) -> Option<Value> {
    let value = match src {
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            Value::bool(true)
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            Value::bool(false)
        }
        "" | "~" | "null" | "Null" | "NULL" => Value::null(Type::Dynamic),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            Value::number(Number::infinity(false))
        }
        "-.inf" | "-.Inf" | "-.INF" => Value::number(Number::infinity(true)),
        _ => return None,
    };
    Some(value)
}

/// One or two digits, as Go's `getnum` for a non-padded layout field.
fn getnum(s: &[u8]) -> Option<(i64, &[u8])> {
    let first = *s.first().filter(|c| c.is_ascii_digit())?;
    match s.get(1).filter(|c| c.is_ascii_digit()) {
        Some(&second) => Some((
            i64::from(first - b'0') * 10 + i64::from(second - b'0'),
            &s[2..],
        )),
        None => Some((i64::from(first - b'0'), &s[1..])),
    }
}

/// The YAML timestamp forms go-cty-yaml accepts (Go layouts
/// `2006-1-2T15:4:5.999999999Z07:00`, the same with `t`,
/// `2006-1-2 15:4:5.999999999` and `2006-1-2`), as RFC 3339 text.
fn yaml_timestamp(s: &str) -> Option<String> {
    let b = s.as_bytes();
    if b.len() < 5 || !b[..4].iter().all(u8::is_ascii_digit) || b[4] != b'-' {
        return None;
    }
    let year = b[..4]
        .iter()
        .fold(0i64, |acc, c| acc * 10 + i64::from(c - b'0'));
    let (month, rest) = getnum(&b[5..])?;
    if !(1..=12).contains(&month) {
        return None;
    }
    let rest = rest.strip_prefix(b"-")?;
    let (day, rest) = getnum(rest)?;
    let valid_day = |day: i64| {
        day >= 1 && day <= i64::from(super::super::datetime::days_in(month as u32, year))
    };
    if rest.is_empty() {
        return valid_day(day)
            .then(|| GoTime::from_fields([year, month, day, 0, 0, 0], 0, 0).format_rfc3339());
    }
    let (zoned, rest) = match rest[0] {
        b'T' | b't' => (true, &rest[1..]),
        b' ' => (
            false,
            &rest[rest.iter().take_while(|&&c| c == b' ').count()..],
        ),
        _ => return None,
    };
    let (hour, rest) = getnum(rest)?;
    let rest = rest.strip_prefix(b":")?;
    let (minute, rest) = getnum(rest)?;
    let rest = rest.strip_prefix(b":")?;
    let (second, mut rest) = getnum(rest)?;
    if hour >= 24 || minute >= 60 || second >= 60 {
        return None;
    }
    let mut nanos = 0u32;
    if rest.len() >= 2 && (rest[0] == b'.' || rest[0] == b',') && rest[1].is_ascii_digit() {
        let n = 1 + rest[1..].iter().take_while(|c| c.is_ascii_digit()).count();
        let end = n.min(10);
        nanos = rest[1..end]
            .iter()
            .fold(0u32, |acc, c| acc * 10 + u32::from(c - b'0'));
        for _ in end..10 {
            nanos *= 10;
        }
        rest = &rest[n..];
    }
    let mut offset = 0i32;
    if zoned {
        if rest.first() == Some(&b'Z') {
            rest = &rest[1..];
        } else {
            if rest.len() < 6 || rest[3] != b':' {
                return None;
            }
            let two = |d: &[u8]| {
                (d[0].is_ascii_digit() && d[1].is_ascii_digit())
                    .then(|| i32::from(d[0] - b'0') * 10 + i32::from(d[1] - b'0'))
            };
            let (h, m) = (two(&rest[1..3])?, two(&rest[4..6])?);
            if h > 24 || m > 60 {
                return None;
            }
            offset = match rest[0] {
                b'+' => (h * 60 + m) * 60,
                b'-' => -(h * 60 + m) * 60,
                _ => return None,
            };
            rest = &rest[6..];
        }
    }
    if !rest.is_empty() || !valid_day(day) {
        return None;
    }
    Some(
        GoTime::from_fields([year, month, day, hour, minute, second], nanos, offset)
            .format_rfc3339(),
    )
}
