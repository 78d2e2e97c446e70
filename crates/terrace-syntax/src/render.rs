//! Renders diagnostics for humans the way Terraform does: the boxed, coloured
//! form for terminals, the same box without colour, and the plain form
//! `-no-color` prints. Source excerpts come from a [`SourceMap`]; the
//! `, in resource "x" "y"` context comes from the file's top-level blocks
//! (or, for JSON, the path of nested objects), as HCL computes it.

use crate::ast::{Body, File, JsonProperty, JsonValue, JsonValueKind, SourceFile};
use crate::diagnostic::{Diagnostic, Severity, SourceRange};
use crate::pos::Pos;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};
use terrace_value::gostr;

/// The width Terraform wraps detail text to when output is not a terminal.
pub const DEFAULT_WIDTH: usize = 78;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RenderStyle {
    /// `-no-color`: no box, no escape sequences.
    Plain,
    /// The box-drawing left rule without escape sequences.
    Boxed,
    /// What Terraform prints to a terminal: the box with ANSI colours and
    /// the subject underlined.
    Color,
}

/// Source files by name, for excerpts and block context.
#[derive(Default)]
pub struct SourceMap {
    files: HashMap<String, SourceEntry>,
}

struct SourceEntry {
    source: Arc<SourceFile>,
    /// Parsed on first use when only the text was given, as Terraform
    /// re-parses a file to find the block around a diagnostic.
    file: OnceLock<File>,
}

impl SourceMap {
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    /// Adds a parsed file; its tree is used for block context.
    pub fn add_file(&mut self, file: File) {
        let name = file.source.name.clone();
        let source = file.source.clone();
        let cell = OnceLock::new();
        let _ = cell.set(file);
        self.files.insert(name, SourceEntry { source, file: cell });
    }

    /// Adds a file's text; it is parsed only if a diagnostic needs context.
    pub fn add_source(&mut self, source: Arc<SourceFile>) {
        self.files.insert(
            source.name.clone(),
            SourceEntry {
                source,
                file: OnceLock::new(),
            },
        );
    }

    pub fn add_text(&mut self, name: &str, text: &str) {
        self.add_source(SourceFile::new(name, text));
    }

    pub fn source(&self, name: &str) -> Option<&Arc<SourceFile>> {
        self.files.get(name).map(|e| &e.source)
    }

    fn context(&self, name: &str, offset: i64) -> Option<String> {
        let entry = self.files.get(name)?;
        let offset = usize::try_from(offset).ok()?;
        let file = entry
            .file
            .get_or_init(|| crate::parse_file(&entry.source.name, &entry.source.text).0);
        context_string(file, offset)
    }
}

/// The header of the block that contains `offset`, as HCL's
/// `ContextString`: for native syntax the top-level block (`resource "a"
/// "b"`), for JSON the dotted path of the objects around it.
pub fn context_string(file: &File, offset: usize) -> Option<String> {
    let offset = offset as u32;
    match &file.body {
        Body::Native(body) => {
            let block = body
                .blocks
                .iter()
                .find(|b| b.span.start <= offset && offset < b.span.end)?;
            let mut s = block.block_type.clone();
            for (label, _) in &block.labels {
                s.push(' ');
                s.push_str(&gostr::quote(label));
            }
            Some(s)
        }
        Body::Json(body) => {
            let mut steps = Vec::new();
            json_context_props(&body.properties, offset, &mut steps);
            let s = steps.concat();
            let s = s.strip_prefix('.').unwrap_or(&s).to_string();
            (!s.is_empty()).then_some(s)
        }
    }
}

fn json_context_props(props: &[JsonProperty], offset: u32, steps: &mut Vec<String>) {
    for p in props {
        if !matches!(
            p.value.kind,
            JsonValueKind::Object(_) | JsonValueKind::Array(_)
        ) {
            continue;
        }
        if p.value.span.start <= offset && offset < p.value.span.end {
            steps.push(format!(".{}", p.name));
            json_context_value(&p.value, offset, steps);
            return;
        }
    }
}

