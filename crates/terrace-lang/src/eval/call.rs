//! Function calls: name resolution (built-ins, `core::`, `provider::`),
//! argument expansion with `...`, HCL's argument count and conversion
//! checks, and the mapping of function errors to HCL's diagnostics.

use super::Evaluator;
use crate::funcs::call::{call_function, CallError};
use crate::funcs::special::{self, Special};
use crate::funcs::{builtins, Function, FunctionError, Param, ReturnType};
use crate::scope::ExternalFunction;
use std::sync::Arc;
use terrace_syntax::ast::Expr;
use terrace_syntax::diagnostic::has_errors;
use terrace_syntax::{levenshtein, FunctionCall, Span};
use terrace_value::convert::convert;
use terrace_value::gostr;
use terrace_value::typejson::type_to_json;
use terrace_value::{Type, Value};

/// What a call name resolved to.
enum Callee {
    Builtin(&'static Function),
    Special(Special),
    External(Arc<dyn ExternalFunction>),
}

/// The summaries of the errors about a call itself (not about evaluating
/// its arguments), which carry the call's description.
const CALL_SUMMARIES: &[&str] = &[
    "Invalid expanding argument value",
    "Not enough function arguments",
    "Too many function arguments",
    "Invalid function argument",
    "Error in function call",
];

impl Callee {
    /// The call as a diagnostic describes it: `called_as` as written, the
    /// function's own name, its parameters and its return type for
    /// arguments of exactly the parameters' types.
    fn describe(&self, called_as: &str) -> FunctionCall {
        let (params, variadic) = self.params();
        let return_type = match self {
            Callee::Builtin(f) => f.signature_return_type().unwrap_or(Type::Dynamic),
            Callee::Special(s) => s
                .signature()
                .signature_return_type()
                .unwrap_or(Type::Dynamic),
            Callee::External(f) => {
                // As for a built-in: an argument of unknown type for a
                // parameter that cannot take one leaves the type unknown.
                let mut all = params.iter().chain(variadic);
                if all.any(|p| p.ty.is_dynamic() && !p.allow_dynamic_type) {
                    Type::Dynamic
                } else {
                    f.return_type()
                }
            }
        };
        let describe = |p: &Param| (p.name.to_string(), type_to_json(&p.ty));
        FunctionCall {
            called_as: called_as.to_string(),
            name: called_as
                .rsplit("::")
                .next()
                .unwrap_or(called_as)
                .to_string(),
            params: params.iter().map(describe).collect(),
            variadic: variadic.map(describe),
            return_type: type_to_json(&return_type),
        }
    }

    fn params(&self) -> (&[Param], Option<&Param>) {
        match self {
            Callee::Builtin(f) => (&f.params, f.variadic.as_ref()),
            Callee::Special(s) => {
                let f = s.signature();
                (&f.params, f.variadic.as_ref())
            }
            Callee::External(f) => (f.params(), f.variadic()),
        }
    }
}

/// One argument of a call after `...` expansion: an expression still to
/// evaluate, or an element of the expanded final argument (reported at that
/// argument's range).
#[derive(Clone)]
pub(crate) enum CallArg<'a> {
    Expr(&'a Expr),
    Value(Value, Span),
}

/// Functions whose results differ between runs; in "pure only" mode they
/// return unknown values.
const IMPURE_FUNCTIONS: &[&str] = &["bcrypt", "timestamp", "uuid"];

/// Functions that read files below the module directory.
const FILE_FUNCTIONS: &[&str] = &[
    "file",
    "filebase64",
    "filebase64sha256",
    "filebase64sha512",
    "fileexists",
    "filemd5",
    "fileset",
    "filesha1",
    "filesha256",
    "filesha512",
    "templatefile",
];

impl<'a> Evaluator<'a> {
    pub(crate) fn eval_call(
        &mut self,
        expr: &'a Expr,
        name: &'a str,
        name_span: Span,
        args: &'a [Expr],
        expand_final: bool,
    ) -> Value {
        let call_span = expr.span;
        if !self.scope.functions_allowed() {
            self.push_error(
                "Function calls not allowed",
                "Functions may not be called here.",
                call_span,
                None,
            );
            return Value::dynamic();
        }
        let Some(callee) = self.resolve_function(name, name_span, call_span) else {
            return Value::dynamic();
        };
        let first_new = self.diags.len();
        let value = self.eval_resolved_call(expr, name, &callee, args, expand_final);
        // HCL gives every error about the call itself the function called
        // and its signature; errors from evaluating an argument are the
        // argument's own (a call inside it has already named itself).
        let mut described: Option<Box<FunctionCall>> = None;
        for d in &mut self.diags[first_new..] {
            if d.function_call.is_none() && CALL_SUMMARIES.contains(&d.summary.as_str()) {
                let call = described.get_or_insert_with(|| Box::new(callee.describe(name)));
                d.function_call = Some(call.clone());
            }
        }
        value
    }

