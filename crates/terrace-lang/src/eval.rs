//! Evaluation of HCL expressions with the semantics of HCL's `hclsyntax`
//! package (as of HCL 2.23, the version Terraform 1.11 uses): the same
//! results, the same unknown-value and mark propagation, and the same
//! diagnostics (summary, detail, subject and context ranges).
//!
//! Root names are resolved through a [`Scope`]; for-expression and splat
//! temporaries live on the evaluator's own stacks, so evaluating one
//! expression never rebuilds a scope.

mod call;
mod collections;
mod operators;
mod template;
#[cfg(test)]
mod tests;
mod traverse;

use crate::funcs::CallContext;
use crate::scope::{Lookup, Scope};
use std::cell::OnceCell;
use terrace_syntax::ast::{Expr, ExprKind, SourceFile, TraversalStep};
use terrace_syntax::{Diagnostic, Diagnostics, SourceRange, Span};
use terrace_value::{Number, Type, Value};

pub use call::suggest_name;
pub(crate) use call::CallArg;
pub use template::render_template;
pub use template::valid_identifier;
pub(crate) use template::{diagnostic_error_string, diagnostics_error_string};

/// Expressions nested deeper than this are refused with a diagnostic
/// instead of risking the evaluator's stack.
pub const MAX_NESTING_DEPTH: usize = 256;

/// Evaluates `expr`, whose spans point into `file`, with root names
/// resolved by `scope`. Never panics; problems become diagnostics and the
/// value is then usually unknown.
pub fn evaluate(expr: &Expr, file: &SourceFile, scope: &dyn Scope) -> (Value, Diagnostics) {
    let mut ev = Evaluator::new(file, scope, Mode::Normal);
    let value = ev.eval(expr);
    (value, ev.take_diags())
}

/// Terraform's `Scope.EvalExpr`: the references in `expr` are parsed first
/// and a malformed one stops evaluation (the result is then an unknown
/// `want`), then the value is converted to `want` ("Incorrect value
/// type"). `Type::Dynamic` accepts any value.
pub fn evaluate_expr(
    expr: &Expr,
    file: &SourceFile,
    scope: &dyn Scope,
    want: &Type,
) -> (Value, Diagnostics) {
    let (_, mut diags) = crate::references::references(expr, file);
    if terrace_syntax::diagnostic::has_errors(&diags) {
        return (Value::unknown(want.clone()), diags);
    }
    let (value, more) = evaluate(expr, file, scope);
    diags.extend(more);
    if want.is_dynamic() {
        return (value, diags);
    }
    match terrace_value::convert::convert(&value, want) {
        Ok(v) => (v, diags),
        Err(e) => {
            diags.push(
                Diagnostic::error(
                    "Incorrect value type",
                    format!("Invalid expression value: {e}."),
                )
                .with_subject(file.range(expr.span)),
            );
            (Value::unknown(want.clone()), diags)
        }
    }
}

/// Whether the expression being evaluated is itself a template rendered by
/// `templatefile`/`templatestring`, where those functions may not recurse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    Normal,
    Template,
}

pub(crate) struct Evaluator<'a> {
    pub(crate) file: &'a SourceFile,
    pub(crate) scope: &'a dyn Scope,
    pub(crate) mode: Mode,
    /// Names bound by enclosing `for` expressions, innermost last.
    locals: Vec<(&'a str, Value)>,
    /// Current elements of enclosing splats, innermost last.
    anon: Vec<Value>,
    depth: usize,
    /// Diagnostics of the expression currently being evaluated; each
    /// sub-evaluation that needs its own diagnostics swaps this out.
    diags: Diagnostics,
    call_context: OnceCell<CallContext<'a>>,
    /// The expressions being evaluated, innermost last: an error is about
    /// the innermost, and shows the values of the references in it (HCL
    /// gives an error the expression node that made it).
    current: Vec<&'a Expr>,
    /// Set while errors will be dropped unseen (`try`, `can`) or while
    /// describing values for an error: no values are described then.
    pub(crate) quiet: usize,
}

