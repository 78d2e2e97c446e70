//! Expressions as the configuration decoder sees them: a native-syntax
//! expression, a JSON value, or a bare object key, together with the file
//! its spans point into.
//!
//! HCL gives the two syntaxes different static readings, and OpenTofu's
//! decoder depends on them: a JSON string is a literal when evaluated
//! without a context (`Value(nil)`), a template otherwise, and a traversal
//! when a reference is expected (`provider = "aws.west"`). This type keeps
//! the original form so each reading can be made on demand, and converts a
//! JSON value to an evaluable expression once, on first use.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};
use terrace_lang::eval::evaluate;
use terrace_lang::scope::{MapScope, Scope};
use terrace_syntax::ast::{
    Expr, ExprKind, JsonValue, JsonValueKind, ObjectKey, SourceFile, TemplatePart, Traversal,
    TraversalStep,
};
use terrace_syntax::{Diagnostic, Diagnostics, SourceRange, Span};
use terrace_value::{Number, Type, Value};

#[derive(Clone)]
pub struct Expression {
    file: Arc<SourceFile>,
    inner: Arc<ExpressionInner>,
}

struct ExpressionInner {
    syntax: Syntax,
    /// The expression to evaluate and the diagnostics its construction
    /// produced (template errors inside JSON strings, which HCL reports
    /// only when the string is evaluated).
    evaluable: OnceLock<(Expr, Diagnostics)>,
}

enum Syntax {
    Native(Expr),
    Json(JsonValue),
    /// A bare identifier used as an object key, `{ aws = aws.east }`: a
    /// string when evaluated, a traversal when read as a reference (HCL's
    /// `ObjectConsKeyExpr`).
    BareKey {
        name: String,
        span: Span,
    },
}

impl std::fmt::Debug for Expression {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let range = self.range();
        write!(f, "Expression({range})")
    }
}

impl Expression {
    pub fn native(file: &Arc<SourceFile>, expr: Expr) -> Expression {
        Expression::with_syntax(file, Syntax::Native(expr))
    }

    pub fn json(file: &Arc<SourceFile>, value: JsonValue) -> Expression {
        Expression::with_syntax(file, Syntax::Json(value))
    }

    fn bare_key(file: &Arc<SourceFile>, name: String, span: Span) -> Expression {
        Expression::with_syntax(file, Syntax::BareKey { name, span })
    }

    fn with_syntax(file: &Arc<SourceFile>, syntax: Syntax) -> Expression {
        Expression {
            file: file.clone(),
            inner: Arc::new(ExpressionInner {
                syntax,
                evaluable: OnceLock::new(),
            }),
        }
    }

    pub fn file(&self) -> &Arc<SourceFile> {
        &self.file
    }

    pub fn span(&self) -> Span {
        match &self.inner.syntax {
            Syntax::Native(e) => e.span,
            Syntax::Json(v) => v.span,
            Syntax::BareKey { span, .. } => *span,
        }
    }

    pub fn range(&self) -> SourceRange {
        self.file.range(self.span())
    }

    /// HCL's `StartRange`: the opening bracket of a collection constructor,
    /// the name of a function call, otherwise the whole expression.
    pub fn start_range(&self) -> SourceRange {
        let span = self.span();
        let start = match &self.inner.syntax {
            Syntax::Native(e) => match &e.kind {
                ExprKind::Tuple(_) | ExprKind::Object(_) => first_char(&self.file, span),
                ExprKind::FunctionCall { name_span, .. } => *name_span,
                _ => span,
            },
            Syntax::Json(v) => match v.kind {
                JsonValueKind::Array(_) | JsonValueKind::Object(_) => first_char(&self.file, span),
                _ => span,
            },
            Syntax::BareKey { .. } => span,
        };
        self.file.range(start)
    }

    pub fn is_json(&self) -> bool {
        matches!(self.inner.syntax, Syntax::Json(_))
    }

    /// The native-syntax expression, if this is one.
    pub fn native_expr(&self) -> Option<&Expr> {
        match &self.inner.syntax {
            Syntax::Native(e) => Some(e),
            _ => None,
        }
    }

    /// The JSON value, if this expression came from JSON syntax.
    pub fn json_value(&self) -> Option<&JsonValue> {
        match &self.inner.syntax {
            Syntax::Json(v) => Some(v),
            _ => None,
        }
    }