    fn eval_resolved_call(
        &mut self,
        expr: &'a Expr,
        name: &'a str,
        callee: &Callee,
        args: &'a [Expr],
        expand_final: bool,
    ) -> Value {
        let call_span = expr.span;
        let base_name = name.strip_prefix("core::").unwrap_or(name);
        if !self.scope.file_functions_allowed() && FILE_FUNCTIONS.contains(&base_name) {
            self.push_error(
                "Error in function call",
                format!(
                    "Call to function {} failed: file functions are not available in this context.",
                    gostr::quote(name)
                ),
                self.start_span(expr),
                Some(call_span),
            );
            return Value::dynamic();
        }
        let Some(call_args) = self.expand_args(args, expand_final, call_span) else {
            return Value::dynamic();
        };
        let (params, variadic) = callee.params();
        if !self.check_arg_count(name, params, variadic, &call_args, call_span) {
            return Value::dynamic();
        }
        if let Callee::Special(s) = callee {
            return special::call(self, *s, expr, name, &call_args);
        }
        let Some(values) = self.eval_args(params, variadic, &call_args, call_span) else {
            return Value::dynamic();
        };
        if self.scope.pure_only() && IMPURE_FUNCTIONS.contains(&base_name) {
            if let Callee::Builtin(f) = &callee {
                let ty = match &f.return_type {
                    ReturnType::Static(t) => t.clone(),
                    ReturnType::Computed(_) => Type::Dynamic,
                };
                return Value::unknown(ty.clone()).refine_not_null();
            }
        }
        let result = match callee {
            Callee::Builtin(f) => call_function(f, values, self.call_context()),
            Callee::External(f) => f.call(values),
            Callee::Special(_) => return Value::dynamic(),
        };
        match result {
            Ok(v) => v,
            Err(e) => {
                self.report_call_error(expr, name, params, variadic, &call_args, e);
                Value::dynamic()
            }
        }
    }

    fn resolve_function(
        &mut self,
        name: &'a str,
        name_span: Span,
        call_span: Span,
    ) -> Option<Callee> {
        let unknown_provider = |ev: &mut Evaluator<'a>, summary: &str, detail: String| {
            ev.push_error(summary, detail, name_span, Some(call_span));
            None
        };
        if name.contains("::") {
            let parts: Vec<&str> = name.split("::").collect();
            if parts[0] == "core" && parts.len() == 2 && self.scope.builtin_available(parts[1]) {
                if let Some(callee) = lookup_builtin(parts[1]) {
                    return Some(callee);
                }
            }
            if parts[0] == "provider" {
                if parts.len() < 3 {
                    return unknown_provider(
                        self,
                        "Unknown provider function",
                        "The function call must include the provider name after the \"provider::\" prefix.".into(),
                    );
                }
                let provider = parts[1];
                let function = parts[parts.len() - 1];
                return match self.scope.provider_function(provider, function) {
                    Ok(f) => Some(Callee::External(f)),
                    Err(e) => {
                        let summary = e
                            .summary
                            .unwrap_or_else(|| "Unknown provider function".into());
                        unknown_provider(self, &summary, e.detail)
                    }
                };
            }
            return unknown_provider(
                self,
                "Unknown provider function",
                format!(
                    "The function namespace {} is not valid. Provider function calls must use the \"provider::\" namespace prefix.",
                    gostr::quote(parts[0])
                ),
            );
        }
        if let Some(f) = self.scope.function(name) {
            return Some(Callee::External(f));
        }
        if let Some(callee) = lookup_builtin(name).filter(|_| self.scope.builtin_available(name)) {
            return Some(callee);
        }
        let scope = self.scope;
        let available = builtins()
            .keys()
            .copied()
            .filter(|n| scope.builtin_available(n));
        let suggestion = match suggest_name(name, available) {
            Some(s) => format!(" Did you mean {}?", gostr::quote(s)),
            None => String::new(),
        };
        self.push_error(
            "Call to unknown function",
            format!(
                "There is no function named {}.{suggestion}",
                gostr::quote(name)
            ),
            name_span,
            Some(call_span),
        );
        None
    }

