//! The slice of HCL's schema decoding that the lock file and the CLI
//! configuration need: check a native-syntax body against the arguments
//! and block types it may hold (HCL's `Body.Content`, with its diagnostics
//! and "Did you mean" suggestions), and read a constant string or list of
//! strings the way `gohcl.DecodeExpression` does with no evaluation
//! context (no variables, no function calls).

use terrace_lang::scope::MapScope;
use terrace_syntax::ast::{Attribute, Block, Body, Expr, ExprKind, NativeBody, SourceFile};
use terrace_syntax::{levenshtein, Diagnostic, Diagnostics, Span};
use terrace_value::gostr::quote;
use terrace_value::{Type, Value};

pub(crate) struct Schema<'a> {
    /// Argument names and whether each is required.
    pub attrs: &'a [(&'a str, bool)],
    /// Block types and their label names.
    pub blocks: &'a [(&'a str, &'a [&'a str])],
}

pub(crate) struct Content<'b> {
    pub attrs: Vec<&'b Attribute>,
    pub blocks: Vec<&'b Block>,
}

impl<'b> Content<'b> {
    pub fn attr(&self, name: &str) -> Option<&'b Attribute> {
        self.attrs.iter().copied().find(|a| a.name == name)
    }
}

fn name_suggestion<'a>(
    given: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    candidates.into_iter().find(|c| levenshtein(given, c) < 3)
}

/// HCL's `Body.Content` for a native body. The body of a JSON-syntax
/// block cannot occur here (both files are always native syntax).
pub(crate) fn content<'b>(
    body: &'b NativeBody,
    file: &SourceFile,
    schema: &Schema<'_>,
) -> (Content<'b>, Diagnostics) {
    let mut diags = Vec::new();
    let mut out = Content {
        attrs: Vec::new(),
        blocks: Vec::new(),
    };
    for (name, required) in schema.attrs {
        match body.attributes.iter().find(|a| a.name == *name) {
            Some(a) => out.attrs.push(a),
            None if *required => diags.push(
                Diagnostic::error(
                    "Missing required argument",
                    format!(
                        "The argument {} is required, but no definition was found.",
                        quote(name)
                    ),
                )
                .with_subject(file.range(Span {
                    start: body.span.start,
                    end: body.span.start,
                })),
            ),
            None => {}
        }
    }
    for block in &body.blocks {
        let Some((_, labels)) = schema.blocks.iter().find(|(t, _)| *t == block.block_type) else {
            continue;
        };
        let header = file.range(Span {
            start: block.type_span.start,
            end: block.open_brace_span.end,
        });
        if block.labels.len() > labels.len() {
            let name = &block.block_type;
            let detail = if labels.is_empty() {
                format!("No labels are expected for {name} blocks.")
            } else {
                format!(
                    "Only {} labels ({}) are expected for {name} blocks.",
                    labels.len(),
                    labels.join(", ")
                )
            };
            diags.push(
                Diagnostic::error(format!("Extraneous label for {name}"), detail)
                    .with_subject(file.range(block.labels[labels.len()].1))
                    .with_context(header),
            );
            continue;
        }
        if block.labels.len() < labels.len() {
            let name = &block.block_type;
            diags.push(
                Diagnostic::error(
                    format!("Missing {} for {name}", labels[block.labels.len()]),
                    format!(
                        "All {name} blocks must have {} labels ({}).",
                        labels.len(),
                        labels.join(", ")
                    ),
                )
                .with_subject(file.range(block.open_brace_span))
                .with_context(header),
            );
            continue;
        }
        out.blocks.push(block);
    }
    for attr in &body.attributes {
        if schema.attrs.iter().any(|(n, _)| *n == attr.name) {
            continue;
        }
        let unset = schema
            .attrs
            .iter()
            .map(|(n, _)| *n)
            .filter(|n| !out.attrs.iter().any(|a| a.name == *n));
        let suggestion = match name_suggestion(&attr.name, unset) {
            Some(s) => format!(" Did you mean {}?", quote(s)),
            None if schema.blocks.iter().any(|(t, _)| *t == attr.name) => format!(
                " Did you mean to define a block of type {}?",
                quote(&attr.name)
            ),
            None => String::new(),
        };
        diags.push(
            Diagnostic::error(
                "Unsupported argument",
                format!(
                    "An argument named {} is not expected here.{suggestion}",
                    quote(&attr.name)
                ),
            )
            .with_subject(file.range(attr.name_span)),
        );
    }
    for block in &body.blocks {
        if schema.blocks.iter().any(|(t, _)| *t == block.block_type) {
            continue;
        }
        let ty = &block.block_type;
        let suggestion = match name_suggestion(ty, schema.blocks.iter().map(|(t, _)| *t)) {
            Some(s) => format!(" Did you mean {}?", quote(s)),
            None if schema.attrs.iter().any(|(n, _)| n == ty) => format!(
                " Did you mean to define argument {}? If so, use the equals sign to assign it a value.",
                quote(ty)
            ),
            None => String::new(),
        };
        diags.push(
            Diagnostic::error(
                "Unsupported block type",
                format!(
                    "Blocks of type {} are not expected here.{suggestion}",
                    quote(ty)
                ),
            )
            .with_subject(file.range(block.type_span)),
        );
    }
    (out, diags)
}

