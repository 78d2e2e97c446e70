//! String templates (HCL's `TemplateExpr`, and the conditional and
//! `TemplateJoinExpr`-over-`for` forms its parser makes of `%{if}` and
//! `%{for}` directives), plus rendering a whole template file with only a
//! given set of variables, for `templatefile` and `templatestring`.

use super::collections::{ForSpec, ForValue};
use super::{Evaluator, Mode};
use crate::funcs::FunctionError;
use crate::scope::{ExternalFunction, FunctionLookupError, Lookup, Scope};
use std::path::Path;
use std::sync::Arc;
use terrace_syntax::ast::{Expr, SourceFile, TemplatePart, Traversal};
use terrace_syntax::diagnostic::has_errors;
use terrace_syntax::{Diagnostic, Diagnostics, Span};
use terrace_value::convert::convert;
use terrace_value::gostr;
use terrace_value::{Marks, Type, Value};

/// cty keeps known prefixes of unknown strings short so they stay cheap
/// to carry around; HCL cuts them at this many bytes.
const MAX_KNOWN_PREFIX: usize = 128;

const INVALID_INTERPOLATION: &str = "Invalid template interpolation value";

pub(crate) fn part_span(part: &TemplatePart) -> Span {
    match part {
        TemplatePart::Literal { span, .. }
        | TemplatePart::If { span, .. }
        | TemplatePart::For { span, .. } => *span,
        TemplatePart::Interpolation(e) => e.span,
    }
}

/// The range HCL gives a template made of `parts`: first to last part, or
/// `fallback` when there are none.
fn parts_span(parts: &[TemplatePart], fallback: Span) -> Span {
    match (parts.first(), parts.last()) {
        (Some(first), Some(last)) => part_span(first).to(part_span(last)),
        _ => fallback,
    }
}

impl<'a> Evaluator<'a> {
    /// HCL's `TemplateExpr.Value`.
    pub(crate) fn eval_template(&mut self, parts: &'a [TemplatePart], span: Span) -> Value {
        let start = self.diags.len();
        let mut buf = String::new();
        let mut known = true;
        let mut marks = Marks::NONE;
        for part in parts {
            let (value, subject) = match part {
                TemplatePart::Literal { text, .. } => {
                    if known && !has_errors(&self.diags[start..]) {
                        buf.push_str(text);
                    }
                    continue;
                }
                TemplatePart::Interpolation(e) => (self.eval(e), e.span),
                TemplatePart::If {
                    condition,
                    then_parts,
                    else_parts,
                    span: directive,
                } => (
                    self.eval_template_if(condition, then_parts, else_parts, *directive),
                    *directive,
                ),
                TemplatePart::For {
                    key_var,
                    value_var,
                    collection,
                    body,
                    span: directive,
                } => (
                    self.eval_template_for(
                        key_var.as_deref(),
                        value_var,
                        collection,
                        body,
                        *directive,
                    ),
                    *directive,
                ),
            };
            if value.is_null() {
                self.push_error(
                    INVALID_INTERPOLATION,
                    "The expression result is null. Cannot include a null value in a string template.",
                    subject,
                    Some(span),
                );
                continue;
            }
            let (value, part_marks) = value.unmark();
            marks = marks.union(part_marks);
            if !value.is_known() {
                known = false;
                continue;
            }
            match convert(&value, &Type::String) {
                Ok(s) => {
                    if known && !has_errors(&self.diags[start..]) {
                        buf.push_str(s.as_str().unwrap_or_default());
                    }
                }
                Err(e) => self.push_error(
                    INVALID_INTERPOLATION,
                    format!(
                        "Cannot include the given value in a string template: {}.",
                        e.message
                    ),
                    subject,
                    Some(span),
                ),
            }
        }
        let result = if known {
            Value::string(buf)
        } else {
            let unknown = Value::unknown(Type::String);
            let unknown = if !has_errors(&self.diags[start..]) && !buf.is_empty() {
                let mut cut = buf.len().min(MAX_KNOWN_PREFIX);
                while !buf.is_char_boundary(cut) {
                    cut -= 1;
                }
                unknown.refine_string_prefix(&buf[..cut])
            } else {
                unknown
            };
            unknown.refine_not_null()
        };
        result.mark(marks)
    }

