//! Built-in functions: type conversion (`tobool`, `tolist`, `tomap`,
//! `tonumber`, `toset`, `tostring`) and sensitivity (`sensitive`,
//! `nonsensitive`, `issensitive`, `ephemeralasnull`), as Terraform 1.11
//! defines them: explicit conversions with their own error messages, which
//! never reveal sensitive or ephemeral values.

use super::{CallContext, Function, FunctionError, FunctionResult, Param, ReturnType};
use terrace_value::convert::{can_convert, convert};
use terrace_value::gostr;
use terrace_value::{Marks, Type, Value};

pub(crate) fn register(out: &mut Vec<Function>) {
    let to_fn = |name, type_fn, imp| {
        Function::new(
            name,
            vec![Param::new("v", Type::Dynamic)
                .allow_null()
                .allow_marked()
                .allow_dynamic_type()],
            ReturnType::Computed(type_fn),
            imp,
        )
        .nullable_result()
    };
    out.push(to_fn("tobool", tobool_type, tobool));
    out.push(to_fn("tonumber", tonumber_type, tonumber));
    out.push(to_fn("tostring", tostring_type, tostring));
    out.push(to_fn("tolist", tolist_type, tolist));
    out.push(to_fn("toset", toset_type, toset));
    out.push(to_fn("tomap", tomap_type, tomap));

    let value_param = || {
        Param::new("value", Type::Dynamic)
            .allow_unknown()
            .allow_null()
            .allow_marked()
            .allow_dynamic_type()
    };
    out.push(
        Function::new(
            "sensitive",
            vec![value_param()],
            ReturnType::Computed(same_type),
            sensitive,
        )
        .nullable_result(),
    );
    out.push(
        Function::new(
            "nonsensitive",
            vec![value_param()],
            ReturnType::Computed(same_type),
            nonsensitive,
        )
        .nullable_result(),
    );
    out.push(Function::new(
        "issensitive",
        vec![value_param()],
        ReturnType::Static(Type::Bool),
        issensitive,
    ));
    out.push(
        Function::new(
            "ephemeralasnull",
            vec![value_param()],
            ReturnType::Computed(same_type),
            ephemeralasnull,
        )
        .nullable_result(),
    );
}

/// The type check of cty's `MakeToFunc`: the conversion must exist for the
/// argument's type, though it may still fail for the particular value.
fn to_type(args: &[Value], want: Type) -> FunctionResult<Type> {
    let got = args[0].ty();
    if *got == want || can_convert(got, &want, true) {
        return Ok(want);
    }
    Err(FunctionError::arg(
        0,
        format!(
            "cannot convert {} to {}",
            got.friendly_name(),
            want.friendly_name_for_constraint()
        ),
    ))
}

fn to_impl(args: &[Value], want: &Type) -> FunctionResult<Value> {
    let arg = &args[0];
    if let Ok(v) = convert(arg, want) {
        return Ok(v);
    }
    let marks = arg.deep_marks();
    let (val, _) = arg.unmark_deep();
    let got = val.ty();
    let got_name = got.friendly_name();
    let want_name = want.friendly_name_for_constraint();
    // The value itself must not show up in messages about marked values.
    let message = if marks.is_ephemeral() {
        format!("cannot convert this ephemeral {got_name} to {want_name}")
    } else if marks.is_sensitive() {
        format!("cannot convert this sensitive {got_name} to {want_name}")
    } else if *got == Type::String && *want == Type::Bool {
        let what = val
            .as_str()
            .map_or_else(|| "string".to_string(), gostr::quote);
        format!("cannot convert {what} to bool; only the strings \"true\" or \"false\" are allowed")
    } else if *got == Type::String && *want == Type::Number {
        let what = val
            .as_str()
            .map_or_else(|| "string".to_string(), gostr::quote);
        format!("cannot convert {what} to number; given string must be a decimal representation of a number")
    } else {
        format!("cannot convert {got_name} to {want_name}")
    };
    Err(FunctionError::arg(0, message))
}

fn tobool_type(_: &CallContext<'_>, args: &[Value]) -> FunctionResult<Type> {
    to_type(args, Type::Bool)
}
fn tobool(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    to_impl(args, &Type::Bool)
}
fn tonumber_type(_: &CallContext<'_>, args: &[Value]) -> FunctionResult<Type> {
    to_type(args, Type::Number)
}
fn tonumber(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    to_impl(args, &Type::Number)
}
fn tostring_type(_: &CallContext<'_>, args: &[Value]) -> FunctionResult<Type> {
    to_type(args, Type::String)
}
fn tostring(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    to_impl(args, &Type::String)
}
fn tolist_type(_: &CallContext<'_>, args: &[Value]) -> FunctionResult<Type> {
    to_type(args, Type::list(Type::Dynamic))
}
fn tolist(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    to_impl(args, &Type::list(Type::Dynamic))
}
fn toset_type(_: &CallContext<'_>, args: &[Value]) -> FunctionResult<Type> {
    to_type(args, Type::set(Type::Dynamic))
}
fn toset(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    to_impl(args, &Type::set(Type::Dynamic))
}
fn tomap_type(_: &CallContext<'_>, args: &[Value]) -> FunctionResult<Type> {
    to_type(args, Type::map(Type::Dynamic))
}
fn tomap(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    to_impl(args, &Type::map(Type::Dynamic))
}

