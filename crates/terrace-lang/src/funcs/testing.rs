//! Test helpers for the function library: calling a built-in through the
//! real call machinery and comparing results by a canonical rendering that
//! shows types, marks, nulls, unknowns and refinements.

use super::call::{call_function, CallError};
use super::{builtins, CallContext, FunctionError};
use std::collections::BTreeMap;
use terrace_value::{Marks, Number, Type, Value};

/// Calls the built-in `name` and checks the outcome against `want`.
#[track_caller]
pub(crate) fn call(name: &str, args: Vec<Value>, want: Result<Value, CallError>) {
    let got = try_call(name, args.clone());
    match (&got, &want) {
        (Ok(g), Ok(w)) => assert_eq!(describe(g), describe(w), "{name}({})", describe_args(&args)),
        _ => assert_eq!(
            got.as_ref().map(describe),
            want.as_ref().map(describe),
            "{name}({})",
            describe_args(&args)
        ),
    }
}

pub(crate) fn try_call(name: &str, args: Vec<Value>) -> Result<Value, CallError> {
    let function = builtins()
        .get(name)
        .unwrap_or_else(|| panic!("no built-in function {name:?}"));
    call_function(function, args, &CallContext::default())
}

fn describe_args(args: &[Value]) -> String {
    args.iter().map(describe).collect::<Vec<_>>().join(", ")
}

pub(crate) fn err_arg(index: usize, message: &str) -> Result<Value, CallError> {
    Err(CallError::Function(FunctionError::arg(index, message)))
}

pub(crate) fn err_call(message: &str) -> Result<Value, CallError> {
    Err(CallError::Function(FunctionError::call(message)))
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

/// A canonical rendering: equal renderings mean values Terraform cannot
/// tell apart (number precision aside).
pub(crate) fn describe(v: &Value) -> String {
    let mut out = String::new();
    describe_into(v, &mut out);
    out
}

fn describe_into(v: &Value, out: &mut String) {
    let ty = v.ty();
    if v.is_null() {
        out.push_str(&format!("null({ty})"));
    } else if !v.is_known() {
        out.push_str(&format!("unknown({ty})"));
        if let Some(r) = v.refinement() {
            let mut parts = Vec::new();
            if r.not_null {
                parts.push("not_null".to_string());
            }
            if let Some(p) = &r.string_prefix {
                parts.push(format!("prefix={p:?}"));
            }
            if let Some((n, inc)) = &r.number_lower {
                parts.push(format!("{}{}", if *inc { ">=" } else { ">" }, n));
            }
            if let Some((n, inc)) = &r.number_upper {
                parts.push(format!("{}{}", if *inc { "<=" } else { "<" }, n));
            }
            if let Some(l) = r.length_lower {
                parts.push(format!("len>={l}"));
            }
            if let Some(u) = r.length_upper {
                parts.push(format!("len<={u}"));
            }
            out.push_str(&format!("{{{}}}", parts.join(",")));
        }
    } else if let Some(b) = v.as_bool() {
        out.push_str(if b { "true" } else { "false" });
    } else if let Some(n) = v.as_number() {
        out.push_str(&n.to_string());
    } else if let Some(s) = v.as_str() {
        out.push_str(&format!("{s:?}"));
    } else if let Some(elems) = v.as_elements() {
        match ty {
            Type::List(_) | Type::Set(_) => out.push_str(&format!("{ty}")),
            _ => {}
        }
        out.push('[');
        for (i, e) in elems.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            describe_into(e, out);
        }
        out.push(']');
    } else if let Some(attrs) = v.as_attributes() {
        if ty.is_map() {
            out.push_str(&format!("{ty}"));
        }
        out.push('{');
        for (i, (k, e)) in attrs.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(&format!("{k:?}="));
            describe_into(e, out);
        }
        out.push('}');
        if let Type::Object(o) = ty {
            if o.attributes.is_empty() {
                out.push_str("object");
            }
        }
    }
    let marks = v.marks();
    if marks.is_sensitive() {
        out.push_str("#sensitive");
    }
    if marks.is_ephemeral() {
        out.push_str("#ephemeral");
    }
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
    fn describe_shows_types_marks_and_refinements() {
        assert_eq!(describe(&str_list(&["a"])), "list(string)[\"a\"]");
        assert_eq!(
            describe(&Value::tuple(vec![Value::null(Type::Number)])),
            "[null(number)]"
        );
        assert_eq!(
            describe(&sensitive(unknown_nn(Type::String))),
            "unknown(string){not_null}#sensitive"
        );
        assert_eq!(
            describe(&map_of(Type::Number, vec![("a", Value::int(1))])),
            "map(number){\"a\"=1}"
        );
        assert_eq!(describe(&Value::empty_object()), "{}object");
    }
}
