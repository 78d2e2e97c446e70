//! The "too similar" comparison of provider iteration: a provider block's `for_each`
//! and the `for_each` of a resource or module using that provider must not
//! be built from the same source in the same way, or removing an element
//! would remove a provider instance together with the resource instances
//! it must destroy. This is a best-effort syntactic comparison, the same
//! as OpenTofu's: parentheses are looked through; traversals match when
//! their roots and every step match (a number index by value); literals by
//! value; function calls by name and arguments; conditionals, indexes,
//! tuples, objects, `for` expressions, operators and templates part by
//! part. Anything else is "not similar".

use crate::references::traversals;
use terrace_syntax::ast::{Expr, ExprKind, ObjectKey, TemplatePart, TraversalStep};
use terrace_value::Value;

/// True when `provider_for_each` and `other_for_each` are too similar:
/// both contain references and they match under the rules above.
pub fn for_each_too_similar(provider_for_each: &Expr, other_for_each: &Expr) -> bool {
    if traversals(provider_for_each).is_empty() || traversals(other_for_each).is_empty() {
        return false;
    }
    identical(provider_for_each, other_for_each)
}

fn optional_identical(a: Option<&Expr>, b: Option<&Expr>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => identical(a, b),
        _ => false,
    }
}

fn all_identical<'a>(
    a: impl ExactSizeIterator<Item = &'a Expr>,
    b: impl ExactSizeIterator<Item = &'a Expr>,
) -> bool {
    a.len() == b.len() && a.zip(b).all(|(x, y)| identical(x, y))
}

fn identical(a: &Expr, b: &Expr) -> bool {
    use ExprKind::*;
    if let Parens(inner) = &a.kind {
        return identical(inner, b);
    }
    if let Parens(inner) = &b.kind {
        return identical(a, inner);
    }
    match (&a.kind, &b.kind) {
        (ScopeTraversal(x), ScopeTraversal(y)) => {
            x.root == y.root && steps_equivalent(&x.steps, &y.steps)
        }
        (
            RelativeTraversal {
                source: sx,
                steps: x,
            },
            RelativeTraversal {
                source: sy,
                steps: y,
            },
        ) => steps_equivalent(x, y) && identical(sx, sy),
        (Number(_) | Bool(_) | Null, Number(_) | Bool(_) | Null) => literals_equal(a, b),
        // As OpenTofu compares them, argument expansion (`...`) is not
        // part of the comparison.
        (
            FunctionCall {
                name: nx, args: x, ..
            },
            FunctionCall {
                name: ny, args: y, ..
            },
        ) => nx == ny && all_identical(x.iter(), y.iter()),
        (
            Conditional {
                condition: cx,
                true_result: tx,
                false_result: fx,
            },
            Conditional {
                condition: cy,
                true_result: ty,
                false_result: fy,
            },
        ) => identical(cx, cy) && identical(tx, ty) && identical(fx, fy),
        (
            Index {
                collection: cx,
                key: kx,
                ..
            },
            Index {
                collection: cy,
                key: ky,
                ..
            },
        ) => identical(cx, cy) && identical(kx, ky),
        (Tuple(x), Tuple(y)) => all_identical(x.iter(), y.iter()),
        (Object(x), Object(y)) => {
            x.len() == y.len()
                && x.iter().zip(y.iter()).all(|(ix, iy)| {
                    keys_identical(&ix.key, &iy.key) && identical(&ix.value, &iy.value)
                })
        }
        (For(x), For(y)) => {
            x.key_var == y.key_var
                && x.value_var == y.value_var
                && identical(&x.collection, &y.collection)
                && optional_identical(x.key_expr.as_ref(), y.key_expr.as_ref())
                && identical(&x.value_expr, &y.value_expr)
                && optional_identical(x.condition.as_ref(), y.condition.as_ref())
                && x.group == y.group
        }
        (Binary { first: fx, rest: x }, Binary { first: fy, rest: y }) => {
            x.len() == y.len()
                && identical(fx, fy)
                && x.iter()
                    .zip(y.iter())
                    .all(|(ox, oy)| ox.op == oy.op && identical(&ox.rhs, &oy.rhs))
        }
        (Unary { op: ox, operand: x }, Unary { op: oy, operand: y }) => ox == oy && identical(x, y),
        (Template(x), Template(y)) => {
            x.parts.len() == y.parts.len()
                && x.parts
                    .iter()
                    .zip(y.parts.iter())
                    .all(|(px, py)| parts_identical(px, py))
        }
        _ => false,
    }
}

/// Object keys compare by what they wrap: a bare key `a` is, for HCL, the
/// traversal `a`.
fn keys_identical(a: &ObjectKey, b: &ObjectKey) -> bool {
    match (a, b) {
        (ObjectKey::Bare { name: x, .. }, ObjectKey::Bare { name: y, .. }) => x == y,
        (ObjectKey::Bare { name, .. }, ObjectKey::Expr(e))
        | (ObjectKey::Expr(e), ObjectKey::Bare { name, .. }) => {
            matches!(&e.kind, ExprKind::ScopeTraversal(t) if t.steps.is_empty() && &t.root == name)
        }
        (ObjectKey::Expr(x), ObjectKey::Expr(y)) => identical(x, y),
    }
}