/// The native body of a block (both files only have native bodies).
pub(crate) fn native(body: &Body) -> Option<&NativeBody> {
    match body {
        Body::Native(b) => Some(b),
        Body::Json(_) => None,
    }
}

/// Evaluates a constant expression and converts it to a string:
/// `Ok(None)` for null, `Err` with HCL's and gocty's diagnostics otherwise.
pub(crate) fn decode_string(expr: &Expr, file: &SourceFile) -> Result<Option<String>, Diagnostics> {
    let scope = MapScope::constant();
    let (value, mut diags) = terrace_lang::eval::evaluate(expr, file, &scope);
    let unsuitable = |msg: String| {
        Diagnostic::error("Unsuitable value type", format!("Unsuitable value: {msg}"))
            .with_subject(file.range(expr.span))
    };
    let converted = match terrace_value::convert::convert(&value, &Type::String) {
        Ok(v) => v,
        Err(e) => {
            diags.push(unsuitable(e.to_string()));
            return Err(diags);
        }
    };
    if terrace_syntax::diagnostic::has_errors(&diags) {
        if !converted.is_known() {
            diags.push(unsuitable("value must be known".into()));
        }
        return Err(diags);
    }
    if !converted.is_known() {
        diags.push(unsuitable("value must be known".into()));
        return Err(diags);
    }
    if converted.is_null() {
        return Ok(None);
    }
    Ok(Some(string_of(&converted)))
}

fn string_of(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

/// HCL's `hcl.ExprList`: the elements of a tuple constructor (through
/// parentheses), or "Invalid expression".
pub(crate) fn expr_list<'e>(
    expr: &'e Expr,
    file: &SourceFile,
) -> Result<&'e [Expr], Box<Diagnostic>> {
    match &expr.kind {
        ExprKind::Tuple(items) => Ok(items),
        ExprKind::Parens(inner) => expr_list(inner, file),
        _ => Err(Box::new(
            Diagnostic::error(
                "Invalid expression",
                "A static list expression is required.",
            )
            .with_subject(file.range(expr.span)),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use terrace_syntax::parse_native_file;

    fn parse(src: &str) -> terrace_syntax::ast::File {
        let (f, diags) = parse_native_file("t.hcl", src);
        assert!(diags.is_empty(), "{diags:?}");
        f
    }

    #[test]
    fn content_diagnostics() {
        let f = parse("a = 1\nvesion = 2\nblk {}\nlab \"x\" \"y\" {}\nother {}\nreq {}\n");
        let Some(body) = native(&f.body) else {
            panic!()
        };
        let schema = Schema {
            attrs: &[("a", false), ("version", true), ("req", false)],
            blocks: &[("blk", &["name"]), ("lab", &["one"])],
        };
        let (content, diags) = content(body, &f.source, &schema);
        assert_eq!(content.attrs.len(), 1);
        assert!(content.blocks.is_empty());
        let got: Vec<(String, String)> = diags
            .iter()
            .map(|d| (d.summary.clone(), d.detail.clone()))
            .collect();
        let want = [
            ("Missing required argument", "The argument \"version\" is required, but no definition was found."),
            ("Missing name for blk", "All blk blocks must have 1 labels (name)."),
            ("Extraneous label for lab", "Only 1 labels (one) are expected for lab blocks."),
            ("Unsupported argument", "An argument named \"vesion\" is not expected here. Did you mean \"version\"?"),
            ("Unsupported block type", "Blocks of type \"other\" are not expected here."),
            ("Unsupported block type", "Blocks of type \"req\" are not expected here. Did you mean to define argument \"req\"? If so, use the equals sign to assign it a value."),
        ];
        assert_eq!(
            got,
            want.iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn decodes_constant_strings() {
        let f = parse("a = \"x${\"y\"}\"\nb = 5\nc = null\nd = var.x\ne = upper(\"x\")\nf = [1]\n");
        let Some(body) = native(&f.body) else {
            panic!()
        };
        let get = |n: &str| {
            let Some(a) = body.attributes.iter().find(|a| a.name == n) else {
                panic!("{n}")
            };
            decode_string(&a.expr, &f.source)
        };
        assert_eq!(get("a"), Ok(Some("xy".into())));
        assert_eq!(get("b"), Ok(Some("5".into())));
        assert_eq!(get("c"), Ok(None));
        let summaries = |r: Result<Option<String>, Diagnostics>| -> Vec<String> {
            match r {
                Ok(v) => panic!("{v:?}"),
                Err(d) => d
                    .into_iter()
                    .map(|d| format!("{}: {}", d.summary, d.detail))
                    .collect(),
            }
        };
        assert_eq!(
            summaries(get("d")),
            [
                "Variables not allowed: Variables may not be used here.",
                "Unsuitable value type: Unsuitable value: value must be known"
            ]
        );
        assert_eq!(
            summaries(get("e")),
            [
                "Function calls not allowed: Functions may not be called here.",
                "Unsuitable value type: Unsuitable value: value must be known"
            ]
        );
        assert_eq!(
            summaries(get("f")),
            ["Unsuitable value type: Unsuitable value: string required"]
        );
    }
}