fn same_type(_: &CallContext<'_>, args: &[Value]) -> FunctionResult<Type> {
    Ok(args[0].ty().clone())
}

fn sensitive(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    Ok(args[0].clone().mark(Marks::SENSITIVE))
}

/// Removes the sensitive mark from the value itself; marks nested inside it
/// stay, and a value that was not sensitive is returned unchanged (no error
/// in Terraform 1.11).
fn nonsensitive(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    Ok(args[0].clone().without_marks(Marks::SENSITIVE))
}

/// True for a value marked sensitive (known or not); an unmarked unknown
/// value might still become sensitive, so its answer is unknown.
fn issensitive(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let arg = &args[0];
    if arg.marks().is_sensitive() {
        return Ok(Value::bool(true));
    }
    if !arg.is_known() {
        return Ok(Value::unknown(Type::Bool));
    }
    Ok(Value::bool(false))
}

/// Replaces every ephemeral part of the value with a null of its type,
/// keeping other marks; unknown parts stay unknown (their ephemerality is
/// not settled yet) but lose their refinements, as cty rebuilds them.
fn ephemeralasnull(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    Ok(strip_ephemeral(&args[0]))
}

fn strip_ephemeral(v: &Value) -> Value {
    let marks = v.marks().without(Marks::EPHEMERAL);
    let ty = v.ty().clone();
    if v.is_null() {
        return Value::null(ty).mark(marks);
    }
    if !v.is_known() {
        return Value::unknown(ty).mark(marks);
    }
    if v.marks().is_ephemeral() {
        return Value::null(ty).mark(marks);
    }
    if v.deep_marks().is_ephemeral() {
        if let Some(elems) = v.as_elements() {
            let elems: Vec<Value> = elems.iter().map(strip_ephemeral).collect();
            let rebuilt = match &ty {
                Type::List(e) => Value::list((**e).clone(), elems),
                Type::Set(e) => Value::set((**e).clone(), elems),
                _ => Value::tuple(elems),
            };
            return rebuilt.mark(marks);
        }
        if let Some(attrs) = v.as_attributes() {
            let attrs = attrs
                .iter()
                .map(|(k, e)| (k.clone(), strip_ephemeral(e)))
                .collect();
            let rebuilt = match &ty {
                Type::Map(e) => Value::map((**e).clone(), attrs),
                _ => Value::object(attrs),
            };
            return rebuilt.mark(marks);
        }
    }
    v.clone()
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use terrace_value::{Marks, Type, Value};

    #[test]
    fn tobool_tonumber_tostring() {
        call("tobool", vec![s("true")], Ok(Value::bool(true)));
        call("tobool", vec![Value::bool(false)], Ok(Value::bool(false)));
        call(
            "tobool",
            vec![Value::null(Type::Dynamic)],
            Ok(Value::null(Type::Bool)),
        );
        call(
            "tobool",
            vec![s("a")],
            err_arg(
                0,
                "cannot convert \"a\" to bool; only the strings \"true\" or \"false\" are allowed",
            ),
        );
        call(
            "tobool",
            vec![Value::int(1)],
            err_arg(0, "cannot convert number to bool"),
        );
        call(
            "tobool",
            vec![sensitive(s("a"))],
            err_arg(0, "cannot convert this sensitive string to bool"),
        );
        call("tonumber", vec![s("1.5")], Ok(num("1.5")));
        call(
            "tonumber",
            vec![s("a")],
            err_arg(0, "cannot convert \"a\" to number; given string must be a decimal representation of a number"),
        );
        call(
            "tonumber",
            vec![Value::bool(true)],
            err_arg(0, "cannot convert bool to number"),
        );
        call(
            "tonumber",
            vec![sensitive(s("a"))],
            err_arg(0, "cannot convert this sensitive string to number"),
        );
        call(
            "tonumber",
            vec![str_tuple(&["a"])],
            err_arg(0, "cannot convert tuple to number"),
        );
        call("tostring", vec![num("1.5")], Ok(s("1.5")));
        call("tostring", vec![Value::bool(true)], Ok(s("true")));
        call(
            "tostring",
            vec![Value::null(Type::Dynamic)],
            Ok(Value::null(Type::String)),
        );
        call(
            "tostring",
            vec![sensitive(Value::int(1))],
            Ok(sensitive(s("1"))),
        );
        call(
            "tostring",
            vec![obj(vec![("a", Value::int(1))])],
            err_arg(0, "cannot convert object to string"),
        );
        call(
            "tostring",
            vec![sensitive(Value::tuple(vec![Value::int(1)]))],
            err_arg(0, "cannot convert tuple to string"),
        );
        call(
            "tostring",
            vec![unknown(Type::Number)],
            Ok(unknown(Type::String)),
        );
        // Not known yet, still sensitive: an output of it must say so
        // before the value is known.
        for (name, want) in [
            ("tostring", Type::String),
            ("tonumber", Type::Number),
            ("tobool", Type::Bool),
        ] {
            call(
                name,
                vec![sensitive(unknown(Type::String))],
                Ok(sensitive(unknown(want))),
            );
        }
    }

    #[test]
    fn tolist_toset_tomap() {
        call(
            "tolist",
            vec![Value::tuple(vec![Value::int(1), s("a")])],
            Ok(str_list(&["1", "a"])),
        );
        call(
            "tolist",
            vec![Value::tuple(vec![
                Value::int(1),
                Value::tuple(vec![Value::int(1)]),
            ])],
            err_arg(0, "cannot convert tuple to list of any single type"),
        );
        call(
            "tolist",
            vec![obj(vec![("a", Value::int(1))])],
            err_arg(0, "cannot convert object to list of any single type"),
        );
        call(
            "tolist",
            vec![s("a")],
            err_arg(0, "cannot convert string to list of any single type"),
        );
        call(
            "tolist",
            vec![set_of(Type::String, strs(&["b", "a"]))],
            Ok(str_list(&["a", "b"])),
        );
        call(
            "toset",
            vec![Value::tuple(vec![Value::int(1), s("a"), Value::int(1)])],
            Ok(set_of(Type::String, strs(&["1", "a"]))),
        );
        call(
            "toset",
            vec![s("a")],
            err_arg(0, "cannot convert string to set of any single type"),
        );
        call(
            "tomap",
            vec![obj(vec![("a", Value::int(1)), ("b", s("x"))])],
            Ok(map_of(Type::String, vec![("a", s("1")), ("b", s("x"))])),
        );
        call(
            "tomap",
            vec![obj(vec![
                ("a", Value::int(1)),
                ("b", Value::tuple(vec![Value::int(1)])),
            ])],
            err_arg(0, "cannot convert object to map of any single type"),
        );
        call(
            "tomap",
            vec![Value::tuple(vec![Value::int(1)])],
            err_arg(0, "cannot convert tuple to map of any single type"),
        );
        call(
            "tomap",
            vec![Value::null(Type::Dynamic)],
            Ok(Value::null(Type::map(Type::Dynamic))),
        );
    }

    #[test]
    fn sensitivity() {
        call(
            "sensitive",
            vec![Value::int(1)],
            Ok(sensitive(Value::int(1))),
        );
        call(
            "sensitive",
            vec![Value::null(Type::String)],
            Ok(sensitive(Value::null(Type::String))),
        );
        call(
            "sensitive",
            vec![unknown(Type::String)],
            Ok(sensitive(unknown(Type::String))),
        );
        call("sensitive", vec![sensitive(s("a"))], Ok(sensitive(s("a"))));
        call(
            "nonsensitive",
            vec![sensitive(Value::int(1))],
            Ok(Value::int(1)),
        );
        call("nonsensitive", vec![Value::int(1)], Ok(Value::int(1)));
        call(
            "nonsensitive",
            vec![Value::null(Type::Dynamic)],
            Ok(Value::null(Type::Dynamic)),
        );
        call(
            "nonsensitive",
            vec![sensitive(Value::tuple(vec![sensitive(Value::int(1))]))],
            Ok(Value::tuple(vec![sensitive(Value::int(1))])),
        );
        call(
            "issensitive",
            vec![sensitive(Value::int(1))],
            Ok(Value::bool(true)),
        );
        call("issensitive", vec![Value::int(1)], Ok(Value::bool(false)));
        call(
            "issensitive",
            vec![Value::tuple(vec![sensitive(Value::int(1))])],
            Ok(Value::bool(false)),
        );
        call(
            "issensitive",
            vec![sensitive(Value::null(Type::Dynamic))],
            Ok(Value::bool(true)),
        );
        call(
            "issensitive",
            vec![Value::dynamic()],
            Ok(unknown_nn(Type::Bool)),
        );
        call(
            "issensitive",
            vec![sensitive(Value::dynamic())],
            Ok(Value::bool(true)),
        );
    }

    #[test]
    fn ephemeralasnull() {
        let eph = |v: Value| v.mark(Marks::EPHEMERAL);
        call("ephemeralasnull", vec![Value::int(1)], Ok(Value::int(1)));
        call(
            "ephemeralasnull",
            vec![sensitive(Value::int(1))],
            Ok(sensitive(Value::int(1))),
        );
        call(
            "ephemeralasnull",
            vec![Value::null(Type::Dynamic)],
            Ok(Value::null(Type::Dynamic)),
        );
        call(
            "ephemeralasnull",
            vec![eph(s("x"))],
            Ok(Value::null(Type::String)),
        );
        call(
            "ephemeralasnull",
            vec![sensitive(eph(s("x")))],
            Ok(sensitive(Value::null(Type::String))),
        );
        call(
            "ephemeralasnull",
            vec![obj(vec![("a", eph(s("x"))), ("b", s("y"))])],
            Ok(obj(vec![("a", Value::null(Type::String)), ("b", s("y"))])),
        );
        call(
            "ephemeralasnull",
            vec![eph(unknown(Type::String))],
            Ok(unknown(Type::String)),
        );
    }
}
