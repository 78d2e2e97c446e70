//! The "├── var.x is \"a\"" lines under a condition's source excerpt:
//! every reference in the expression with a compact description of its
//! value, as Terraform's diagnostic renderer describes them (sensitive
//! values and values of unknown type are left out).

use terrace_config::expr::Expression;
use terrace_lang::scope::Scope;
use terrace_syntax::ast::{Expr, ExprKind};
use terrace_value::Value;

/// The references in `expr` with their values in `scope`.
pub(crate) fn expression_values(expr: &Expression, scope: &dyn Scope) -> Vec<(String, String)> {
    values_described(expr, scope, false, CausedBy::default())
}

/// What a diagnostic says it was caused by. A value of that kind is then
/// described too ("is a string, known only after apply", "has a sensitive
/// value"); otherwise an unknown value is named by its type alone and a
/// sensitive one not at all, so that it is not taken for the cause.
#[derive(Clone, Copy, Default)]
pub(crate) struct CausedBy {
    pub unknown: bool,
    pub sensitive: bool,
}

/// [`expression_values`] for a diagnostic caused by unknown or sensitive
/// values.
pub(crate) fn expression_values_caused_by(
    expr: &Expression,
    scope: &dyn Scope,
    caused: CausedBy,
) -> Vec<(String, String)> {
    values_described(expr, scope, false, caused)
}

/// [`expression_values`] for a diagnostic caused by an ephemeral value:
/// references to ephemeral values are named, as Terraform does then,
/// without their values.
pub(crate) fn expression_values_naming_ephemeral(
    expr: &Expression,
    scope: &dyn Scope,
) -> Vec<(String, String)> {
    values_described(expr, scope, true, CausedBy::default())
}

fn values_described(
    expr: &Expression,
    scope: &dyn Scope,
    name_ephemeral: bool,
    caused: CausedBy,
) -> Vec<(String, String)> {
    let file = expr.file();
    let mut out: Vec<(String, String)> = Vec::new();
    for t in expr.variables() {
        let end = t.steps.last().map(|s| s.span()).unwrap_or(t.root_span);
        let span = t.root_span.to(end);
        let Some(text) = file.text.get(span.start as usize..span.end as usize) else {
            continue;
        };
        if out.iter().any(|(k, _)| k == text) {
            continue;
        }
        let e = Expr {
            kind: ExprKind::ScopeTraversal(t.clone()),
            span,
        };
        let (v, _) = terrace_lang::eval::evaluate(&e, file, scope);
        let marks = v.deep_marks();
        if name_ephemeral && marks.is_ephemeral() && !marks.is_sensitive() {
            out.push((text.to_string(), "has an ephemeral value".to_string()));
            continue;
        }
        if let Some(d) = describe(&v, caused) {
            out.push((text.to_string(), d));
        }
    }
    out
}

fn describe(v: &Value, caused: CausedBy) -> Option<String> {
    let marks = v.deep_marks();
    if marks.is_sensitive() {
        return caused
            .sensitive
            .then(|| "has a sensitive value".to_string());
    }
    if marks.is_ephemeral() {
        return None;
    }
    let (v, _) = v.unmark_deep();
    let ty = v.ty().clone();
    if !v.is_known() {
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
        terrace_value::compact::compact_value_str(&v)
    ))
}
