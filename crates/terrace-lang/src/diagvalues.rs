//! The "├── var.x is \"a\"" lines under a diagnostic's source excerpt:
//! each reference in the expression a diagnostic is about, with a compact
//! description of its value, as terraform's renderer describes them.

use terrace_syntax::ast::{Expr, ExprKind, SourceFile, Traversal};
use terrace_syntax::Span;
use terrace_value::Value;

/// What a diagnostic says it was caused by. A value of that kind is then
/// described too ("is a string, known only after apply", "has a sensitive
/// value", "has an ephemeral value"); otherwise an unknown value is named
/// by its type alone and a sensitive or ephemeral one not at all, so that
/// it is not taken for the cause.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CausedBy {
    pub unknown: bool,
    pub sensitive: bool,
    pub ephemeral: bool,
}

/// For each reference in `expr` with at least one step after its root
/// (as terraform lists them), the longest prefix of it that `evaluate`
/// resolves without an error (`None`), with what its value is; each
/// prefix once.
pub fn reference_values(
    expr: &Expr,
    file: &SourceFile,
    caused: CausedBy,
    evaluate: &mut dyn FnMut(&Expr) -> Option<Value>,
) -> Vec<(String, String)> {
    reference_values_within(expr, expr.span, file, caused, evaluate)
}

/// [`reference_values`] of the references of `expr` that lie within
/// `within`: the part of it an error is about (an operand of an
/// operator).
pub fn reference_values_within(
    expr: &Expr,
    within: Span,
    file: &SourceFile,
    caused: CausedBy,
    evaluate: &mut dyn FnMut(&Expr) -> Option<Value>,
) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for traversal in crate::references::traversals(expr) {
        if traversal.root_span.start < within.start || traversal.root_span.end > within.end {
            continue;
        }
        for kept in (1..=traversal.steps.len()).rev() {
            let prefix = Traversal {
                root: traversal.root.clone(),
                root_span: traversal.root_span,
                steps: traversal.steps[..kept].to_vec(),
            };
            let span = traversal.root_span.to(traversal.steps[kept - 1].span());
            let Some(text) = file.text.get(span.start as usize..span.end as usize) else {
                break;
            };
            let prefix = Expr {
                kind: ExprKind::ScopeTraversal(prefix),
                span,
            };
            let Some(value) = evaluate(&prefix) else {
                continue;
            };
            if !out.iter().any(|(known, _)| known == text) {
                if let Some(statement) = describe(&value, caused) {
                    out.push((text.to_string(), statement));
                }
            }
            break;
        }
    }
    out
}

/// What terraform says of `value` under an expression, if anything.
pub fn describe(value: &Value, caused: CausedBy) -> Option<String> {
    let marks = value.deep_marks();
    if marks.is_sensitive() {
        return caused
            .sensitive
            .then(|| "has a sensitive value".to_string());
    }
    if marks.is_ephemeral() {
        return caused
            .ephemeral
            .then(|| "has an ephemeral value".to_string());
    }
    let (value, _) = value.unmark_deep();
    let ty = value.ty().clone();
    if !value.is_known() {
        return match (ty.is_dynamic(), caused.unknown) {
            (true, true) => Some("will be known only after apply".to_string()),
            (true, false) => None,
            (false, true) => Some(format!(
                "is a {}, known only after apply",
                ty.friendly_name()
            )),
            (false, false) => Some(format!("is a {}", ty.friendly_name())),
        };
    }
    Some(format!(
        "is {}",
        terrace_value::compact::compact_value_str(&value)
    ))
}
