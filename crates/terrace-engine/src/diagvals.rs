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
    values_described(expr, scope, false)
}

/// [`expression_values`] for a diagnostic caused by an ephemeral value:
/// references to ephemeral values are named, as Terraform does then,
/// without their values.
pub(crate) fn expression_values_naming_ephemeral(
    expr: &Expression,
    scope: &dyn Scope,
) -> Vec<(String, String)> {
    values_described(expr, scope, true)
}

fn values_described(
    expr: &Expression,
    scope: &dyn Scope,
    name_ephemeral: bool,
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
        if let Some(d) = describe(&v) {
            out.push((text.to_string(), d));
        }
    }
    out
}

fn describe(v: &Value) -> Option<String> {
    let marks = v.deep_marks();
    if marks.is_sensitive() || marks.is_ephemeral() {
        return None;
    }
    let (v, _) = v.unmark_deep();
    let ty = v.ty().clone();
    if !v.is_known() {
        if ty.is_dynamic() {
            return None;
        }
        return Some(format!("is a {}", ty.friendly_name()));
    }
    Some(format!("is {}", compact(&v)))
}

fn compact(v: &Value) -> String {
    let ty = v.ty();
    if v.is_null() {
        return "null".into();
    }
    if !(v.is_wholly_known() || ty.is_collection() || ty.is_tuple() || ty.is_object()) {
        return "(not yet known)".into();
    }
    if let Some(b) = v.as_bool() {
        return b.to_string();
    }
    if let Some(n) = v.as_number() {
        return n.to_string();
    }
    if let Some(s) = v.as_str() {
        return format!("{s:?}");
    }
    let count = |n: usize, one: &str, many: &str| match n {
        1 => format!("with 1 {one}"),
        n => format!("with {n} {many}"),
    };
    if ty.is_collection() || ty.is_tuple() {
        let n = v
            .as_elements()
            .map(|e| e.len())
            .or_else(|| v.as_attributes().map(|a| a.len()))
            .unwrap_or(0);
        if n == 0 {
            return format!("empty {}", ty.friendly_name());
        }
        return format!("{} {}", ty.friendly_name(), count(n, "element", "elements"));
    }
    if ty.is_object() {
        let attrs = v.as_attributes();
        return match attrs.map(|a| a.len()).unwrap_or(0) {
            0 => "object with no attributes".into(),
            1 => format!(
                "object with 1 attribute {:?}",
                attrs
                    .and_then(|a| a.keys().next())
                    .cloned()
                    .unwrap_or_default()
            ),
            n => format!("object with {n} attributes"),
        };
    }
    ty.friendly_name()
}
