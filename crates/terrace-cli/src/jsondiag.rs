//! Diagnostics in Terraform's machine-readable form (the `diagnostics`
//! entries of `validate -json` and the JSON UI): severity, summary and
//! detail, the highlighted range, and a snippet of the source lines around
//! it with the block it sits in. Output is serialised as Go's
//! `json.MarshalIndent` writes it, HTML-sensitive characters escaped, so
//! the bytes match Terraform's.

use serde_json::{json, Map, Value as Json};
use std::collections::HashMap;
use std::sync::Arc;
use terrace_gocompat::json::escape_html;
use terrace_syntax::ast::{File, SourceFile};
use terrace_syntax::pos::Pos;
use terrace_syntax::render::context_string;
use terrace_syntax::{Diagnostic, FunctionCall, SourceRange};

/// Source files by name, parsed on first need for block context.
pub struct Sources {
    files: HashMap<String, (Arc<SourceFile>, Option<File>)>,
}

impl Sources {
    pub fn new(files: impl IntoIterator<Item = Arc<SourceFile>>) -> Sources {
        Sources {
            files: files
                .into_iter()
                .map(|f| (f.name.clone(), (f, None)))
                .collect(),
        }
    }

    fn get(&mut self, name: &str) -> Option<(Arc<SourceFile>, &File)> {
        let (source, parsed) = self.files.get_mut(name)?;
        let source = source.clone();
        let file =
            parsed.get_or_insert_with(|| terrace_syntax::parse_file(&source.name, &source.text).0);
        Some((source, file))
    }
}

/// One diagnostic as a JSON object.
pub fn diagnostic_json(diag: &Diagnostic, sources: &mut Sources) -> Json {
    let mut obj = Map::new();
    obj.insert(
        "severity".into(),
        Json::from(if diag.is_error() { "error" } else { "warning" }),
    );
    obj.insert("summary".into(), Json::from(diag.summary.clone()));
    obj.insert("detail".into(), Json::from(diag.detail.clone()));
    if let Some(address) = &diag.address {
        obj.insert("address".into(), Json::from(address.clone()));
    }
    if let Some((highlight, snippet_range)) = ranges(diag) {
        obj.insert("range".into(), range_json(&highlight));
        if let Some(snippet) = snippet_json(diag, &highlight, &snippet_range, sources) {
            obj.insert("snippet".into(), snippet);
        }
    }
    Json::Object(obj)
}

/// The highlighted range (the subject, never empty) and the range the
/// snippet must cover (the context too), as Terraform prepares them.
fn ranges(diag: &Diagnostic) -> Option<(SourceRange, SourceRange)> {
    let mut highlight = diag.subject.clone()?;
    if highlight.end == Pos::default() {
        highlight.end = highlight.start;
    }
    let mut snippet = match &diag.context {
        Some(c) => c.clone(),
        None => highlight.clone(),
    };
    snippet = range_over(&snippet, &highlight);
    for r in [&mut highlight, &mut snippet] {
        if r.start.byte == r.end.byte {
            r.end.byte += 1;
            r.end.column += 1;
        }
    }
    Some((highlight, snippet))
}

/// HCL's `RangeOver`: the smallest range covering both, an empty one
/// ignored.
fn range_over(a: &SourceRange, b: &SourceRange) -> SourceRange {
    if a.start.byte == a.end.byte {
        return b.clone();
    }
    if b.start.byte == b.end.byte {
        return a.clone();
    }
    SourceRange {
        filename: a.filename.clone(),
        start: if a.start.byte < b.start.byte {
            a.start
        } else {
            b.start
        },
        end: if a.end.byte > b.end.byte {
            a.end
        } else {
            b.end
        },
    }
}

fn pos_json(p: &Pos) -> Json {
    json!({"line": p.line, "column": p.column, "byte": p.byte})
}

fn range_json(r: &SourceRange) -> Json {
    let mut obj = Map::new();
    obj.insert("filename".into(), Json::from(r.filename.clone()));
    obj.insert("start".into(), pos_json(&r.start));
    obj.insert("end".into(), pos_json(&r.end));
    Json::Object(obj)
}

fn snippet_json(
    diag: &Diagnostic,
    highlight: &SourceRange,
    snippet: &SourceRange,
    sources: &mut Sources,
) -> Option<Json> {
    let (source, file) = sources.get(&snippet.filename)?;
    let context = usize::try_from(i64::from(highlight.start.byte) - 1)
        .ok()
        .and_then(|offset| context_string(file, offset));
    let text = source.text.as_str();
    let mut code = String::new();
    let mut code_start: Option<usize> = None;
    for (start, end) in scan_lines(text) {
        if overlaps(
            (start as u32, end as u32),
            (snippet.start.byte, snippet.end.byte),
        ) {
            code_start.get_or_insert(start);
            code.push_str(&text[start..end]);
            code.push('\n');
        }
    }
    if code.ends_with('\n') {
        code.pop();
    }
    let code_start = code_start.unwrap_or(0) as i64;
    let len = code.len() as i64;
    let start = i64::from(highlight.start.byte) - code_start;
    let end = start + (i64::from(highlight.end.byte) - i64::from(highlight.start.byte));
    let values: Vec<Json> = {
        let mut v: Vec<&(String, String)> = diag.expression_values.iter().collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v.into_iter()
            .map(|(t, s)| json!({"traversal": t, "statement": s}))
            .collect()
    };
    let mut obj = Map::new();
    obj.insert(
        "context".into(),
        context.map(Json::from).unwrap_or(Json::Null),
    );
    obj.insert("code".into(), Json::from(code));
    obj.insert("start_line".into(), Json::from(snippet.start.line));
    obj.insert(
        "highlight_start_offset".into(),
        Json::from(start.clamp(0, len)),
    );
    obj.insert("highlight_end_offset".into(), Json::from(end.clamp(0, len)));
    obj.insert("values".into(), Json::Array(values));
    if let Some(call) = &diag.function_call {
        obj.insert("function_call".into(), function_call_json(call));
    }
    Some(Json::Object(obj))
}