impl<'a> Evaluator<'a> {
    pub(crate) fn new(file: &'a SourceFile, scope: &'a dyn Scope, mode: Mode) -> Evaluator<'a> {
        Evaluator {
            file,
            scope,
            mode,
            locals: Vec::new(),
            anon: Vec::new(),
            depth: 0,
            diags: Diagnostics::new(),
            call_context: OnceCell::new(),
            current: Vec::new(),
            quiet: 0,
        }
    }

    pub(crate) fn take_diags(&mut self) -> Diagnostics {
        std::mem::take(&mut self.diags)
    }

    pub(crate) fn call_context(&self) -> &CallContext<'a> {
        self.call_context.get_or_init(|| CallContext {
            base_dir: self.scope.base_dir().to_path_buf(),
            now: self.scope.now(),
        })
    }

    // ----- ranges and diagnostics -----

    pub(crate) fn range(&self, span: Span) -> SourceRange {
        self.file.range(span)
    }

    pub(crate) fn error(
        &self,
        summary: &str,
        detail: impl Into<String>,
        subject: Span,
        context: Option<Span>,
    ) -> Diagnostic {
        self.error_about(summary, detail, subject, context, None)
    }

    /// An error whose references' values are those within `about` (the
    /// part of the expression being evaluated it is about), or within the
    /// whole expression being evaluated.
    fn error_about(
        &self,
        summary: &str,
        detail: impl Into<String>,
        subject: Span,
        context: Option<Span>,
        about: Option<Span>,
    ) -> Diagnostic {
        let mut d = Diagnostic::error(summary, detail).with_subject(self.range(subject));
        if let Some(c) = context {
            d = d.with_context(self.range(c));
        }
        if let Some(node) = self.current.last() {
            d.expression_values = self.reference_values(node, about.unwrap_or(node.span));
        }
        d
    }

    /// [`Evaluator::push_error`] for an error about a part of the
    /// expression being evaluated (an operand), whose references alone
    /// are described, as HCL gives such an error that part.
    pub(crate) fn push_error_about(
        &mut self,
        summary: &str,
        detail: impl Into<String>,
        subject: Span,
        context: Option<Span>,
        about: Span,
    ) {
        let d = self.error_about(summary, detail, subject, context, Some(about));
        self.diags.push(d);
    }

    /// The values of the references in `node` that lie within `within`, as
    /// this evaluator sees them (names bound by enclosing `for`
    /// expressions included); none while errors are not shown.
    fn reference_values(&self, node: &Expr, within: Span) -> Vec<(String, String)> {
        if self.quiet > 0 {
            return Vec::new();
        }
        crate::diagvalues::reference_values_within(
            node,
            within,
            self.file,
            crate::diagvalues::CausedBy::default(),
            &mut |prefix| {
                let mut describing = Evaluator::new(self.file, self.scope, self.mode);
                describing.quiet = 1;
                describing.locals = self.locals.iter().map(|(n, v)| (*n, v.clone())).collect();
                describing.anon = self.anon.clone();
                let value = describing.eval(prefix);
                (!terrace_syntax::diagnostic::has_errors(&describing.diags)).then_some(value)
            },
        )
    }

    pub(crate) fn push_error(
        &mut self,
        summary: &str,
        detail: impl Into<String>,
        subject: Span,
        context: Option<Span>,
    ) {
        let d = self.error(summary, detail, subject, context);
        self.diags.push(d);
    }

    /// Evaluates `expr` with a fresh diagnostics list, returning the value
    /// and only the diagnostics it produced.
    pub(crate) fn eval_isolated(&mut self, expr: &'a Expr) -> (Value, Diagnostics) {
        let saved = std::mem::take(&mut self.diags);
        let value = self.eval(expr);
        let produced = std::mem::replace(&mut self.diags, saved);
        (value, produced)
    }

    // ----- the expression walk -----

    pub(crate) fn eval(&mut self, expr: &'a Expr) -> Value {
        if self.depth >= MAX_NESTING_DEPTH {
            self.push_error(
                "Expression too deeply nested",
                format!("This expression is nested more than {MAX_NESTING_DEPTH} levels deep, which is more than terrace can evaluate."),
                expr.span,
                None,
            );
            return Value::dynamic();
        }
        self.depth += 1;
        self.current.push(expr);
        let value = self.eval_kind(expr);
        self.current.pop();
        self.depth -= 1;
        value
    }

    fn eval_kind(&mut self, expr: &'a Expr) -> Value {
        match &expr.kind {
            ExprKind::Number(text) => match Number::parse(text) {
                Some(n) => Value::number(n),
                None => {
                    self.push_error(
                        "Invalid number literal",
                        "Failed to recognize the value of this number literal.",
                        expr.span,
                        None,
                    );
                    Value::dynamic()
                }
            },
            ExprKind::Bool(b) => Value::bool(*b),
            ExprKind::Null => Value::null(Type::Dynamic),
            ExprKind::Template(t) => self.eval_template(&t.parts, expr.span),
            ExprKind::TemplateWrap(inner) | ExprKind::Parens(inner) => self.eval(inner),
            ExprKind::ScopeTraversal(t) => self.eval_scope_traversal(t),
            ExprKind::RelativeTraversal { source, steps } => {
                let value = self.eval(source);
                self.apply_steps(value, steps)
            }
            ExprKind::FunctionCall {
                name,
                name_span,
                args,
                expand_final,
            } => self.eval_call(expr, name, *name_span, args, *expand_final),
            ExprKind::Conditional {
                condition,
                true_result,
                false_result,
            } => self.eval_conditional(expr.span, condition, true_result, false_result),
            ExprKind::Binary { first, rest } => self.eval_binary(first, rest),
            ExprKind::Unary { op, operand } => self.eval_unary(expr.span, *op, operand),
            ExprKind::Tuple(items) => {
                let values = items.iter().map(|e| self.eval(e)).collect();
                Value::tuple(values)
            }
            ExprKind::Object(items) => self.eval_object(items),
            ExprKind::For(f) => self.eval_for(f, expr.span),
            ExprKind::Index {
                collection,
                key,
                open_bracket_span,
            } => {
                let coll = self.eval(collection);
                let key = self.eval(key);
                let bracket = Span {
                    start: open_bracket_span.start,
                    end: expr.span.end.max(open_bracket_span.end),
                };
                self.index(&coll, &key, bracket)
            }
            ExprKind::Splat { source, each, .. } => self.eval_splat(expr, source, each),
            ExprKind::AnonSymbol => self.anon.last().cloned().unwrap_or_else(Value::dynamic),
            ExprKind::Invalid => Value::dynamic(),
        }
    }

    // ----- traversals -----

    fn eval_scope_traversal(&mut self, t: &'a terrace_syntax::ast::Traversal) -> Value {
        if let Some(value) = self
            .locals
            .iter()
            .rev()
            .find(|(name, _)| *name == t.root)
            .map(|(_, v)| v.clone())
        {
            return self.apply_steps(value, &t.steps);
        }
        if !self.scope.variables_allowed() {
            self.push_error(
                "Variables not allowed",
                "Variables may not be used here.",
                t.root_span,
                None,
            );
            return Value::dynamic();
        }
        match self.scope.lookup(t, self.file) {
            Lookup::Found { value, consumed } => {
                let rest = t.steps.get(consumed..).unwrap_or(&[]);
                self.apply_steps(value, rest)
            }
            Lookup::FoundWithWarnings {
                value,
                consumed,
                warnings,
            } => {
                self.diags.extend(warnings);
                let rest = t.steps.get(consumed..).unwrap_or(&[]);
                self.apply_steps(value, rest)
            }
            Lookup::NotFound => {
                let mut names = self.scope.root_names();
                names.extend(self.locals.iter().map(|(n, _)| n.to_string()));
                let suggestion = match suggest_name(&t.root, names.iter().map(String::as_str)) {
                    Some(s) => format!(" Did you mean {s:?}?"),
                    None => String::new(),
                };
                self.push_error(
                    "Unknown variable",
                    format!("There is no variable named {:?}.{suggestion}", t.root),
                    t.root_span,
                    None,
                );
                Value::dynamic()
            }
            Lookup::Failed(diags) => {
                self.diags.extend(diags);
                Value::dynamic()
            }
        }
    }

    /// HCL's `TraverseRel`: each step in turn, stopping at the first error.
    pub(crate) fn apply_steps(&mut self, mut value: Value, steps: &'a [TraversalStep]) -> Value {
        for step in steps {
            let before = self.diags.len();
            value = match step {
                TraversalStep::Attr { name, span } => self.get_attr(&value, name, *span),
                TraversalStep::Index { key, span } => {
                    let key = self.eval(key);
                    self.index(&value, &key, *span)
                }
            };
            if terrace_syntax::diagnostic::has_errors(&self.diags[before..]) {
                return Value::dynamic();
            }
        }
        value
    }

    // ----- for-expression and splat temporaries -----

    pub(crate) fn push_local(&mut self, name: &'a str, value: Value) {
        self.locals.push((name, value));
    }

    pub(crate) fn pop_locals(&mut self, n: usize) {
        let keep = self.locals.len().saturating_sub(n);
        self.locals.truncate(keep);
    }

    pub(crate) fn push_anon(&mut self, value: Value) {
        self.anon.push(value);
    }

    pub(crate) fn pop_anon(&mut self) {
        self.anon.pop();
    }

    // ----- HCL's `StartRange` -----

    /// The range HCL reports for an expression's start, used as the subject
    /// of argument diagnostics: the name and open parenthesis of a call, the
    /// opening bracket of a constructor, the operator of a unary operation.
    pub(crate) fn start_span(&self, expr: &Expr) -> Span {
        let mut e = expr;
        // Each step moves to a strictly smaller sub-expression, so this ends.
        loop {
            match &e.kind {
                ExprKind::FunctionCall { name_span, .. } => {
                    return name_span.to(self.open_paren_span(*name_span, e.span))
                }
                ExprKind::Conditional { condition, .. } => e = condition,
                ExprKind::Binary { first, .. } => e = first,
                ExprKind::Parens(inner) => e = inner,
                ExprKind::Index {
                    open_bracket_span, ..
                } => return *open_bracket_span,
                ExprKind::Tuple(_) | ExprKind::Object(_) | ExprKind::Unary { .. } => {
                    return Span {
                        start: e.span.start,
                        end: (e.span.start + 1).min(e.span.end),
                    }
                }
                ExprKind::For(f) => return f.open_span,
                ExprKind::Splat { source, .. } => {
                    return self.splat_marker_span(source.span, e.span)
                }
                ExprKind::Template(t) => match t.parts.first() {
                    Some(terrace_syntax::ast::TemplatePart::Literal { span, .. }) => return *span,
                    Some(terrace_syntax::ast::TemplatePart::Interpolation(inner)) => e = inner,
                    Some(terrace_syntax::ast::TemplatePart::If { span, .. })
                    | Some(terrace_syntax::ast::TemplatePart::For { span, .. }) => return *span,
                    None => return e.span,
                },
                _ => return e.span,
            }
        }
    }

    /// The `(` after a function name (HCL's `OpenParenRange`).
    pub(crate) fn open_paren_span(&self, name_span: Span, call_span: Span) -> Span {
        let text = self.file.text.as_bytes();
        let mut i = name_span.end as usize;
        let end = (call_span.end as usize).min(text.len());
        while i < end && text[i] != b'(' {
            i += 1;
        }
        if i < end {
            Span::new(i, i + 1)
        } else {
            Span {
                start: name_span.end,
                end: name_span.end,
            }
        }
    }

    /// The `)` ending a call (HCL's `CloseParenRange`).
    pub(crate) fn close_paren_span(call_span: Span) -> Span {
        Span {
            start: call_span.end.saturating_sub(1).max(call_span.start),
            end: call_span.end,
        }
    }

    /// The `[*]` or `.*` of a splat (HCL's `MarkerRange`).
    pub(crate) fn splat_marker_span(&self, source_span: Span, splat_span: Span) -> Span {
        let text = self.file.text.as_bytes();
        let end = (splat_span.end as usize).min(text.len());
        let mut i = (source_span.end as usize).min(end);
        while i < end && text[i].is_ascii_whitespace() {
            i += 1;
        }
        let start = i;
        while i < end && text[i] != b'*' {
            i += 1;
        }
        if i < end {
            i += 1;
        }
        if start < end && text[start] == b'[' {
            while i < end && text[i] != b']' {
                i += 1;
            }
            if i < end {
                i += 1;
            }
        }
        Span::new(start, i)
    }
}