    /// The expression in evaluable form (JSON strings read as templates)
    /// and the diagnostics reading it produced.
    pub fn evaluable(&self) -> (&Expr, &[Diagnostic]) {
        let (expr, diags) = self
            .inner
            .evaluable
            .get_or_init(|| match &self.inner.syntax {
                Syntax::Native(e) => (e.clone(), Vec::new()),
                Syntax::Json(v) => terrace_syntax::json_value_to_expr(&self.file, v),
                Syntax::BareKey { name, span } => (
                    Expr {
                        kind: ExprKind::Template(terrace_syntax::ast::Template {
                            parts: vec![TemplatePart::Literal {
                                text: name.clone(),
                                span: *span,
                            }],
                            heredoc: false,
                            origin: Default::default(),
                        }),
                        span: *span,
                    },
                    Vec::new(),
                ),
            });
        (expr, diags)
    }

    /// Evaluates the expression with `scope` (HCL's `Value(ctx)` with a
    /// context).
    pub fn evaluate(&self, scope: &dyn Scope) -> (Value, Diagnostics) {
        let (expr, read_diags) = self.evaluable();
        let mut diags = read_diags.to_vec();
        if terrace_syntax::diagnostic::has_errors(&diags) {
            return (Value::dynamic(), diags);
        }
        let (value, more) = evaluate(expr, &self.file, scope);
        diags.extend(more);
        (value, diags)
    }

    /// HCL's `Value(nil)`: no variables, no functions, and JSON strings
    /// taken literally.
    pub fn constant_value(&self) -> (Value, Diagnostics) {
        match &self.inner.syntax {
            Syntax::Native(e) => evaluate(e, &self.file, &MapScope::constant()),
            Syntax::Json(v) => json_literal(&self.file, v),
            Syntax::BareKey { name, .. } => (Value::string(name), Vec::new()),
        }
    }

    /// The scope traversals the expression mentions (HCL's `Variables()`).
    pub fn variables(&self) -> Vec<Traversal> {
        let (expr, _) = self.evaluable();
        terrace_lang::references::traversals(expr)
            .into_iter()
            .cloned()
            .collect()
    }

    /// The expression read as an absolute traversal (HCL's
    /// `AbsTraversalForExpr` without its diagnostic).
    pub fn as_traversal(&self) -> Option<Traversal> {
        match &self.inner.syntax {
            Syntax::Native(e) => native_as_traversal(e),
            Syntax::Json(v) => {
                let (t, diags) = terrace_syntax::json_string_as_traversal(&self.file, v, false)?;
                if terrace_syntax::diagnostic::has_errors(&diags) {
                    return None;
                }
                t.and_then(|t| t.into_absolute())
            }
            Syntax::BareKey { name, span } => Some(Traversal {
                root: name.clone(),
                root_span: *span,
                steps: Vec::new(),
            }),
        }
    }

    /// HCL's `AbsTraversalForExpr` with its diagnostic.
    pub fn abs_traversal(&self) -> Result<Traversal, Diagnostics> {
        self.as_traversal().ok_or_else(|| {
            vec![Diagnostic::error(
                "Invalid expression",
                "A single static variable reference is required: only attribute access and indexing with constant keys. No calculations, function calls, template expressions, etc are allowed here.",
            )
            .with_subject(self.range())]
        })
    }

    /// HCL's `ExprAsKeyword`: the name of a single-name traversal.
    pub fn as_keyword(&self) -> Option<String> {
        let t = self.as_traversal()?;
        t.steps.is_empty().then_some(t.root)
    }

    /// HCL's `ExprList`: the elements of a tuple constructor or JSON array.
    pub fn as_list(&self) -> Option<Vec<Expression>> {
        match &self.inner.syntax {
            Syntax::Native(e) => match &e.kind {
                ExprKind::Tuple(items) => Some(
                    items
                        .iter()
                        .map(|i| Expression::native(&self.file, i.clone()))
                        .collect(),
                ),
                _ => None,
            },
            Syntax::Json(v) => match &v.kind {
                JsonValueKind::Array(items) => Some(
                    items
                        .iter()
                        .map(|i| Expression::json(&self.file, i.clone()))
                        .collect(),
                ),
                _ => None,
            },
            Syntax::BareKey { .. } => None,
        }
    }

    /// HCL's `ExprList` with its diagnostic.
    pub fn list(&self) -> Result<Vec<Expression>, Diagnostics> {
        self.as_list().ok_or_else(|| {
            vec![Diagnostic::error(
                "Invalid expression",
                "A static list expression is required.",
            )
            .with_subject(self.start_range())]
        })
    }

