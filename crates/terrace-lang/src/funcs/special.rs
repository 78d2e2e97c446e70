//! Built-in functions that need the evaluator rather than argument values:
//! `try` and `can` see their arguments as unevaluated expressions (HCL's
//! `tryfunc`), `templatefile` and `templatestring` parse and evaluate a
//! template with their own variables, and `templatestring` also checks the
//! form of its first argument expression.
//!
//! They are listed in [`super::builtins`] with their real signatures (for
//! listings and argument-count checks), but the evaluator calls them
//! through [`call`]; their table implementations only report that.

pub mod hclwrite;
mod terraform_provider;

pub use terraform_provider::{terraform_provider_function, TERRAFORM_PROVIDER_FUNCTIONS};

use super::{CallContext, Function, FunctionError, FunctionResult, Param, ReturnType};
use crate::eval::{render_template, CallArg, Evaluator, Mode};
use terrace_syntax::ast::{Expr, ExprKind, SourceFile, TemplatePart};
use terrace_syntax::diagnostic::has_errors;
use terrace_syntax::PRODUCT;
use terrace_value::{Type, Value};

/// The functions the evaluator handles itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Special {
    Try,
    Can,
    TemplateFile,
    TemplateString,
}

/// The name under which templatestring's template is reported.
pub(crate) const TEMPLATESTRING_FILENAME: &str = "<templatestring argument>";

impl Special {
    pub(crate) fn from_name(name: &str) -> Option<Special> {
        Some(match name {
            "try" => Special::Try,
            "can" => Special::Can,
            "templatefile" => Special::TemplateFile,
            "templatestring" => Special::TemplateString,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Special::Try => "try",
            Special::Can => "can",
            Special::TemplateFile => "templatefile",
            Special::TemplateString => "templatestring",
        }
    }

    /// The function's table entry.
    pub(crate) fn signature(self) -> &'static Function {
        static SIGNATURES: std::sync::OnceLock<[Function; 4]> = std::sync::OnceLock::new();
        let all = SIGNATURES.get_or_init(|| {
            [
                signature(Special::Try),
                signature(Special::Can),
                signature(Special::TemplateFile),
                signature(Special::TemplateString),
            ]
        });
        match self {
            Special::Try => &all[0],
            Special::Can => &all[1],
            Special::TemplateFile => &all[2],
            Special::TemplateString => &all[3],
        }
    }
}

fn signature(s: Special) -> Function {
    match s {
        Special::Try => Function::new(
            "try",
            Vec::new(),
            ReturnType::Static(Type::Dynamic),
            needs_evaluator,
        )
        // The arguments are expressions the function evaluates itself, never
        // null in themselves: whatever they evaluate to is the function's
        // business, as the signature description says (not nullable).
        .variadic(
            Param::new("expressions", Type::Dynamic)
                .allow_unknown()
                .allow_dynamic_type(),
        )
        .nullable_result(),
        Special::Can => Function::new(
            "can",
            vec![Param::new("expression", Type::Dynamic)
                .allow_unknown()
                .allow_dynamic_type()],
            ReturnType::Static(Type::Bool),
            needs_evaluator,
        )
        .nullable_result(),
        Special::TemplateFile => Function::new(
            "templatefile",
            vec![
                Param::new("path", Type::String).allow_marked(),
                Param::new("vars", Type::Dynamic),
            ],
            ReturnType::Static(Type::Dynamic),
            needs_evaluator,
        ),
        Special::TemplateString => Function::new(
            "templatestring",
            vec![
                Param::new("template", Type::String).allow_marked(),
                // Variables of a type not known yet make an unknown string,
                // not a result of unknown type.
                Param::new("vars", Type::Dynamic)
                    .allow_marked()
                    .allow_dynamic_type(),
            ],
            ReturnType::Static(Type::String),
            needs_evaluator,
        ),
    }
}

fn needs_evaluator(_: &CallContext<'_>, _: &[Value], _: &Type) -> FunctionResult<Value> {
    Err(FunctionError::call(
        "this function can only be called from an expression",
    ))
}

pub(crate) fn register(out: &mut Vec<Function>) {
    for s in [
        Special::Try,
        Special::Can,
        Special::TemplateFile,
        Special::TemplateString,
    ] {
        out.push(signature(s));
    }
}

