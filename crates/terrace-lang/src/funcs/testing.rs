//! Test helpers for the function library and the evaluator: calling a
//! built-in through the real call machinery and comparing results by a
//! canonical rendering that shows types, marks, nulls, unknowns and
//! refinements.

use super::call::{call_function, CallError};
use super::{builtins, CallContext, FunctionError};
use std::collections::BTreeMap;
use terrace_value::{Marks, Number, Type, Value};

/// Calls the built-in `name` and checks the outcome against `want`.
#[track_caller]
pub(crate) fn call(name: &str, args: Vec<Value>, want: Result<Value, CallError>) {
    call_in(&CallContext::default(), name, args, want)
}

/// [`call`] with a context (a base directory, a time).
#[track_caller]
pub(crate) fn call_in(
    ctx: &CallContext<'_>,
    name: &str,
    args: Vec<Value>,
    want: Result<Value, CallError>,
) {
    let got = try_call_in(ctx, name, args.clone());
    match (&got, &want) {
        (Ok(g), Ok(w)) => assert_eq!(render(g), render(w), "{name}({})", render_args(&args)),
        _ => assert_eq!(
            got.as_ref().map(render),
            want.as_ref().map(render),
            "{name}({})",
            render_args(&args)
        ),
    }
}

pub(crate) fn try_call(name: &str, args: Vec<Value>) -> Result<Value, CallError> {
    try_call_in(&CallContext::default(), name, args)
}

pub(crate) fn try_call_in(
    ctx: &CallContext<'_>,
    name: &str,
    args: Vec<Value>,
) -> Result<Value, CallError> {
    let function = builtins()
        .get(name)
        .unwrap_or_else(|| panic!("no built-in function {name:?}"));
    call_function(function, args, ctx)
}

fn render_args(args: &[Value]) -> String {
    args.iter().map(render).collect::<Vec<_>>().join(", ")
}

pub(crate) fn err_arg(index: usize, message: &str) -> Result<Value, CallError> {
    Err(CallError::Function(FunctionError::arg(index, message)))
}

pub(crate) fn err_call(message: &str) -> Result<Value, CallError> {
    Err(CallError::Function(FunctionError::call(message)))
}

/// A function error about argument `argument`, or about the whole call
/// when that is `None`.
pub(crate) fn err_at(argument: Option<usize>, message: &str) -> Result<Value, CallError> {
    Err(CallError::Function(FunctionError {
        argument,
        message: message.to_string(),
    }))
}

pub(crate) fn num(text: &str) -> Value {
    Value::number(Number::parse(text).unwrap_or_else(|| panic!("bad number {text:?}")))
}

pub(crate) fn s(text: &str) -> Value {
    Value::string(text)
}

pub(crate) fn strs(items: &[&str]) -> Vec<Value> {
    items.iter().copied().map(Value::string).collect()
}

pub(crate) fn list_of(ty: Type, items: Vec<Value>) -> Value {
    Value::list(ty, items)
}

pub(crate) fn str_list(items: &[&str]) -> Value {
    Value::list(Type::String, strs(items))
}

pub(crate) fn str_tuple(items: &[&str]) -> Value {
    Value::tuple(strs(items))
}

pub(crate) fn set_of(ty: Type, items: Vec<Value>) -> Value {
    Value::set(ty, items)
}