    /// HCL's `ExprMap`: the key and value expressions of an object
    /// constructor or JSON object.
    pub fn as_map(&self) -> Option<Vec<(Expression, Expression)>> {
        match &self.inner.syntax {
            Syntax::Native(e) => match &e.kind {
                ExprKind::Object(items) => Some(
                    items
                        .iter()
                        .map(|item| {
                            let key = match &item.key {
                                ObjectKey::Bare { name, span } => {
                                    Expression::bare_key(&self.file, name.clone(), *span)
                                }
                                ObjectKey::Expr(k) => Expression::native(&self.file, k.clone()),
                            };
                            (key, Expression::native(&self.file, item.value.clone()))
                        })
                        .collect(),
                ),
                _ => None,
            },
            Syntax::Json(v) => match &v.kind {
                JsonValueKind::Object(props) => Some(
                    props
                        .iter()
                        .map(|p| {
                            let key = JsonValue {
                                kind: JsonValueKind::String(p.name.clone()),
                                span: p.name_span,
                            };
                            (
                                Expression::json(&self.file, key),
                                Expression::json(&self.file, p.value.clone()),
                            )
                        })
                        .collect(),
                ),
                _ => None,
            },
            Syntax::BareKey { .. } => None,
        }
    }

    /// HCL's `ExprMap` with its diagnostic.
    pub fn map(&self) -> Result<Vec<(Expression, Expression)>, Diagnostics> {
        self.as_map().ok_or_else(|| {
            vec![
                Diagnostic::error("Invalid expression", "A static map expression is required.")
                    .with_subject(self.start_range()),
            ]
        })
    }

    /// `collection[key]` with a non-literal key, as HCL's `IndexExpr`.
    pub fn as_index(&self) -> Option<(Expression, Expression)> {
        match &self.inner.syntax {
            Syntax::Native(e) => match &e.kind {
                ExprKind::Index {
                    collection, key, ..
                } => Some((
                    Expression::native(&self.file, (**collection).clone()),
                    Expression::native(&self.file, (**key).clone()),
                )),
                _ => None,
            },
            _ => None,
        }
    }

    /// OpenTofu's `exprIsNativeQuotedString`: a native-syntax string
    /// literal without interpolations.
    pub fn is_native_quoted_string(&self) -> bool {
        match &self.inner.syntax {
            Syntax::Native(Expr {
                kind: ExprKind::Template(t),
                ..
            }) => {
                t.parts.len() == 1 && matches!(t.parts[0], TemplatePart::Literal { .. })
                    || t.parts.is_empty() && !t.heredoc
            }
            _ => false,
        }
    }

    /// The literal text of a native quoted string.
    fn native_quoted_text(&self) -> Option<String> {
        match &self.inner.syntax {
            Syntax::Native(Expr {
                kind: ExprKind::Template(t),
                ..
            }) => match t.parts.as_slice() {
                [] => Some(String::new()),
                [TemplatePart::Literal { text, .. }] => Some(text.clone()),
                _ => None,
            },
            _ => None,
        }
    }

    /// OpenTofu's `hcl2shim.ConvertJSONExpressionToHCL`: a JSON string
    /// parsed as a native expression. Native expressions are returned
    /// unchanged.
    pub fn json_as_native(&self) -> Result<Expression, Diagnostics> {
        let Syntax::Json(v) = &self.inner.syntax else {
            return Ok(self.clone());
        };
        match terrace_syntax::json_string_as_expression(&self.file, v) {
            Some((expr, diags)) => {
                if terrace_syntax::diagnostic::has_errors(&diags) {
                    Err(diags)
                } else {
                    Ok(Expression::native(&self.file, expr))
                }
            }
            None => {
                let (value, diags) = self.constant_value();
                if terrace_syntax::diagnostic::has_errors(&diags) {
                    return Err(diags);
                }
                Err(vec![Diagnostic::error(
                    "Expected string expression",
                    format!(
                        "This value must be a string, but got {}.",
                        value.ty().friendly_name()
                    ),
                )
                .with_subject(self.range())])
            }
        }
    }