fn parts_identical(a: &TemplatePart, b: &TemplatePart) -> bool {
    match (a, b) {
        (TemplatePart::Literal { text: x, .. }, TemplatePart::Literal { text: y, .. }) => x == y,
        (TemplatePart::Interpolation(x), TemplatePart::Interpolation(y)) => identical(x, y),
        (
            TemplatePart::If {
                condition: cx,
                then_parts: tx,
                else_parts: ex,
                ..
            },
            TemplatePart::If {
                condition: cy,
                then_parts: ty,
                else_parts: ey,
                ..
            },
        ) => {
            identical(cx, cy)
                && tx.len() == ty.len()
                && tx.iter().zip(ty.iter()).all(|(p, q)| parts_identical(p, q))
                && ex.len() == ey.len()
                && ex.iter().zip(ey.iter()).all(|(p, q)| parts_identical(p, q))
        }
        // A `%{for}` directive is a join in HCL's model, which the rules do
        // not cover.
        _ => false,
    }
}

fn steps_equivalent(a: &[TraversalStep], b: &[TraversalStep]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b.iter()).all(|(x, y)| match (x, y) {
            (TraversalStep::Attr { name: nx, .. }, TraversalStep::Attr { name: ny, .. }) => {
                nx == ny
            }
            (TraversalStep::Index { key: kx, .. }, TraversalStep::Index { key: ky, .. }) => {
                literals_equal(kx, ky)
            }
            _ => false,
        })
}

/// Literal values compared with `==` (cty's `Equals`), so `1` and `1.0`
/// match; anything that is not a plain literal does not.
fn literals_equal(a: &Expr, b: &Expr) -> bool {
    match (literal_value(a), literal_value(b)) {
        (Some(x), Some(y)) => x.equals(&y).as_bool() == Some(true),
        _ => false,
    }
}

fn literal_value(expr: &Expr) -> Option<Value> {
    match &expr.kind {
        ExprKind::Number(text) => terrace_value::Number::parse(text).map(Value::number),
        ExprKind::Bool(b) => Some(Value::bool(*b)),
        ExprKind::Null => Some(Value::null(terrace_value::Type::Dynamic)),
        ExprKind::Template(t) => match t.parts.as_slice() {
            [] => Some(Value::string("")),
            [TemplatePart::Literal { text, .. }] => Some(Value::string(text)),
            _ => None,
        },
        ExprKind::Parens(inner) => literal_value(inner),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::for_each_too_similar;
    use terrace_syntax::ast::SourceFile;

    fn similar(a: &str, b: &str) -> bool {
        let parse = |text: &str| {
            let (expr, diags) = terrace_syntax::parse_expression(&SourceFile::new("t", text));
            assert!(diags.is_empty(), "{text}: {diags:?}");
            expr
        };
        for_each_too_similar(&parse(a), &parse(b))
    }

    #[test]
    fn expressions_too_similar_for_a_provider_for_each_and_its_resources() {
        let cases: &[(&str, &str, bool)] = &[
            // References are required on both sides.
            ("{a = 1}", "{a = 1}", false),
            ("toset([\"a\"])", "toset([\"a\"])", false),
            // Traversals: every step equivalent.
            ("var.regions", "var.regions", true),
            ("var.regions", "var.other", false),
            ("var.regions", "local.regions", false),
            ("var.m[\"a\"]", "var.m[\"a\"]", true),
            ("var.m[\"a\"]", "var.m[\"b\"]", false),
            ("var.l[1]", "var.l[1.0]", true),
            ("var.m.a", "var.m[\"a\"]", false),
            // Parentheses are looked through on either side.
            ("(var.regions)", "var.regions", true),
            ("var.regions", "((var.regions))", true),
            // Function calls: same name, same arity, similar arguments.
            ("toset(var.regions)", "toset(var.regions)", true),
            ("toset(var.regions)", "tolist(var.regions)", false),
            ("merge(var.a, var.b)", "merge(var.a)", false),
            ("keys(var.a)", "keys(var.a...)", true),
            // Conditionals, binary and unary operations.
            ("var.on ? var.a : {}", "var.on ? var.a : {}", true),
            ("var.on ? var.a : {}", "var.on ? var.b : {}", false),
            ("var.n + 1", "var.n + 1", true),
            ("var.n + 1", "var.n - 1", false),
            ("!var.b", "!var.b", true),
            // Dynamic index keys.
            ("var.m[local.k]", "var.m[local.k]", true),
            ("var.m[local.k]", "var.m[local.j]", false),
            // Constructors.
            ("[var.a, var.b]", "[var.a, var.b]", true),
            ("[var.a, var.b]", "[var.a]", false),
            ("{ a = var.x }", "{ a = var.x }", true),
            ("{ a = var.x }", "{ b = var.x }", false),
            // for expressions: same symbols and similar parts.
            (
                "{for k, v in var.m : k => v}",
                "{for k, v in var.m : k => v}",
                true,
            ),
            (
                "{for k, v in var.m : k => v}",
                "{for key, v in var.m : key => v}",
                false,
            ),
            (
                "{for k, v in var.m : k => v if v.enabled}",
                "{for k, v in var.m : k => v}",
                false,
            ),
            (
                "{for k, v in var.m : k => v...}",
                "{for k, v in var.m : k => v}",
                false,
            ),
            // Templates with the same parts.
            ("\"${var.a}-x\"", "\"${var.a}-x\"", true),
            ("\"${var.a}-x\"", "\"${var.a}-y\"", false),
            // Different shapes are never similar.
            ("var.regions", "toset(var.regions)", false),
            ("local.enabled_regions", "var.regions", false),
        ];
        for (a, b, want) in cases {
            assert_eq!(similar(a, b), *want, "{a} vs {b}");
            assert_eq!(similar(b, a), *want, "{b} vs {a} (symmetric)");
        }
    }
}