/// Calls a special function; argument counts are already checked.
pub(crate) fn call<'a>(
    ev: &mut Evaluator<'a>,
    s: Special,
    expr: &'a Expr,
    name: &str,
    args: &[CallArg<'a>],
) -> Value {
    let f = s.signature();
    let result = match s {
        Special::Try => call_try(ev, args),
        Special::Can => Ok(call_can(ev, &args[0])),
        Special::TemplateFile | Special::TemplateString if ev.mode == Mode::Template => {
            match ev.eval_args(&f.params, None, args, expr.span) {
                None => return Value::dynamic(),
                Some(_) => Err(FunctionError::call(format!(
                    "cannot recursively call {} from inside another template function",
                    s.name()
                ))),
            }
        }
        Special::TemplateFile => match ev.eval_args(&f.params, None, args, expr.span) {
            None => return Value::dynamic(),
            Some(values) => call_templatefile(ev, values),
        },
        Special::TemplateString => call_templatestring(ev, args, expr.span),
    };
    match result {
        Ok(v) => v,
        Err(e) => {
            ev.report_call_error(expr, name, &f.params, f.variadic.as_ref(), args, e.into());
            Value::dynamic()
        }
    }
}

/// Evaluates an argument as an expression closure would: its value and
/// whether evaluating it produced errors.
fn eval_closure<'a>(
    ev: &mut Evaluator<'a>,
    arg: &CallArg<'a>,
) -> (Value, terrace_syntax::Diagnostics) {
    match arg {
        CallArg::Expr(e) => {
            // Its errors are dropped or summed up in one line: no values.
            ev.quiet += 1;
            let evaluated = ev.eval_isolated(e);
            ev.quiet -= 1;
            evaluated
        }
        CallArg::Value(v, _) => (v.clone(), Vec::new()),
    }
}

/// HCL's `tryfunc.TryFunc`.
fn call_try<'a>(ev: &mut Evaluator<'a>, args: &[CallArg<'a>]) -> FunctionResult<Value> {
    if args.is_empty() {
        return Err(FunctionError::call("at least one argument is required"));
    }
    let mut failures = Vec::new();
    for arg in args {
        let (value, diags) = eval_closure(ev, arg);
        if has_errors(&diags) {
            failures.extend(diags);
            continue;
        }
        if !value.is_wholly_known() {
            // A partly-unknown value might still fail once known, so which
            // argument wins cannot be decided yet.
            return Ok(Value::dynamic());
        }
        return Ok(value);
    }
    let mut msg = String::from("no expression succeeded:\n");
    for d in &failures {
        match &d.subject {
            Some(r) => msg.push_str(&format!("- {} (at {})\n  {}\n", d.summary, r, d.detail)),
            None => msg.push_str(&format!("- {}\n  {}\n", d.summary, d.detail)),
        }
    }
    msg.push_str("\nAt least one expression must produce a successful result");
    Err(FunctionError::call(msg))
}

/// HCL's `tryfunc.CanFunc`.
fn call_can<'a>(ev: &mut Evaluator<'a>, arg: &CallArg<'a>) -> Value {
    let (value, diags) = eval_closure(ev, arg);
    if has_errors(&diags) {
        return Value::bool(false);
    }
    if !value.is_wholly_known() {
        return Value::unknown(Type::Bool);
    }
    Value::bool(true)
}

fn call_templatefile(ev: &mut Evaluator<'_>, values: Vec<Value>) -> FunctionResult<Value> {
    let (path, vars) = (&values[0], &values[1]);
    if path.is_null() {
        return Err(FunctionError::arg(0, "argument must not be null"));
    }
    if vars.is_null() {
        return Err(FunctionError::arg(1, "argument must not be null"));
    }
    let (vars, vars_marks) = vars.unmark_deep();
    if !path.is_known() || !vars.is_known() {
        return Ok(Value::dynamic().mark(vars_marks));
    }
    let (path, path_marks) = path.clone().unmark();
    let path = path.as_str().unwrap_or_default();
    let text = super::filesystem::read_text_file(ev.call_context(), path, path_marks)?;
    let file = SourceFile::new(path, text);
    let (template, parse_diags) = terrace_syntax::parse_template(&file);
    if has_errors(&parse_diags) {
        return Err(FunctionError::call(crate::eval::diagnostics_error_string(
            &parse_diags,
        )));
    }
    let result = render_template(&template, &file, &vars, 1, ev.scope)?;
    Ok(result.mark(path_marks).mark(vars_marks))
}