    /// OpenTofu's `shimTraversalInString`: a native quoted string holding a
    /// reference (`"aws_instance.a"`) or keyword (`"destroy"`) is read as
    /// the traversal inside it, with the deprecation warning. Anything else
    /// is returned unchanged.
    pub fn shim_traversal_in_string(&self, want_keyword: bool) -> (Expression, Diagnostics) {
        let Some(text) = self.native_quoted_text() else {
            return (self.clone(), Vec::new());
        };
        let span = self.span();
        // The string's content starts after its opening quote; escapes make
        // later offsets approximate, as in OpenTofu.
        let offset = span.start + 1;
        let inner = SourceFile::new(self.file.name.clone(), text.clone());
        let (traversal, parse_diags) = terrace_syntax::parse_traversal_abs(&inner);
        let mut diags: Diagnostics = parse_diags
            .into_iter()
            .map(|d| shift_diagnostic(d, &self.file, offset))
            .collect();
        let (summary, detail) = if want_keyword {
            (
                "Quoted keywords are deprecated",
                format!("In this context, keywords are expected literally rather than in quotes. {PREDECESSOR_QUOTES} quoted keywords are now deprecated and will be removed in a future version of {PRODUCT}. Remove the quotes surrounding this keyword to silence this warning."),
            )
        } else {
            (
                "Quoted references are deprecated",
                format!("In this context, references are expected literally rather than in quotes. {PREDECESSOR_QUOTES} quoted references are now deprecated and will be removed in a future version of {PRODUCT}. Remove the quotes surrounding this reference to silence this warning."),
            )
        };
        diags.push(Diagnostic::warning(summary, detail).with_subject(self.range()));
        let expr = match traversal {
            Some(t) => Expr {
                kind: ExprKind::ScopeTraversal(shift_traversal(t, offset)),
                span,
            },
            None => Expr {
                kind: ExprKind::Invalid,
                span,
            },
        };
        (Expression::native(&self.file, expr), diags)
    }
}

/// The product name used in diagnostic details where OpenTofu's say
/// "OpenTofu".
pub use terrace_syntax::PRODUCT;

const PREDECESSOR_QUOTES: &str = "Terraform 0.11 and earlier required quotes, but";

fn first_char(file: &SourceFile, span: Span) -> Span {
    let start = span.start as usize;
    let len = file
        .text
        .get(start..)
        .and_then(|s| s.chars().next())
        .map(char::len_utf8)
        .unwrap_or(0);
    Span::new(start, (start + len).min(span.end as usize))
}

fn native_as_traversal(e: &Expr) -> Option<Traversal> {
    match &e.kind {
        ExprKind::ScopeTraversal(t) => Some(t.clone()),
        ExprKind::RelativeTraversal { source, steps } => {
            let mut t = native_as_traversal(source)?;
            t.steps.extend(steps.iter().cloned());
            Some(t)
        }
        ExprKind::Null => Some(keyword_traversal("null", e.span)),
        ExprKind::Bool(true) => Some(keyword_traversal("true", e.span)),
        ExprKind::Bool(false) => Some(keyword_traversal("false", e.span)),
        _ => None,
    }
}

fn keyword_traversal(name: &str, span: Span) -> Traversal {
    Traversal {
        root: name.to_string(),
        root_span: span,
        steps: Vec::new(),
    }
}

fn shift_span(span: Span, offset: u32) -> Span {
    Span {
        start: span.start + offset,
        end: span.end + offset,
    }
}

fn shift_traversal(t: Traversal, offset: u32) -> Traversal {
    Traversal {
        root: t.root,
        root_span: shift_span(t.root_span, offset),
        steps: t
            .steps
            .into_iter()
            .map(|s| match s {
                TraversalStep::Attr { name, span } => TraversalStep::Attr {
                    name,
                    span: shift_span(span, offset),
                },
                TraversalStep::Index { key, span } => TraversalStep::Index {
                    key: Box::new(Expr {
                        kind: key.kind,
                        span: shift_span(key.span, offset),
                    }),
                    span: shift_span(span, offset),
                },
            })
            .collect(),
    }
}

fn shift_diagnostic(mut d: Diagnostic, file: &SourceFile, offset: u32) -> Diagnostic {
    let shift = |r: &SourceRange| file.range(shift_span(r.span(), offset));
    d.subject = d.subject.as_ref().map(shift);
    d.context = d.context.as_ref().map(shift);
    d
}

/// A JSON value evaluated without a context: strings are literal.
fn json_literal(file: &SourceFile, v: &JsonValue) -> (Value, Diagnostics) {
    let mut diags = Vec::new();
    let value = json_literal_inner(file, v, &mut diags);
    (value, diags)
}

