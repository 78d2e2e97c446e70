//! terrace-syntax: native HCL and JSON syntax parsed into one AST with byte
//! spans. Parsing never fails: every entry point returns a tree (with
//! `ExprKind::Invalid` placeholders where needed) plus diagnostics.

// Data from users, files, plugins and the network never panics the
// program: no unwrap, expect or panic outside tests.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub mod ast;
pub mod diagnostic;
pub mod format;
pub mod json;
mod lexer;
mod parser;
pub mod pos;
pub mod render;
mod text;
pub mod traversal;

pub use diagnostic::{Diagnostic, Diagnostics, FunctionCall, Severity, SourceRange};
pub use json::{json_string_as_expression, json_string_as_traversal, json_value_to_expr};
pub use pos::{LineIndex, Pos, Span};
pub use text::levenshtein;
pub use traversal::{PartialStep, PartialTraversal};

/// The product's name wherever user-facing text names the tool itself
/// (OpenTofu's messages say "OpenTofu", Terraform's "Terraform"), and the
/// command users type. Every crate takes it from here.
pub const PRODUCT: &str = "terrace";

/// The Terraform release whose behaviour terrace follows: the version it
/// tells providers, writes into states, and checks `required_version`
/// constraints in `.tf` files against. Every crate takes it from here.
pub const TERRAFORM_VERSION: &str = "1.11.4";

use ast::{Body, Expr, File, SourceFile, Traversal};
use lexer::ScanMode;
use parser::Parser;
use std::sync::Arc;
use text::SpanMap;

/// Parses a native-syntax file (`.tf`, `.tofu`, `.tfvars`, `.tftest.hcl`).
pub fn parse_native_file(name: &str, text: &str) -> (File, Diagnostics) {
    let source = SourceFile::new(name, text);
    let map = SpanMap::identity();
    let (body, diags) = {
        let mut p = Parser::new(&source.text, ScanMode::Normal, &source, &map);
        let body = p.parse_config();
        (body, p.diags)
    };
    (
        File {
            source,
            body: Body::Native(body),
        },
        diags,
    )
}

/// Parses a JSON-syntax file (`.tf.json`, `.tfvars.json`).
pub fn parse_json_file(name: &str, text: &str) -> (File, Diagnostics) {
    let source = SourceFile::new(name, text);
    let (body, diags) = json::parse_body(&source);
    (
        File {
            source,
            body: Body::Json(body),
        },
        diags,
    )
}

/// Parses a file in the syntax its name calls for: JSON for names ending
/// in `.json`, native syntax otherwise.
pub fn parse_file(name: &str, text: &str) -> (File, Diagnostics) {
    if name.ends_with(".json") {
        parse_json_file(name, text)
    } else {
        parse_native_file(name, text)
    }
}

/// Parses the whole text as one expression (newlines allowed anywhere, as
/// in HCL's ParseExpression).
pub fn parse_expression(source: &Arc<SourceFile>) -> (Expr, Diagnostics) {
    let map = SpanMap::identity();
    let mut p = Parser::new(&source.text, ScanMode::Normal, source, &map);
    let expr = p.parse_standalone_expression();
    (expr, p.diags)
}

/// Parses the whole text as a bare template, as `templatefile` reads a
/// file (HCL's ParseTemplate).
pub fn parse_template(source: &Arc<SourceFile>) -> (Expr, Diagnostics) {
    let map = SpanMap::identity();
    let mut p = Parser::new(&source.text, ScanMode::Template, source, &map);
    let expr = p.parse_standalone_template();
    (expr, p.diags)
}

/// Parses the whole text as an absolute traversal such as `aws.west` or
/// `module.a["k"].b`; with `allow_splat`, `[*]` steps are accepted too.
/// The traversal is returned (possibly partial) whenever it has a root.
pub fn parse_traversal(
    source: &Arc<SourceFile>,
    allow_splat: bool,
) -> (Option<PartialTraversal>, Diagnostics) {
    traversal::parse_with(&source.text, source, &SpanMap::identity(), allow_splat)
}

/// [`parse_traversal`] without splats (HCL's ParseTraversalAbs).
pub fn parse_traversal_abs(source: &Arc<SourceFile>) -> (Option<Traversal>, Diagnostics) {
    let (t, diags) = parse_traversal(source, false);
    (t.and_then(PartialTraversal::into_absolute), diags)
}

/// Runs every parser on arbitrary bytes, for fuzzing: none may panic.
pub fn fuzz_one(input: &[u8]) {
    let text = String::from_utf8_lossy(input);
    let (file, diags) = parse_native_file("fuzz.tf", &text);
    let _ = render::context_string(&file, text.len() / 2);
    let _ = format::format_tokens_only(&text);
    if !diagnostic::has_errors(&diags) {
        let _ = format::format_configuration(&text, &file);
    }
    let source = SourceFile::new("fuzz.hcl", text.as_ref());
    let _ = parse_expression(&source);
    let _ = parse_template(&source);
    let _ = parse_traversal(&source, true);
    let (file, _) = parse_json_file("fuzz.tf.json", &text);
    if let Body::Json(body) = &file.body {
        for p in &body.properties {
            let _ = json_value_to_expr(&file.source, &p.value);
            let _ = json_string_as_traversal(&file.source, &p.value, false);
            let _ = json_string_as_expression(&file.source, &p.value);
        }
    }
}

#[cfg(test)]
mod tests;