fn call_templatestring<'a>(
    ev: &mut Evaluator<'a>,
    args: &[CallArg<'a>],
    call_span: terrace_syntax::Span,
) -> FunctionResult<Value> {
    let template_expr = match &args[0] {
        CallArg::Expr(e) => *e,
        CallArg::Value(..) => return Err(FunctionError::arg(0, not_a_reference())),
    };
    check_template_argument(template_expr)?;
    let (template, diags) = ev.eval_isolated(template_expr);
    if has_errors(&diags) {
        return Err(FunctionError::arg(
            0,
            format!(
                "invalid template expression: {}",
                crate::eval::diagnostics_error_string(&diags)
            ),
        ));
    }
    let f = Special::TemplateString.signature();
    let Some(mut rest) = ev.eval_args(&f.params[1..], None, &args[1..], call_span) else {
        return Ok(Value::dynamic());
    };
    let vars = rest.remove(0);
    if template.ty() != &Type::String && !template.ty().is_dynamic() || template.is_null() {
        return Err(FunctionError::arg(
            0,
            "invalid template value: a string is required",
        ));
    }
    if vars.is_null() {
        return Err(FunctionError::arg(1, "argument must not be null"));
    }
    let (template, template_marks) = template.unmark();
    let (vars, vars_marks) = vars.unmark();
    let marks = template_marks.union(vars_marks);
    if !template.is_known() || !vars.is_known() {
        return Ok(Value::unknown(Type::String).mark(marks));
    }
    let text = template.as_str().unwrap_or_default();
    let file = SourceFile::new(TEMPLATESTRING_FILENAME, text);
    let (parsed, parse_diags) = terrace_syntax::parse_template(&file);
    if has_errors(&parse_diags) {
        return Err(FunctionError::arg(
            0,
            format!(
                "invalid template: {}",
                crate::eval::diagnostics_error_string(&parse_diags)
            ),
        ));
    }
    let result = render_template(&parsed, &file, &vars, 1, ev.scope)?;
    let (result, result_marks) = result.unmark();
    let result = terrace_value::convert::convert(&result, &Type::String)
        .map_err(|e| FunctionError::call(format!("invalid template result: {e}")))?;
    Ok(result.mark(result_marks).mark(marks))
}

fn not_a_reference() -> String {
    format!("invalid template expression: must be a direct reference to a single string from elsewhere, containing valid {PRODUCT} template syntax")
}

/// templatestring renders templates obtained from elsewhere, so its first
/// argument must be a reference (possibly indexed or splatted), never a
/// template written in place.
fn check_template_argument(expr: &Expr) -> FunctionResult<()> {
    const PREFIX: &str = "invalid template expression: templatestring is only for rendering templates retrieved dynamically from elsewhere";
    match &expr.kind {
        ExprKind::Template(t) => {
            if t.parts.iter().all(|p| matches!(p, TemplatePart::Literal { .. })) {
                Err(FunctionError::arg(0, format!("{PREFIX}, and so does not support providing a literal template; consider using a template string expression instead")))
            } else {
                Err(FunctionError::arg(0, format!("{PREFIX}; to render an inline template, consider using a plain template string expression")))
            }
        }
        ExprKind::TemplateWrap(_) => Err(FunctionError::arg(
            0,
            format!("{PREFIX}; to treat the inner expression as template syntax, write the reference expression directly without any template interpolation syntax"),
        )),
        _ if is_reference(expr) => Ok(()),
        _ => Err(FunctionError::arg(0, not_a_reference())),
    }
}