fn json_literal_inner(file: &SourceFile, v: &JsonValue, diags: &mut Diagnostics) -> Value {
    match &v.kind {
        JsonValueKind::Null => Value::null(Type::Dynamic),
        JsonValueKind::Bool(b) => Value::bool(*b),
        JsonValueKind::Number(n) => match Number::parse(n) {
            Some(n) => Value::number(n),
            None => Value::unknown(Type::Number),
        },
        JsonValueKind::String(s) => Value::string(s),
        JsonValueKind::Array(items) => Value::tuple(
            items
                .iter()
                .map(|i| json_literal_inner(file, i, diags))
                .collect(),
        ),
        JsonValueKind::Object(props) => {
            let mut attrs = BTreeMap::new();
            let mut ranges: BTreeMap<String, Span> = BTreeMap::new();
            for p in props {
                let value = json_literal_inner(file, &p.value, diags);
                if let Some(prev) = ranges.get(&p.name) {
                    diags.push(
                        Diagnostic::error(
                            "Duplicate object attribute",
                            format!(
                                "An attribute named {} was already defined at {}.",
                                terrace_value::gostr::quote(&p.name),
                                file.range(*prev)
                            ),
                        )
                        .with_subject(file.range(p.name_span)),
                    );
                    continue;
                }
                ranges.insert(p.name.clone(), p.name_span);
                attrs.insert(p.name.clone(), value);
            }
            Value::object(attrs)
        }
        JsonValueKind::Invalid => Value::dynamic(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn native(src: &str) -> Expression {
        let file = SourceFile::new("t.tf", src);
        let (expr, diags) = terrace_syntax::parse_expression(&file);
        assert!(diags.is_empty(), "{diags:?}");
        Expression::native(&file, expr)
    }

    fn json(src: &str) -> Expression {
        let (file, diags) =
            terrace_syntax::parse_json_file("t.tf.json", &format!("{{\"a\": {src}}}"));
        assert!(diags.is_empty(), "{diags:?}");
        let terrace_syntax::ast::Body::Json(body) = &file.body else {
            panic!("not json")
        };
        Expression::json(&file.source, body.properties[0].value.clone())
    }

    #[test]
    fn traversals_and_keywords() {
        assert_eq!(
            native("aws.west").as_traversal().map(|t| t.root),
            Some("aws".into())
        );
        assert_eq!(native("destroy").as_keyword(), Some("destroy".into()));
        assert_eq!(native("null").as_keyword(), Some("null".into()));
        assert_eq!(native("a.b").as_keyword(), None);
        assert!(native("\"a.b\"").as_traversal().is_none());
        assert!(native("(a)").as_traversal().is_none());
        let t = json("\"aws.west\"").as_traversal();
        assert_eq!(t.map(|t| t.steps.len()), Some(1));
        assert!(json("1").as_traversal().is_none());
    }

    #[test]
    fn constant_values() {
        let (v, d) = json("\"${var.x}\"").constant_value();
        assert!(d.is_empty());
        assert_eq!(v.as_str(), Some("${var.x}"));
        let (_, d) = native("var.x").constant_value();
        assert_eq!(d[0].summary, "Variables not allowed");
        let (v, _) = native("{ a = 1 }").as_map().unwrap_or_default()[0]
            .0
            .constant_value();
        assert_eq!(v.as_str(), Some("a"));
    }

    #[test]
    fn lists_maps_and_strings() {
        assert_eq!(native("[a, b]").as_list().map(|l| l.len()), Some(2));
        assert!(native("a").list().is_err());
        assert_eq!(json("[1, 2, 3]").as_list().map(|l| l.len()), Some(3));
        assert_eq!(json("{\"x\": 1}").as_map().map(|m| m.len()), Some(1));
        assert!(native("\"x\"").is_native_quoted_string());
        assert!(!native("\"${x}\"").is_native_quoted_string());
        assert!(!json("\"x\"").is_native_quoted_string());
    }

    #[test]
    fn shims() {
        let (e, d) = native("\"aws_instance.a\"").shim_traversal_in_string(false);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].summary, "Quoted references are deprecated");
        let t = e.as_traversal();
        assert_eq!(t.as_ref().map(|t| t.root.as_str()), Some("aws_instance"));
        // The traversal's spans point into the original file.
        let root = t.map(|t| t.root_span).unwrap_or_default();
        assert_eq!(root.start, 1);
        let (e, d) = native("destroy").shim_traversal_in_string(true);
        assert!(d.is_empty());
        assert_eq!(e.as_keyword(), Some("destroy".into()));
        let converted = json("\"aws.x[each.key]\"").json_as_native();
        assert!(converted.is_ok_and(|e| e.as_index().is_some()));
        let err = json("1").json_as_native().err().unwrap_or_default();
        assert_eq!(err[0].summary, "Expected string expression");
    }
}