pub(crate) fn obj(attrs: Vec<(&str, Value)>) -> Value {
    Value::object(attrs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

pub(crate) fn map_of(ty: Type, attrs: Vec<(&str, Value)>) -> Value {
    Value::map(
        ty,
        attrs
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect::<BTreeMap<_, _>>(),
    )
}

pub(crate) fn sensitive(v: Value) -> Value {
    v.mark(Marks::SENSITIVE)
}

pub(crate) fn unknown(ty: Type) -> Value {
    Value::unknown(ty)
}

/// An unknown value refined as not null, as most functions return.
pub(crate) fn unknown_nn(ty: Type) -> Value {
    Value::unknown(ty).refine_not_null()
}

/// One-line rendering that shows everything a test may care about:
/// collection kinds with their types, typed nulls, unknowns with their
/// refinements, and marks. Equal renderings mean values Terraform cannot
/// tell apart (number precision aside).
pub(crate) fn render(v: &Value) -> String {
    let inner = render_unmarked(v);
    let m = v.marks();
    match (m.is_sensitive(), m.is_ephemeral()) {
        (true, true) => format!("sensitive(ephemeral({inner}))"),
        (true, false) => format!("sensitive({inner})"),
        (false, true) => format!("ephemeral({inner})"),
        (false, false) => inner,
    }
}

fn render_unmarked(v: &Value) -> String {
    let ty = v.ty();
    if v.is_null() {
        return if ty.is_dynamic() {
            "null".into()
        } else {
            format!("null({ty})")
        };
    }
    if !v.is_known() {
        let mut parts = vec![if ty.is_dynamic() {
            "dynamic".to_string()
        } else {
            ty.to_string()
        }];
        if let Some(r) = v.refinement() {
            if r.not_null {
                parts.push("notnull".into());
            }
            if let Some(p) = &r.string_prefix {
                parts.push(format!("prefix={p:?}"));
            }
            if let Some((n, inc)) = &r.number_lower {
                parts.push(format!("{}{n}", if *inc { ">=" } else { ">" }));
            }
            if let Some((n, inc)) = &r.number_upper {
                parts.push(format!("{}{n}", if *inc { "<=" } else { "<" }));
            }
            if let Some(n) = r.length_lower {
                parts.push(format!("len>={n}"));
            }
            if let Some(n) = r.length_upper {
                parts.push(format!("len<={n}"));
            }
        }
        return format!("unknown({})", parts.join(", "));
    }
    if let Some(b) = v.as_bool() {
        return b.to_string();
    }
    if let Some(n) = v.as_number() {
        return n.to_string();
    }
    if let Some(s) = v.as_str() {
        return terrace_value::gostr::quote(s);
    }
    if let Some(elems) = v.as_elements() {
        let items: Vec<String> = elems.iter().map(render).collect();
        return match ty {
            Type::Tuple(_) => format!("[{}]", items.join(", ")),
            _ => format!("{ty}[{}]", items.join(", ")),
        };
    }
    if let Some(attrs) = v.as_attributes() {
        let items: Vec<String> = attrs
            .iter()
            .map(|(k, v)| format!("{k}={}", render(v)))
            .collect();
        return match ty {
            Type::Object(_) => format!("{{{}}}", items.join(", ")),
            _ => format!("{ty}{{{}}}", items.join(", ")),
        };
    }
    format!("?{ty}")
}

mod tests {
    use super::*;

    #[test]
    #[should_panic(expected = "format")]
    fn call_detects_a_wrong_result() {
        call("format", vec![s("%d"), Value::int(1)], Ok(s("2")));
    }

    #[test]
    #[should_panic(expected = "format")]
    fn call_detects_a_wrong_error() {
        call("format", vec![s("%d"), s("x")], err_call("something else"));
    }

    #[test]
    fn render_shows_types_marks_and_refinements() {
        assert_eq!(render(&str_list(&["a"])), "list(string)[\"a\"]");
        assert_eq!(
            render(&Value::tuple(vec![Value::null(Type::Number)])),
            "[null(number)]"
        );
        assert_eq!(
            render(&sensitive(unknown_nn(Type::String))),
            "sensitive(unknown(string, notnull))"
        );
        assert_eq!(
            render(&map_of(Type::Number, vec![("a", Value::int(1))])),
            "map(number){a=1}"
        );
        assert_eq!(render(&Value::empty_object()), "{}");
        assert_eq!(render(&Value::empty_tuple()), "[]");
    }
}