    /// `%{ if }`: HCL's conditional over two sub-templates.
    fn eval_template_if(
        &mut self,
        condition: &'a Expr,
        then_parts: &'a [TemplatePart],
        else_parts: &'a [TemplatePart],
        span: Span,
    ) -> Value {
        let then_span = parts_span(
            then_parts,
            Span {
                start: span.start,
                end: span.start,
            },
        );
        let else_span = parts_span(
            else_parts,
            Span {
                start: span.end,
                end: span.end,
            },
        );
        let saved = std::mem::take(&mut self.diags);
        let t = self.eval_template(then_parts, then_span);
        let t_diags = std::mem::take(&mut self.diags);
        let f = self.eval_template(else_parts, else_span);
        let f_diags = std::mem::replace(&mut self.diags, saved);
        self.conditional_result(
            span,
            condition,
            (t, t_diags, then_span),
            (f, f_diags, else_span),
        )
    }

    /// `%{ for }`: HCL's `TemplateJoinExpr` over a tuple-producing `for`.
    fn eval_template_for(
        &mut self,
        key_var: Option<&'a str>,
        value_var: &'a str,
        collection: &'a Expr,
        body: &'a [TemplatePart],
        span: Span,
    ) -> Value {
        let body_span = parts_span(body, span);
        let spec = ForSpec {
            key_var,
            value_var,
            collection,
            key_expr: None,
            value: ForValue::Template(body, body_span),
            condition: None,
            group: false,
            span,
        };
        let tuple = self.eval_for_spec(&spec);
        if tuple.ty().is_dynamic() || !tuple.is_known() {
            return Value::unknown(Type::String);
        }
        let (tuple, marks) = tuple.unmark();
        let mut all_marks = marks;
        let mut buf = String::new();
        for value in tuple.as_elements().unwrap_or_default() {
            if value.is_null() {
                self.push_error(
                    INVALID_INTERPOLATION,
                    "An iteration result is null. Cannot include a null value in a string template.",
                    span,
                    None,
                );
                continue;
            }
            if value.ty().is_dynamic() {
                return Value::unknown(Type::String).mark(marks);
            }
            let s = match convert(value, &Type::String) {
                Ok(s) => s,
                Err(e) => {
                    self.push_error(
                        INVALID_INTERPOLATION,
                        format!("Cannot include one of the interpolation results into the string template: {}.", e.message),
                        span,
                        None,
                    );
                    continue;
                }
            };
            if !value.is_known() {
                return Value::unknown(Type::String).mark(marks);
            }
            let (s, m) = s.unmark();
            all_marks = all_marks.union(m);
            buf.push_str(s.as_str().unwrap_or_default());
        }
        Value::string(buf).mark(all_marks)
    }
}