/// The `function_call` object of a snippet: the name called and the
/// function's signature, parameters' types as type JSON.
fn function_call_json(call: &FunctionCall) -> Json {
    let ty = |text: &str| serde_json::from_str(text).unwrap_or_else(|_| Json::from("dynamic"));
    let param = |(name, t): &(String, String)| json!({"name": name, "type": ty(t)});
    let mut signature = Map::new();
    signature.insert("name".into(), Json::from(call.name.clone()));
    signature.insert(
        "params".into(),
        Json::Array(call.params.iter().map(param).collect()),
    );
    if let Some(v) = &call.variadic {
        signature.insert("variadic_param".into(), param(v));
    }
    signature.insert("return_type".into(), ty(&call.return_type));
    json!({"called_as": call.called_as, "signature": Json::Object(signature)})
}

/// HCL's `Range.Overlaps` on byte ranges: empty ranges overlap nothing.
fn overlaps(r: (u32, u32), o: (u32, u32)) -> bool {
    let contains = |x: (u32, u32), off: u32| off >= x.0 && off < x.1;
    if r.0 == r.1 || o.0 == o.1 {
        return false;
    }
    contains(r, o.0) || contains(r, o.1) || contains(o, r.0) || contains(o, r.1)
}

/// Line byte ranges as Go's `bufio.ScanLines` yields them: without the
/// terminator (and a carriage return before it).
fn scan_lines(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < bytes.len() {
        let start = pos;
        let (mut end, next) = match bytes[pos..].iter().position(|&b| b == b'\n') {
            Some(i) => (pos + i, pos + i + 1),
            None => (bytes.len(), bytes.len()),
        };
        if end > start && bytes[end - 1] == b'\r' {
            end -= 1;
        }
        out.push((start, end));
        pos = next;
    }
    out
}

/// Serialises as Go's `json.MarshalIndent(v, "", "  ")`: two-space
/// indentation, and `<`, `>`, `&`, U+2028 and U+2029 escaped.
pub fn to_go_json(value: &Json) -> String {
    escape_html(&serde_json::to_string_pretty(value).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(file: &SourceFile, start: usize, end: usize) -> SourceRange {
        file.range(terrace_syntax::Span {
            start: start as u32,
            end: end as u32,
        })
    }

    #[test]
    fn snippet_with_block_context() {
        let src = SourceFile::new(
            "main.tf",
            "module \"child\" {\n  source = \"./child\"\n  count  = 2\n}\n",
        );
        let at = src.text.find('2').unwrap_or(0);
        let diag = Diagnostic::error("S", "D").with_subject(range(&src, at, at + 1));
        let mut sources = Sources::new([src.clone()]);
        let j = diagnostic_json(&diag, &mut sources);
        assert_eq!(j["range"]["start"]["line"], 3);
        assert_eq!(j["range"]["start"]["column"], 12);
        assert_eq!(j["snippet"]["context"], "module \"child\"");
        assert_eq!(j["snippet"]["code"], "  count  = 2");
        assert_eq!(j["snippet"]["highlight_start_offset"], 11);
        assert_eq!(j["snippet"]["highlight_end_offset"], 12);
        assert_eq!(j["snippet"]["values"], json!([]));
    }

    #[test]
    fn empty_subject_is_widened_and_sourceless_has_no_range() {
        let src = SourceFile::new("a.tf", "x = 1\n");
        let diag = Diagnostic::warning("S", "").with_subject(range(&src, 2, 2));
        let mut sources = Sources::new([src]);
        let j = diagnostic_json(&diag, &mut sources);
        assert_eq!(j["range"]["end"]["byte"], 3);
        assert_eq!(j["snippet"]["context"], Json::Null);
        let plain = diagnostic_json(&Diagnostic::error("S", "D"), &mut sources);
        assert!(plain.get("range").is_none() && plain.get("snippet").is_none());
    }

    /// Terraform's key order: `address` between `detail` and `range`,
    /// and absent when the diagnostic names no object.
    #[test]
    fn address_follows_detail() {
        let src = SourceFile::new("main.tf", "data \"x\" \"y\" {\n  a = 1\n}\n");
        let diag = Diagnostic::error("S", "D")
            .with_address("data.x.y")
            .with_subject(range(&src, 22, 23));
        let mut sources = Sources::new([src]);
        let j = diagnostic_json(&diag, &mut sources);
        let keys: Vec<&str> = j
            .as_object()
            .map(|o| o.keys().map(String::as_str).collect())
            .unwrap_or_default();
        assert_eq!(
            keys,
            ["severity", "summary", "detail", "address", "range", "snippet"]
        );
        assert_eq!(j["address"], "data.x.y");
        let plain = diagnostic_json(&Diagnostic::error("S", "D"), &mut sources);
        assert!(plain.get("address").is_none());
    }

    #[test]
    fn go_escaping() {
        let v = json!({"a": "<x> & \u{2028}"});
        assert_eq!(
            to_go_json(&v),
            "{\n  \"a\": \"\\u003cx\\u003e \\u0026 \\u2028\"\n}"
        );
    }
}