    /// Expands a final `...` argument into one argument per element.
    /// `None` when the call cannot proceed (diagnostics already recorded).
    pub(crate) fn expand_args(
        &mut self,
        args: &'a [Expr],
        expand_final: bool,
        call_span: Span,
    ) -> Option<Vec<CallArg<'a>>> {
        let mut out: Vec<CallArg<'a>> = args.iter().map(CallArg::Expr).collect();
        if !expand_final {
            return Some(out);
        }
        let last = args.last()?;
        let before = self.diags.len();
        let value = self.eval(last);
        if has_errors(&self.diags[before..]) {
            return None;
        }
        let ty = value.ty();
        if ty.is_dynamic() || ty.is_tuple() || ty.is_list() || ty.is_set() {
            if value.is_null() {
                self.push_error_about(
                    "Invalid expanding argument value",
                    "The expanding argument (indicated by ...) must not be null.",
                    last.span,
                    Some(call_span),
                    last.span,
                );
                return None;
            }
            if ty.is_dynamic() || !value.is_known() {
                return None;
            }
            let (value, marks) = value.unmark();
            out.pop();
            for element in value.as_elements().unwrap_or_default() {
                out.push(CallArg::Value(element.clone().mark(marks), last.span));
            }
            return Some(out);
        }
        self.push_error_about(
            "Invalid expanding argument value",
            "The expanding argument (indicated by ...) must be of a tuple, list, or set type.",
            last.span,
            Some(call_span),
            last.span,
        );
        None
    }

    /// HCL's "Not enough function arguments" / "Too many function
    /// arguments" checks.
    pub(crate) fn check_arg_count(
        &mut self,
        name: &str,
        params: &[Param],
        variadic: Option<&Param>,
        args: &[CallArg<'a>],
        call_span: Span,
    ) -> bool {
        if args.len() < params.len() {
            let qual = if variadic.is_some() { " at least" } else { "" };
            self.push_error(
                "Not enough function arguments",
                format!(
                    "Function {} expects{qual} {} argument(s). Missing value for {}.",
                    gostr::quote(name),
                    params.len(),
                    gostr::quote(params[args.len()].name)
                ),
                Evaluator::close_paren_span(call_span),
                Some(call_span),
            );
            return false;
        }
        if variadic.is_none() && args.len() > params.len() {
            let subject = self.arg_start_span(&args[params.len()]);
            self.push_error(
                "Too many function arguments",
                format!(
                    "Function {} expects only {} argument(s).",
                    gostr::quote(name),
                    params.len()
                ),
                subject,
                Some(call_span),
            );
            return false;
        }
        true
    }

    pub(crate) fn arg_start_span(&self, arg: &CallArg<'a>) -> Span {
        match arg {
            CallArg::Expr(e) => self.start_span(e),
            CallArg::Value(_, span) => *span,
        }
    }

    /// Evaluates one argument without converting it.
    pub(crate) fn eval_arg(&mut self, arg: &CallArg<'a>) -> Value {
        match arg {
            CallArg::Expr(e) => self.eval(e),
            CallArg::Value(v, _) => v.clone(),
        }
    }

    /// Evaluates every argument and converts it to its parameter's type,
    /// reporting "Invalid function argument" for those that do not
    /// convert. `None` when any argument had errors.
    pub(crate) fn eval_args(
        &mut self,
        params: &[Param],
        variadic: Option<&Param>,
        args: &[CallArg<'a>],
        call_span: Span,
    ) -> Option<Vec<Value>> {
        let start = self.diags.len();
        let mut values = Vec::with_capacity(args.len());
        for (i, arg) in args.iter().enumerate() {
            let value = self.eval_arg(arg);
            let Some(param) = params.get(i).or(variadic) else {
                values.push(value);
                continue;
            };
            let value = match convert(&value, &param.ty) {
                Ok(v) => v,
                Err(e) => {
                    let subject = self.arg_start_span(arg);
                    self.push_error_about(
                        "Invalid function argument",
                        format!(
                            "Invalid value for {} parameter: {}.",
                            gostr::quote(param.name),
                            e.message
                        ),
                        subject,
                        Some(call_span),
                        arg_span(arg),
                    );
                    value
                }
            };
            values.push(value);
        }
        if has_errors(&self.diags[start..]) {
            None
        } else {
            Some(values)
        }
    }

    /// Turns an error from calling a function into HCL's diagnostic.
    pub(crate) fn report_call_error(
        &mut self,
        expr: &Expr,
        name: &str,
        params: &[Param],
        variadic: Option<&Param>,
        args: &[CallArg<'a>],
        error: CallError,
    ) {
        let call_span = expr.span;
        let error = match error {
            CallError::Function(e) => e,
            CallError::NotEnoughArguments { missing } => {
                let qual = if variadic.is_some() { " at least" } else { "" };
                self.push_error(
                    "Not enough function arguments",
                    format!(
                        "Function {} expects{qual} {} argument(s). Missing value for {}.",
                        gostr::quote(name),
                        params.len(),
                        gostr::quote(missing)
                    ),
                    Evaluator::close_paren_span(call_span),
                    Some(call_span),
                );
                return;
            }
            CallError::TooManyArguments { expected } => {
                self.push_error(
                    "Too many function arguments",
                    format!(
                        "Function {} expects only {expected} argument(s).",
                        gostr::quote(name)
                    ),
                    call_span,
                    Some(call_span),
                );
                return;
            }
        };
        let FunctionError { argument, message } = error;
        let call_failed = |ev: &mut Evaluator<'a>| {
            ev.push_error(
                "Error in function call",
                format!("Call to function {} failed: {message}.", gostr::quote(name)),
                ev.start_span(expr),
                Some(call_span),
            );
        };
        let Some(i) = argument else {
            call_failed(self);
            return;
        };
        let param = params.get(i).or(variadic);
        match (param, args.get(i)) {
            (Some(param), Some(arg)) => {
                let subject = self.arg_start_span(arg);
                self.push_error_about(
                    "Invalid function argument",
                    format!(
                        "Invalid value for {} parameter: {message}.",
                        gostr::quote(param.name)
                    ),
                    subject,
                    Some(call_span),
                    arg_span(arg),
                );
            }
            (Some(param), None) => {
                self.push_error(
                    "Invalid function argument",
                    format!(
                        "Invalid value for {} parameter: {message}.",
                        gostr::quote(param.name)
                    ),
                    call_span,
                    None,
                );
            }
            (None, _) => call_failed(self),
        }
    }
}

/// The whole of an argument's expression (for an expanded argument, the
/// expression that was expanded).
fn arg_span(arg: &CallArg<'_>) -> Span {
    match arg {
        CallArg::Expr(e) => e.span,
        CallArg::Value(_, span) => *span,
    }
}

fn lookup_builtin(name: &str) -> Option<Callee> {
    if let Some(s) = Special::from_name(name) {
        return Some(Callee::Special(s));
    }
    builtins().get(name).map(Callee::Builtin)
}

/// HCL's "Did you mean" choice: a candidate within edit distance 2 of
/// `given`. HCL takes the first such name in map order (random); this
/// takes the closest, then the alphabetically first, so messages are
/// stable.
pub fn suggest_name<'n>(given: &str, candidates: impl Iterator<Item = &'n str>) -> Option<&'n str> {
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        let d = levenshtein(given, c);
        if d >= 3 {
            continue;
        }
        best = match best {
            Some((bd, bc)) if bd < d || (bd == d && bc <= c) => Some((bd, bc)),
            _ => Some((d, c)),
        };
    }
    best.map(|(_, c)| c)
}