/// A scope traversal, or an index, traversal or splat applied to one.
fn is_reference(expr: &Expr) -> bool {
    let mut e = expr;
    loop {
        match &e.kind {
            ExprKind::ScopeTraversal(_) => return true,
            ExprKind::RelativeTraversal { source, .. } => e = source,
            ExprKind::Index { collection, .. } => e = collection,
            ExprKind::Splat { source, .. } => e = source,
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::eval::evaluate;
    use crate::scope::MapScope;
    use terrace_syntax::ast::SourceFile;
    use terrace_syntax::diagnostic::has_errors;
    use terrace_value::{Marks, Value};

    use terrace_testsupport::TempDir;

    /// A scratch directory with a `sub` directory and `files` (name, bytes).
    fn scratch(name: &str, files: &[(&str, &[u8])]) -> TempDir {
        let dir = TempDir::new(&format!("special-{name}"));
        std::fs::create_dir_all(dir.join("sub")).expect("create temp dir");
        for (path, content) in files {
            dir.write(path, content);
        }
        dir
    }

    fn scope(dir: &TempDir) -> MapScope {
        MapScope::new()
            .with_base_dir(dir.path())
            .with("tpl", Value::string("hello ${name}"))
            .with("tpl_wrap", Value::string("${v}"))
            .with("tpl_num", Value::string("${5}"))
            .with("tpl_rec", Value::string("${templatestring(x, {})}"))
            .with(
                "tpl_file",
                Value::string("${templatefile(\"t1.tpl\", {name = 1})}"),
            )
            .with("tpl_bad", Value::string("${"))
            .with("tpls", Value::tuple(vec![Value::string("a ${name}")]))
            .with("five", Value::int(5))
            .with("nul", Value::null(terrace_value::Type::String))
            .with("sec", Value::string("s").mark(Marks::SENSITIVE))
            .with("secpath", Value::string("t1.tpl").mark(Marks::SENSITIVE))
    }

    fn files() -> Vec<(&'static str, &'static [u8])> {
        vec![
            ("t1.tpl", b"hello ${name}"),
            ("t2.tpl", b"${templatefile(\"t1.tpl\", {name=\"x\"})}"),
            ("t3.tpl", b"%{ for x in xs }${x},%{ endfor }"),
            ("t4.tpl", b"${upper(name)} ${nope}"),
            ("t5.tpl", b"${v}"),
            ("t6.tpl", b"${name}\n${"),
            ("bin.tpl", b"\xff\xfe"),
            ("sub/t7.tpl", b"${a}-${b}"),
        ]
    }

    fn run(scope: &MapScope, src: &str) -> (Value, Vec<(String, String)>) {
        let file = SourceFile::new("<console-input>", src);
        let (expr, diags) = terrace_syntax::parse_expression(&file);
        assert!(!has_errors(&diags), "{src}: {diags:?}");
        let (v, diags) = evaluate(&expr, &file, scope);
        (
            v,
            diags.into_iter().map(|d| (d.summary, d.detail)).collect(),
        )
    }

    #[test]
    fn templatefile_renders() {
        let dir = scratch("ok", &files());
        let scope = scope(&dir);
        let rows: &[(&str, Value)] = &[
            (
                "templatefile(\"t1.tpl\", {name=\"bob\"})",
                Value::string("hello bob"),
            ),
            (
                "templatefile(\"t3.tpl\", {xs=[1,2]})",
                Value::string("1,2,"),
            ),
            (
                "templatefile(\"sub/t7.tpl\", {a=1, b=true})",
                Value::string("1-true"),
            ),
            (
                "templatefile(\"./sub/../t1.tpl\", tomap({name=\"m\"}))",
                Value::string("hello m"),
            ),
            (
                "templatefile(\"t5.tpl\", {v=[1]})",
                Value::tuple(vec![Value::int(1)]),
            ),
        ];
        for (src, want) in rows {
            let (v, diags) = run(&scope, src);
            assert!(diags.is_empty(), "{src}: {diags:?}");
            assert!(v.raw_equals(want), "{src}: got {v:?}");
        }
        let (v, _) = run(&scope, "templatefile(\"t1.tpl\", {name=sec})");
        assert!(v.is_sensitive());
        let (v, _) = run(&scope, "templatefile(secpath, {name=1})");
        assert!(v.is_sensitive());
        let (v, _) = run(&scope, "templatefile(\"t1.tpl\", {name=\"${five}\"})");
        assert!(v.raw_equals(&Value::string("hello 5")));
    }

    #[test]
    fn templatefile_errors() {
        let dir = scratch("err", &files());
        let scope = scope(&dir);
        let rows: &[(&str, &str, &str)] = &[
            (
                "templatefile(\"t2.tpl\", {})",
                "Error in function call",
                "Call to function \"templatefile\" failed: t2.tpl:1,3-16: Error in function call; Call to function \"templatefile\" failed: cannot recursively call templatefile from inside another template function..",
            ),
            (
                "templatefile(\"t4.tpl\", {name=\"a\"})",
                "Invalid function argument",
                "Invalid value for \"vars\" parameter: vars map does not contain key \"nope\", referenced at t4.tpl:1,18-22.",
            ),
            (
                "templatefile(\"missing.tpl\", {})",
                "Invalid function argument",
                "Invalid value for \"path\" parameter: no file exists at \"missing.tpl\"; this function works only with files that are distributed as part of the configuration source code, so if this file will be created by a resource in this configuration you must instead obtain this result from an attribute of that resource.",
            ),
            (
                "templatefile(sec, {})",
                "Invalid function argument",
                "Invalid value for \"path\" parameter: no file exists at (sensitive value); this function works only with files that are distributed as part of the configuration source code, so if this file will be created by a resource in this configuration you must instead obtain this result from an attribute of that resource.",
            ),
            ("templatefile(\"t1.tpl\", 1)", "Invalid function argument", "Invalid value for \"vars\" parameter: invalid vars value: must be a map."),
            (
                "templatefile(\"t1.tpl\", {\"a b\"=1, name=1})",
                "Invalid function argument",
                "Invalid value for \"vars\" parameter: invalid template variable name \"a b\": must start with a letter, followed by zero or more letters, digits, and underscores.",
            ),
            (
                "templatefile(\"t1.tpl\", {name=[]})",
                "Error in function call",
                "Call to function \"templatefile\" failed: t1.tpl:1,9-13: Invalid template interpolation value; Cannot include the given value in a string template: string required..",
            ),
            ("templatefile(null, {})", "Invalid function argument", "Invalid value for \"path\" parameter: argument must not be null."),
            ("templatefile(\"t1.tpl\", null)", "Invalid function argument", "Invalid value for \"vars\" parameter: argument must not be null."),
            (
                "templatefile(\"bin.tpl\", {})",
                "Error in function call",
                "Call to function \"templatefile\" failed: contents of \"bin.tpl\" are not valid UTF-8; use the filebase64 function to obtain the Base64 encoded contents or the other file functions (e.g. filemd5, filesha256) to obtain file hashing results instead.",
            ),
            (
                "templatefile(\"t6.tpl\", {name=1})",
                "Error in function call",
                "Call to function \"templatefile\" failed: t6.tpl:2,3-3: Missing expression; Expected the start of an expression, but found the end of the file..",
            ),
            ("templatefile(\"t1.tpl\")", "Not enough function arguments", "Function \"templatefile\" expects 2 argument(s). Missing value for \"vars\"."),
        ];
        for (src, summary, detail) in rows {
            let (_, diags) = run(&scope, src);
            assert_eq!(
                diags.first(),
                Some(&(summary.to_string(), detail.to_string())),
                "{src}"
            );
        }
        let dir_err = run(&scope, "templatefile(\"sub\", {})").1;
        assert_eq!(dir_err[0].0, "Invalid function argument");
        assert!(dir_err[0].1.contains("is a directory"), "{dir_err:?}");
        assert_eq!(
            run(&scope, "can(templatefile(\"missing\", {}))")
                .0
                .as_bool(),
            Some(false)
        );
    }

    #[test]
    fn templatestring_rules() {
        let dir = scratch("ts", &files());
        let scope = scope(&dir);
        let ok: &[(&str, Value)] = &[
            (
                "templatestring(tpl, {name=\"x\"})",
                Value::string("hello x"),
            ),
            (
                "templatestring(tpls[0], {name=\"y\"})",
                Value::string("a y"),
            ),
            ("templatestring(tpl_num, {})", Value::string("5")),
            (
                "templatestring(tpl, {name=\"${\"x\"}\"})",
                Value::string("hello x"),
            ),
        ];
        for (src, want) in ok {
            let (v, diags) = run(&scope, src);
            assert!(diags.is_empty(), "{src}: {diags:?}");
            assert!(v.raw_equals(want), "{src}: {v:?}");
        }
        assert!(run(&scope, "templatestring(tpl, {name=sec})")
            .0
            .is_sensitive());
        const PREFIX: &str = "Invalid value for \"template\" parameter: invalid template expression: templatestring is only for rendering templates retrieved dynamically from elsewhere";
        let literal = format!("{PREFIX}, and so does not support providing a literal template; consider using a template string expression instead.");
        let inline = format!("{PREFIX}; to render an inline template, consider using a plain template string expression.");
        let wrapped = format!("{PREFIX}; to treat the inner expression as template syntax, write the reference expression directly without any template interpolation syntax.");
        let not_ref = "Invalid value for \"template\" parameter: invalid template expression: must be a direct reference to a single string from elsewhere, containing valid terrace template syntax.".to_string();
        let not_string = "Invalid value for \"template\" parameter: invalid template value: a string is required.".to_string();
        let rows: Vec<(&str, &str, String)> = vec![
            ("templatestring(\"hello\", {})", "Invalid function argument", literal),
            ("templatestring(\"a${tpl}\", {})", "Invalid function argument", inline),
            ("templatestring(\"${tpl}\", {})", "Invalid function argument", wrapped),
            ("templatestring(upper(tpl), {})", "Invalid function argument", not_ref.clone()),
            ("templatestring((tpl), {})", "Invalid function argument", not_ref.clone()),
            ("templatestring([tpl][0], {})", "Invalid function argument", not_ref),
            ("templatestring(five, {})", "Invalid function argument", not_string.clone()),
            ("templatestring(nul, {})", "Invalid function argument", not_string.clone()),
            ("templatestring(tpls[*], {})", "Invalid function argument", not_string),
            (
                "templatestring(tpl, {})",
                "Invalid function argument",
                "Invalid value for \"vars\" parameter: vars map does not contain key \"name\", referenced at <templatestring argument>:1,9-13.".into(),
            ),
            ("templatestring(tpl, 1)", "Invalid function argument", "Invalid value for \"vars\" parameter: invalid vars value: must be a map.".into()),
            ("templatestring(tpl, null)", "Invalid function argument", "Invalid value for \"vars\" parameter: argument must not be null.".into()),
            (
                "templatestring(tpl_bad, {})",
                "Invalid function argument",
                "Invalid value for \"template\" parameter: invalid template: <templatestring argument>:1,3-3: Missing expression; Expected the start of an expression, but found the end of the file..".into(),
            ),
            (
                "templatestring(tpl_wrap, {v=[1]})",
                "Error in function call",
                "Call to function \"templatestring\" failed: invalid template result: string required.".into(),
            ),
            (
                "templatestring(tpl, {name=null})",
                "Error in function call",
                "Call to function \"templatestring\" failed: <templatestring argument>:1,9-13: Invalid template interpolation value; The expression result is null. Cannot include a null value in a string template..".into(),
            ),
            (
                "templatestring(tpl_rec, {x=\"a\"})",
                "Error in function call",
                "Call to function \"templatestring\" failed: <templatestring argument>:1,3-18: Error in function call; Call to function \"templatestring\" failed: cannot recursively call templatestring from inside another template function..".into(),
            ),
            (
                "templatestring(tpl_file, {})",
                "Error in function call",
                "Call to function \"templatestring\" failed: <templatestring argument>:1,3-16: Error in function call; Call to function \"templatefile\" failed: cannot recursively call templatefile from inside another template function..".into(),
            ),
            ("templatestring(tpl, {}, 1)", "Too many function arguments", "Function \"templatestring\" expects only 2 argument(s).".into()),
        ];
        for (src, summary, detail) in rows {
            let (_, diags) = run(&scope, src);
            assert_eq!(diags.first(), Some(&(summary.to_string(), detail)), "{src}");
        }
    }

    #[test]
    fn try_and_can_results() {
        let dir = scratch("try", &[]);
        let scope = scope(&dir);
        assert!(run(&scope, "try(five.x, 2)").0.raw_equals(&Value::int(2)));
        assert_eq!(run(&scope, "can(five.x)").0.as_bool(), Some(false));
        assert_eq!(run(&scope, "can(five)").0.as_bool(), Some(true));
        // diagnostics of failed attempts are not reported when one succeeds
        assert!(run(&scope, "try(five.x, nope, 1)").1.is_empty());
    }
}