fn json_context_value(v: &JsonValue, offset: u32, steps: &mut Vec<String>) {
    match &v.kind {
        JsonValueKind::Object(props) => json_context_props(props, offset, steps),
        JsonValueKind::Array(elems) => {
            for (i, e) in elems.iter().enumerate() {
                if !matches!(e.kind, JsonValueKind::Object(_) | JsonValueKind::Array(_)) {
                    continue;
                }
                if e.span.start <= offset && offset < e.span.end {
                    steps.push(format!("[{i}]"));
                    json_context_value(e, offset, steps);
                    return;
                }
            }
        }
        _ => {}
    }
}

/// Renders diagnostics one after another.
pub fn render_diagnostics(
    diags: &[Diagnostic],
    sources: &SourceMap,
    style: RenderStyle,
    width: usize,
) -> String {
    diags
        .iter()
        .map(|d| render_diagnostic(d, sources, style, width))
        .collect()
}

/// Renders one diagnostic as Terraform does. `width` is the terminal width
/// (use [`DEFAULT_WIDTH`] when not writing to a terminal); detail text is
/// word-wrapped to fit inside it.
pub fn render_diagnostic(
    diag: &Diagnostic,
    sources: &SourceMap,
    style: RenderStyle,
    width: usize,
) -> String {
    let color = style == RenderStyle::Color;
    let (label, hue) = match diag.severity {
        Severity::Error => ("Error", "31"),
        Severity::Warning => ("Warning", "33"),
    };
    let mut buf = String::new();
    if style == RenderStyle::Plain {
        buf.push('\n');
    }
    if color {
        // Each colourised piece ends with a reset, as Terraform's
        // colorstring use does.
        buf.push_str(&format!("\x1b[1m\x1b[{hue}m{label}: \x1b[0m\x1b[0m"));
        buf.push_str(&format!("\x1b[1m{}\x1b[0m\n\n\x1b[0m", diag.summary));
    } else {
        buf.push_str(&format!("{label}: {}\n\n", diag.summary));
    }

    // The address line sits directly above the source location, and with
    // no location the detail follows it without a blank line, as Terraform
    // lays it out.
    if let Some(address) = &diag.address {
        buf.push_str(&format!("  with {address},\n"));
    }
    if let Some(subject) = &diag.subject {
        append_snippet(&mut buf, diag, subject, sources, color);
    }

    if !diag.detail.is_empty() {
        let para_width = if style == RenderStyle::Plain {
            width as i64 - 1
        } else {
            width as i64 - 3
        };
        for line in diag.detail.split('\n') {
            if para_width > 0 && !line.starts_with(' ') {
                buf.push_str(&wrap_words(line, para_width as usize));
            } else {
                buf.push_str(line);
            }
            buf.push('\n');
        }
    }

    match style {
        RenderStyle::Plain => buf,
        RenderStyle::Boxed => {
            let mut out = String::from("╷\n");
            for line in buf.lines() {
                if line.is_empty() {
                    out.push('│');
                } else {
                    out.push_str("│ ");
                    out.push_str(line);
                }
                out.push('\n');
            }
            out.push_str("╵\n");
            out
        }
        RenderStyle::Color => {
            let prefix = format!("\x1b[{hue}m│\x1b[0m \x1b[0m");
            let mut out = format!("\x1b[{hue}m╷\x1b[0m\x1b[0m\n");
            for line in buf.lines() {
                out.push_str(&prefix);
                out.push_str(line);
                out.push('\n');
            }
            out.push_str(&format!("\x1b[{hue}m╵\x1b[0m\x1b[0m\n"));
            out
        }
    }
}