/// Renders a template with only `vars` in scope (Terraform's
/// `templatefile`/`templatestring` rendering), functions from `outer`'s
/// table except that the template functions may not recurse. Errors are
/// function errors: about the vars argument (index `vars_arg`) when a
/// variable is missing or badly named, about the call otherwise.
pub fn render_template(
    template: &Expr,
    file: &SourceFile,
    vars: &Value,
    vars_arg: usize,
    outer: &dyn Scope,
) -> Result<Value, FunctionError> {
    let Some(attrs) = vars
        .as_attributes()
        .filter(|_| vars.ty().is_map() || vars.ty().is_object())
    else {
        return Err(FunctionError::arg(
            vars_arg,
            "invalid vars value: must be a map",
        ));
    };
    for name in attrs.keys() {
        if !valid_identifier(name) {
            return Err(FunctionError::arg(
                vars_arg,
                format!(
                    "invalid template variable name {}: must start with a letter, followed by zero or more letters, digits, and underscores",
                    gostr::quote(name)
                ),
            ));
        }
    }
    for traversal in crate::references::traversals(template) {
        if !attrs.contains_key(&traversal.root) {
            return Err(FunctionError::arg(
                vars_arg,
                format!(
                    "vars map does not contain key {}, referenced at {}",
                    gostr::quote(&traversal.root),
                    file.range(traversal.root_span)
                ),
            ));
        }
    }
    let scope = TemplateScope { vars: attrs, outer };
    let mut ev = Evaluator::new(file, &scope, Mode::Template);
    let value = ev.eval(template);
    let diags = ev.take_diags();
    if has_errors(&diags) {
        return Err(FunctionError::call(diagnostics_error_string(&diags)));
    }
    Ok(value)
}

/// The variables of a template being rendered, nothing else.
struct TemplateScope<'s> {
    vars: &'s terrace_value::Attrs,
    outer: &'s dyn Scope,
}

impl Scope for TemplateScope<'_> {
    fn lookup(&self, traversal: &Traversal, _file: &SourceFile) -> Lookup {
        match self.vars.get(&traversal.root) {
            Some(v) => Lookup::Found {
                value: v.clone(),
                consumed: 0,
            },
            None => Lookup::NotFound,
        }
    }

    fn root_names(&self) -> Vec<String> {
        self.vars.keys().cloned().collect()
    }

    fn file_functions_allowed(&self) -> bool {
        self.outer.file_functions_allowed()
    }

    fn pure_only(&self) -> bool {
        self.outer.pure_only()
    }

    fn base_dir(&self) -> &Path {
        self.outer.base_dir()
    }

    fn now(&self) -> Option<&str> {
        self.outer.now()
    }

    /// Templates see only the built-in function table, as in Terraform.
    fn provider_function(
        &self,
        provider: &str,
        _name: &str,
    ) -> Result<Arc<dyn ExternalFunction>, FunctionLookupError> {
        Err(FunctionLookupError {
            summary: Some("Call to unknown function".into()),
            detail: format!("There are no functions in namespace \"provider::{provider}::\"."),
        })
    }
}

/// HCL's `ValidIdentifier`: an identifier as the native syntax reads it
/// (letters, digits, underscores and dashes, not starting with a digit or
/// dash), with Unicode letters allowed as in UAX #31.
pub fn valid_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    if !(first.is_alphabetic() || first == '_') {
        return false;
    }
    chars.all(|c| c.is_alphanumeric() || c == '_' || c == '-' || is_id_continue_mark(c))
}

/// Combining marks and connector punctuation are allowed after the first
/// character of an identifier.
fn is_id_continue_mark(c: char) -> bool {
    let u = c as u32;
    (0x300..=0x36f).contains(&u)
        || (0x1ab0..=0x1aff).contains(&u)
        || (0x20d0..=0x20ff).contains(&u)
        || c == '\u{203f}'
        || c == '\u{2040}'
}

/// HCL's `Diagnostic.Error()`: `<subject>: <summary>; <detail>`.
pub(crate) fn diagnostic_error_string(d: &Diagnostic) -> String {
    let subject = match &d.subject {
        Some(r) => r.to_string(),
        None => "<nil>".to_string(),
    };
    format!("{subject}: {}; {}", d.summary, d.detail)
}

/// HCL's `Diagnostics.Error()`: the first diagnostic, and how many more.
pub(crate) fn diagnostics_error_string(diags: &Diagnostics) -> String {
    match diags.len() {
        0 => "no diagnostics".to_string(),
        1 => diagnostic_error_string(&diags[0]),
        n => format!(
            "{}, and {} other diagnostic(s)",
            diagnostic_error_string(&diags[0]),
            n - 1
        ),
    }
}