fn append_snippet(
    buf: &mut String,
    diag: &Diagnostic,
    subject: &SourceRange,
    sources: &SourceMap,
    color: bool,
) {
    let Some(source) = sources.source(&subject.filename) else {
        buf.push_str(&format!(
            "  on {} line {}:\n  (source code not available)\n\n",
            subject.filename, subject.start.line
        ));
        return;
    };

    // The highlight is the subject; the excerpt covers the context too.
    let mut highlight = (subject.start, subject.end);
    if highlight.1 == Pos::default() {
        highlight.1 = highlight.0;
    }
    let mut snippet = match &diag.context {
        Some(c) if c.filename == subject.filename => (c.start, c.end),
        _ => highlight,
    };
    snippet = range_over(snippet, highlight);
    if highlight.0.byte == highlight.1.byte {
        highlight.1.byte += 1;
    }
    if snippet.0.byte == snippet.1.byte {
        snippet.1.byte += 1;
    }

    let context = sources
        .context(&subject.filename, highlight.0.byte as i64 - 1)
        .map(|c| format!(", in {c}"))
        .unwrap_or_default();
    buf.push_str(&format!(
        "  on {} line {}{}:\n",
        subject.filename, highlight.0.line, context
    ));

    let text = source.text.as_str();
    let mut code = String::new();
    let mut code_start: Option<usize> = None;
    for (ls, le) in scan_lines(text) {
        if overlaps((ls as u32, le as u32), (snippet.0.byte, snippet.1.byte)) {
            if code_start.is_none() {
                code_start = Some(ls);
            }
            code.push_str(&text[ls..le]);
            code.push('\n');
        }
    }
    if code.ends_with('\n') {
        code.pop();
    }
    let code_start = code_start.unwrap_or(0) as i64;
    let clamp = |v: i64| v.clamp(0, code.len() as i64) as usize;
    let start = clamp(highlight.0.byte as i64 - code_start);
    let mut end = clamp(
        highlight.0.byte as i64 - code_start + (highlight.1.byte as i64 - highlight.0.byte as i64),
    );
    if end < start {
        end = (start + 1).min(code.len());
    }
    let start = floor_char_boundary(&code, start);
    let end = floor_char_boundary(&code, end).max(start);

    let rendered = if color {
        format!(
            "{}\x1b[4m{}\x1b[0m{}\x1b[0m",
            &code[..start],
            &code[start..end],
            &code[end..]
        )
    } else {
        code.clone()
    };
    for (i, line) in rendered.split('\n').enumerate() {
        buf.push_str(&format!("{:4}: {}\n", snippet.0.line as usize + i, line));
    }

    if !diag.expression_values.is_empty() || diag.function_call.is_some() {
        let mut values: Vec<&(String, String)> = diag.expression_values.iter().collect();
        values.sort_by(|a, b| a.0.cmp(&b.0));
        if color {
            buf.push_str("    \x1b[90m├────────────────\x1b[0m\n\x1b[0m");
            if let Some(call) = &diag.function_call {
                buf.push_str(&format!(
                    "    \x1b[90m│\x1b[0m while calling \x1b[1m{}\x1b[0m(\x1b[0m{})\n",
                    call.called_as,
                    call.parameter_list()
                ));
            }
            for (traversal, statement) in values {
                buf.push_str(&format!(
                    "    \x1b[90m│\x1b[0m \x1b[1m{traversal}\x1b[0m {statement}\n\x1b[0m"
                ));
            }
        } else {
            buf.push_str("    ├────────────────\n");
            if let Some(call) = &diag.function_call {
                buf.push_str(&format!(
                    "    │ while calling {}({})\n",
                    call.called_as,
                    call.parameter_list()
                ));
            }
            for (traversal, statement) in values {
                buf.push_str(&format!("    │ {traversal} {statement}\n"));
            }
        }
    }
    buf.push('\n');
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// HCL's `RangeOver` on (start, end) pairs: the smallest range covering
/// both, ignoring an empty one.
fn range_over(a: (Pos, Pos), b: (Pos, Pos)) -> (Pos, Pos) {
    if a.0.byte == a.1.byte {
        return b;
    }
    if b.0.byte == b.1.byte {
        return a;
    }
    let start = if a.0.byte < b.0.byte { a.0 } else { b.0 };
    let end = if a.1.byte > b.1.byte { a.1 } else { b.1 };
    (start, end)
}

/// HCL's `Range.Overlaps` on byte ranges: empty ranges never overlap.
fn overlaps(r: (u32, u32), o: (u32, u32)) -> bool {
    let contains = |x: (u32, u32), off: u32| off >= x.0 && off < x.1;
    if r.0 == r.1 || o.0 == o.1 {
        return false;
    }
    contains(r, o.0) || contains(r, o.1) || contains(o, r.0) || contains(o, r.1)
}

/// Byte ranges of the lines as Go's `bufio.ScanLines` yields them: without
/// the line terminator (and a carriage return before it), and no empty
/// line after a final newline.
fn scan_lines(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let bytes = text.as_bytes();
    let mut pos = 0;
    std::iter::from_fn(move || {
        if pos >= bytes.len() {
            return None;
        }
        let start = pos;
        let (mut end, next) = match bytes[pos..].iter().position(|&b| b == b'\n') {
            Some(i) => (pos + i, pos + i + 1),
            None => (bytes.len(), bytes.len()),
        };
        if end > start && bytes[end - 1] == b'\r' {
            end -= 1;
        }
        pos = next;
        Some((start, end))
    })
}

pub use terrace_gocompat::wordwrap::wrap_string as wrap_words;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_native_file;

    /// What `terraform validate` (1.11) printed for these files, with and
    /// without `-no-color`. Terraform sorts diagnostics by position.
    #[test]
    fn matches_terraform_validate_output() {
        let cases: &[(&str, RenderStyle, &str)] = &[
        ("locals {\n  a = [\n    1,\n    2\n    3\n  ]\n}\n", RenderStyle::Plain, "\nError: Missing item separator\n\n  on main.tf line 5, in locals:\n   2:   a = [\n   3:     1,\n   4:     2\n   5:     3\n\nExpected a comma to mark the beginning of the next item.\n"),
        ("locals {\n  a = [\n    1,\n    2\n    3\n  ]\n}\n", RenderStyle::Color, "\x1b[31m╷\x1b[0m\x1b[0m\n\x1b[31m│\x1b[0m \x1b[0m\x1b[1m\x1b[31mError: \x1b[0m\x1b[0m\x1b[1mMissing item separator\x1b[0m\n\x1b[31m│\x1b[0m \x1b[0m\n\x1b[31m│\x1b[0m \x1b[0m\x1b[0m  on main.tf line 5, in locals:\n\x1b[31m│\x1b[0m \x1b[0m   2:   a = [\n\x1b[31m│\x1b[0m \x1b[0m   3:     1,\n\x1b[31m│\x1b[0m \x1b[0m   4:     2\n\x1b[31m│\x1b[0m \x1b[0m   5:     \x1b[4m3\x1b[0m\x1b[0m\n\x1b[31m│\x1b[0m \x1b[0m\n\x1b[31m│\x1b[0m \x1b[0mExpected a comma to mark the beginning of the next item.\n\x1b[31m╵\x1b[0m\x1b[0m\n"),
        ("resource \"a\" \"b\"\n{\n}\n", RenderStyle::Plain, "\nError: Invalid block definition\n\n  on main.tf line 1:\n   1: resource \"a\" \"b\"\n   2: {\n\nA block definition must have block content delimited by \"{\" and \"}\", starting\non the same line as the block header.\n"),
        ("resource \"a\" \"b\"\n{\n}\n", RenderStyle::Color, "\x1b[31m╷\x1b[0m\x1b[0m\n\x1b[31m│\x1b[0m \x1b[0m\x1b[1m\x1b[31mError: \x1b[0m\x1b[0m\x1b[1mInvalid block definition\x1b[0m\n\x1b[31m│\x1b[0m \x1b[0m\n\x1b[31m│\x1b[0m \x1b[0m\x1b[0m  on main.tf line 1:\n\x1b[31m│\x1b[0m \x1b[0m   1: resource \"a\" \"b\"\x1b[4m\n\x1b[31m│\x1b[0m \x1b[0m   2: \x1b[0m{\x1b[0m\n\x1b[31m│\x1b[0m \x1b[0m\n\x1b[31m│\x1b[0m \x1b[0mA block definition must have block content delimited by \"{\" and \"}\",\n\x1b[31m│\x1b[0m \x1b[0mstarting on the same line as the block header.\n\x1b[31m╵\x1b[0m\x1b[0m\n"),
        ("resource \"a\" \"b\" {\n  x = 1\n", RenderStyle::Plain, "\nError: Unclosed configuration block\n\n  on main.tf line 1, in resource \"a\" \"b\":\n   1: resource \"a\" \"b\" {\n\nThere is no closing brace for this block before the end of the file. This may\nbe caused by incorrect brace nesting elsewhere in this file.\n"),
        ("resource \"a\" \"b\" {\n  x = 1\n", RenderStyle::Color, "\x1b[31m╷\x1b[0m\x1b[0m\n\x1b[31m│\x1b[0m \x1b[0m\x1b[1m\x1b[31mError: \x1b[0m\x1b[0m\x1b[1mUnclosed configuration block\x1b[0m\n\x1b[31m│\x1b[0m \x1b[0m\n\x1b[31m│\x1b[0m \x1b[0m\x1b[0m  on main.tf line 1, in resource \"a\" \"b\":\n\x1b[31m│\x1b[0m \x1b[0m   1: resource \"a\" \"b\" \x1b[4m{\x1b[0m\x1b[0m\n\x1b[31m│\x1b[0m \x1b[0m\n\x1b[31m│\x1b[0m \x1b[0mThere is no closing brace for this block before the end of the file. This\n\x1b[31m│\x1b[0m \x1b[0mmay be caused by incorrect brace nesting elsewhere in this file.\n\x1b[31m╵\x1b[0m\x1b[0m\n"),
        ("locals {\n  a = <<EOT\nfoo\n", RenderStyle::Plain, "\nError: Unterminated template string\n\n  on main.tf line 4, in locals:\n   3: foo\n\nNo closing marker was found for the string.\n"),
        ("locals {\n  a = <<EOT\nfoo\n", RenderStyle::Color, "\x1b[31m╷\x1b[0m\x1b[0m\n\x1b[31m│\x1b[0m \x1b[0m\x1b[1m\x1b[31mError: \x1b[0m\x1b[0m\x1b[1mUnterminated template string\x1b[0m\n\x1b[31m│\x1b[0m \x1b[0m\n\x1b[31m│\x1b[0m \x1b[0m\x1b[0m  on main.tf line 4, in locals:\n\x1b[31m│\x1b[0m \x1b[0m   3: foo\x1b[4m\x1b[0m\x1b[0m\n\x1b[31m│\x1b[0m \x1b[0m\n\x1b[31m│\x1b[0m \x1b[0mNo closing marker was found for the string.\n\x1b[31m╵\x1b[0m\x1b[0m\n"),
        ("locals {\n  a = \"x${\"\n}\n", RenderStyle::Plain, "\nError: Invalid multi-line string\n\n  on main.tf line 2, in locals:\n   2:   a = \"x${\"\n   3: }\n\nQuoted strings may not be split over multiple lines. To produce a multi-line\nstring, either use the \\n escape to represent a newline character or use the\n\"heredoc\" multi-line template syntax.\n\nError: Unterminated template string\n\n  on main.tf line 2, in locals:\n   2:   a = \"x${\"\n   3: }\n\nNo closing marker was found for the string.\n\nError: Invalid multi-line string\n\n  on main.tf line 3, in locals:\n   3: }\n\nQuoted strings may not be split over multiple lines. To produce a multi-line\nstring, either use the \\n escape to represent a newline character or use the\n\"heredoc\" multi-line template syntax.\n"),
        ("locals {\n  a = \"x${\"\n}\n", RenderStyle::Color, "\x1b[31m╷\x1b[0m\x1b[0m\n\x1b[31m│\x1b[0m \x1b[0m\x1b[1m\x1b[31mError: \x1b[0m\x1b[0m\x1b[1mInvalid multi-line string\x1b[0m\n\x1b[31m│\x1b[0m \x1b[0m\n\x1b[31m│\x1b[0m \x1b[0m\x1b[0m  on main.tf line 2, in locals:\n\x1b[31m│\x1b[0m \x1b[0m   2:   a = \"x${\"\x1b[4m\n\x1b[31m│\x1b[0m \x1b[0m   3: \x1b[0m}\x1b[0m\n\x1b[31m│\x1b[0m \x1b[0m\n\x1b[31m│\x1b[0m \x1b[0mQuoted strings may not be split over multiple lines. To produce a\n\x1b[31m│\x1b[0m \x1b[0mmulti-line string, either use the \\n escape to represent a newline\n\x1b[31m│\x1b[0m \x1b[0mcharacter or use the \"heredoc\" multi-line template syntax.\n\x1b[31m╵\x1b[0m\x1b[0m\n\x1b[31m╷\x1b[0m\x1b[0m\n\x1b[31m│\x1b[0m \x1b[0m\x1b[1m\x1b[31mError: \x1b[0m\x1b[0m\x1b[1mUnterminated template string\x1b[0m\n\x1b[31m│\x1b[0m \x1b[0m\n\x1b[31m│\x1b[0m \x1b[0m\x1b[0m  on main.tf line 2, in locals:\n\x1b[31m│\x1b[0m \x1b[0m   2:   a = \"x${\"\x1b[4m\n\x1b[31m│\x1b[0m \x1b[0m   3: \x1b[0m}\x1b[0m\n\x1b[31m│\x1b[0m \x1b[0m\n\x1b[31m│\x1b[0m \x1b[0mNo closing marker was found for the string.\n\x1b[31m╵\x1b[0m\x1b[0m\n\x1b[31m╷\x1b[0m\x1b[0m\n\x1b[31m│\x1b[0m \x1b[0m\x1b[1m\x1b[31mError: \x1b[0m\x1b[0m\x1b[1mInvalid multi-line string\x1b[0m\n\x1b[31m│\x1b[0m \x1b[0m\n\x1b[31m│\x1b[0m \x1b[0m\x1b[0m  on main.tf line 3, in locals:\n\x1b[31m│\x1b[0m \x1b[0m   3: }\x1b[4m\x1b[0m\x1b[0m\n\x1b[31m│\x1b[0m \x1b[0m\n\x1b[31m│\x1b[0m \x1b[0mQuoted strings may not be split over multiple lines. To produce a\n\x1b[31m│\x1b[0m \x1b[0mmulti-line string, either use the \\n escape to represent a newline\n\x1b[31m│\x1b[0m \x1b[0mcharacter or use the \"heredoc\" multi-line template syntax.\n\x1b[31m╵\x1b[0m\x1b[0m\n"),
        ("locals {\n  a = \"café éé ${1 +}\"\n}\n", RenderStyle::Plain, "\nError: Invalid expression\n\n  on main.tf line 2, in locals:\n   2:   a = \"café éé ${1 +}\"\n\nExpected the start of an expression, but found an invalid expression token.\n"),
        ("locals {\n  a = \"café éé ${1 +}\"\n}\n", RenderStyle::Color, "\x1b[31m╷\x1b[0m\x1b[0m\n\x1b[31m│\x1b[0m \x1b[0m\x1b[1m\x1b[31mError: \x1b[0m\x1b[0m\x1b[1mInvalid expression\x1b[0m\n\x1b[31m│\x1b[0m \x1b[0m\n\x1b[31m│\x1b[0m \x1b[0m\x1b[0m  on main.tf line 2, in locals:\n\x1b[31m│\x1b[0m \x1b[0m   2:   a = \"café éé ${1 +\x1b[4m}\x1b[0m\"\x1b[0m\n\x1b[31m│\x1b[0m \x1b[0m\n\x1b[31m│\x1b[0m \x1b[0mExpected the start of an expression, but found an invalid expression token.\n\x1b[31m╵\x1b[0m\x1b[0m\n"),
        ];
        for (src, style, want) in cases {
            let (file, mut diags) = parse_native_file("main.tf", src);
            diags.sort_by_key(|d| d.subject.as_ref().map(|s| s.start.byte));
            let mut sources = SourceMap::new();
            sources.add_file(file);
            let got = render_diagnostics(&diags, &sources, *style, DEFAULT_WIDTH);
            assert_eq!(got, *want, "for {src:?} {style:?}");
        }
    }

    #[test]
    fn source_not_available_and_boxed() {
        let source = SourceFile::new("<console-input>", "1 +");
        let (_, diags) = crate::parse_expression(&source);
        let sources = SourceMap::new();
        let got = render_diagnostics(&diags, &sources, RenderStyle::Plain, DEFAULT_WIDTH);
        assert_eq!(
            got,
            "\nError: Missing expression\n\n  on <console-input> line 1:\n  (source code not available)\n\nExpected the start of an expression, but found the end of the file.\n"
        );
        let got = render_diagnostics(&diags, &sources, RenderStyle::Boxed, DEFAULT_WIDTH);
        assert_eq!(
            got,
            "╷\n│ Error: Missing expression\n│\n│   on <console-input> line 1:\n│   (source code not available)\n│\n│ Expected the start of an expression, but found the end of the file.\n╵\n"
        );
    }

    #[test]
    fn warnings_values_and_no_subject() {
        let mut d = Diagnostic::warning("Something odd", "Detail here.");
        let sources = SourceMap::new();
        assert_eq!(
            render_diagnostic(&d, &sources, RenderStyle::Plain, DEFAULT_WIDTH),
            "\nWarning: Something odd\n\nDetail here.\n"
        );
        let mut sources = SourceMap::new();
        sources.add_text("a.tf", "locals {\n  x = var.a + 1\n}\n");
        let src = sources.source("a.tf").cloned();
        let Some(src) = src else {
            panic!("source missing")
        };
        d.subject = Some(src.range(crate::Span::new(15, 24)));
        d.expression_values = vec![("var.a".into(), "is \"x\"".into())];
        assert_eq!(
            render_diagnostic(&d, &sources, RenderStyle::Boxed, DEFAULT_WIDTH),
            "╷\n│ Warning: Something odd\n│\n│   on a.tf line 2, in locals:\n│    2:   x = var.a + 1\n│     ├────────────────\n│     │ var.a is \"x\"\n│\n│ Detail here.\n╵\n"
        );
    }

    /// The `with ADDR,` line. The cases with a source range are what
    /// `terraform validate` (1.11.4) printed for a data source whose
    /// provider rejected an argument; without a range the line is followed
    /// directly by the detail.
    #[test]
    fn address_line() {
        let src = "data \"terraform_remote_state\" \"x\" {\n  backend = \"nope\"\n}\n";
        let mut sources = SourceMap::new();
        sources.add_text("main.tf", src);
        let Some(file) = sources.source("main.tf").cloned() else {
            panic!("source missing")
        };
        let at = src.find("\"nope\"").unwrap_or(0);
        let located = Diagnostic::error(
            "Invalid backend configuration",
            "There is no backend type named \"nope\".",
        )
        .with_address("data.terraform_remote_state.x")
        .with_subject(file.range(crate::Span::new(at, at + 6)));
        let sourceless =
            Diagnostic::warning("Odd", "Detail.").with_address("terraform_data.a[\"k\"]");
        let cases: &[(&Diagnostic, RenderStyle, &str)] = &[
            (&located, RenderStyle::Plain, "\nError: Invalid backend configuration\n\n  with data.terraform_remote_state.x,\n  on main.tf line 2, in data \"terraform_remote_state\" \"x\":\n   2:   backend = \"nope\"\n\nThere is no backend type named \"nope\".\n"),
            (&located, RenderStyle::Boxed, "╷\n│ Error: Invalid backend configuration\n│\n│   with data.terraform_remote_state.x,\n│   on main.tf line 2, in data \"terraform_remote_state\" \"x\":\n│    2:   backend = \"nope\"\n│\n│ There is no backend type named \"nope\".\n╵\n"),
            (&located, RenderStyle::Color, "\x1b[31m╷\x1b[0m\x1b[0m\n\x1b[31m│\x1b[0m \x1b[0m\x1b[1m\x1b[31mError: \x1b[0m\x1b[0m\x1b[1mInvalid backend configuration\x1b[0m\n\x1b[31m│\x1b[0m \x1b[0m\n\x1b[31m│\x1b[0m \x1b[0m\x1b[0m  with data.terraform_remote_state.x,\n\x1b[31m│\x1b[0m \x1b[0m  on main.tf line 2, in data \"terraform_remote_state\" \"x\":\n\x1b[31m│\x1b[0m \x1b[0m   2:   backend = \x1b[4m\"nope\"\x1b[0m\x1b[0m\n\x1b[31m│\x1b[0m \x1b[0m\n\x1b[31m│\x1b[0m \x1b[0mThere is no backend type named \"nope\".\n\x1b[31m╵\x1b[0m\x1b[0m\n"),
            (&sourceless, RenderStyle::Plain, "\nWarning: Odd\n\n  with terraform_data.a[\"k\"],\nDetail.\n"),
            (&sourceless, RenderStyle::Boxed, "╷\n│ Warning: Odd\n│\n│   with terraform_data.a[\"k\"],\n│ Detail.\n╵\n"),
            (&sourceless, RenderStyle::Color, "\x1b[33m╷\x1b[0m\x1b[0m\n\x1b[33m│\x1b[0m \x1b[0m\x1b[1m\x1b[33mWarning: \x1b[0m\x1b[0m\x1b[1mOdd\x1b[0m\n\x1b[33m│\x1b[0m \x1b[0m\n\x1b[33m│\x1b[0m \x1b[0m\x1b[0m  with terraform_data.a[\"k\"],\n\x1b[33m│\x1b[0m \x1b[0mDetail.\n\x1b[33m╵\x1b[0m\x1b[0m\n"),
        ];
        for (diag, style, want) in cases {
            let got = render_diagnostic(diag, &sources, *style, DEFAULT_WIDTH);
            assert_eq!(got, *want, "{style:?} {:?}", diag.subject.is_some());
        }
    }

    #[test]
    fn context_strings() {
        let (file, _) = parse_native_file(
            "m.tf",
            "a = 1\nresource \"x\" \"y\" {\n  nested {\n    z = 1\n  }\n}\nlocals {\n}\n",
        );
        assert_eq!(context_string(&file, 0), None);
        assert_eq!(
            context_string(&file, 6),
            Some("resource \"x\" \"y\"".to_string())
        );
        assert_eq!(
            context_string(&file, 40),
            Some("resource \"x\" \"y\"".to_string())
        );
        assert_eq!(context_string(&file, 60), Some("locals".to_string()));
        let (file, _) = crate::parse_json_file(
            "m.tf.json",
            "{\"resource\": {\"x\": {\"y\": {\"a\": [{\"b\": 1}]}}}}",
        );
        assert_eq!(
            context_string(&file, 38),
            Some("resource.x.y.a[0]".to_string())
        );
        assert_eq!(context_string(&file, 1), None);
    }

    #[test]
    fn wraps_like_go_wordwrap() {
        assert_eq!(wrap_words("aaa bbb ccc", 7), "aaa bbb\nccc");
        assert_eq!(wrap_words("aaaaaaaaaa bb", 5), "aaaaaaaaaa\nbb");
        assert_eq!(wrap_words("a\nb c", 3), "a\nb c");
        assert_eq!(wrap_words("", 3), "");
    }
}
