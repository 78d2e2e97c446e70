//! Values and types written the way go-cty's `GoString` writes them
//! (`cty.StringVal("a")`, `cty.ListVal([]cty.Value{...})`, `cty.NullVal(cty.String)`).
//! OpenTofu puts these renderings into the "Provider produced invalid
//! plan" and "inconsistent result after apply" messages on purpose, for
//! provider developers, so they must read exactly like the Go ones.

use terrace_value::gostr::quote;
use terrace_value::{Marks, Number, Type, Value};

/// go-cty's `Value.GoString` (`%#v` of a `cty.Value`).
pub fn value_go_string(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value);
    out
}

/// go-cty's `Type.GoString` (`%#v` of a `cty.Type`).
pub fn type_go_string(ty: &Type) -> String {
    let mut out = String::new();
    write_type(&mut out, ty);
    out
}

fn write_value(out: &mut String, value: &Value) {
    let marks = value.marks();
    if !marks.is_empty() {
        let (unmarked, _) = value.clone().unmark();
        write_value(out, &unmarked);
        let names = mark_names(marks);
        if names.len() == 1 {
            out.push_str(".Mark(");
            out.push_str(names[0]);
            out.push(')');
        } else {
            out.push_str(".WithMarks(cty.NewValueMarks(");
            out.push_str(&names.join(", "));
            out.push_str("))");
        }
        return;
    }
    let ty = value.ty();
    if value.is_null() {
        out.push_str("cty.NullVal(");
        write_type(out, ty);
        out.push(')');
        return;
    }
    if !value.is_known() {
        if ty.is_dynamic() {
            out.push_str("cty.DynamicVal");
            return;
        }
        out.push_str("cty.UnknownVal(");
        write_type(out, ty);
        out.push(')');
        if let Some(refinement) = value.refinement() {
            let calls = refinement_calls(refinement);
            if calls == ".NotNull()" {
                out.push_str(".RefineNotNull()");
            } else {
                out.push_str(".Refine()");
                out.push_str(&calls);
                out.push_str(".NewValue()");
            }
        }
        return;
    }
    match ty {
        Type::Bool => out.push_str(if value.as_bool() == Some(true) {
            "cty.True"
        } else {
            "cty.False"
        }),
        Type::Number => match value.as_number() {
            Some(n) => write_number(out, n),
            None => out.push_str("cty.NilVal"),
        },
        Type::String => {
            out.push_str("cty.StringVal(");
            out.push_str(&quote(value.as_str().unwrap_or_default()));
            out.push(')');
        }
        Type::Set(ety) | Type::List(ety) => {
            let (empty, full) = if ty.is_set() {
                ("cty.SetValEmpty(", "cty.SetVal(")
            } else {
                ("cty.ListValEmpty(", "cty.ListVal(")
            };
            let elements = value.as_elements().unwrap_or_default();
            if elements.is_empty() {
                out.push_str(empty);
                write_type(out, ety);
            } else {
                out.push_str(full);
                write_value_slice(out, elements);
            }
            out.push(')');
        }
        Type::Map(ety) => {
            let entries = value.as_attributes();
            match entries.filter(|e| !e.is_empty()) {
                None => {
                    out.push_str("cty.MapValEmpty(");
                    write_type(out, ety);
                }
                Some(entries) => {
                    out.push_str("cty.MapVal(");
                    write_value_map(out, entries.iter());
                }
            }
            out.push(')');
        }
        Type::Tuple(elements) if elements.is_empty() => out.push_str("cty.EmptyTupleVal"),
        Type::Tuple(_) => {
            out.push_str("cty.TupleVal(");
            write_value_slice(out, value.as_elements().unwrap_or_default());
            out.push(')');
        }
        Type::Object(object) if object.attributes.is_empty() => out.push_str("cty.EmptyObjectVal"),
        Type::Object(_) => {
            out.push_str("cty.ObjectVal(");
            if let Some(attributes) = value.as_attributes() {
                write_value_map(out, attributes.iter());
            }
            out.push(')');
        }
        Type::Dynamic => out.push_str("cty.DynamicVal"),
    }
}

/// The names OpenTofu's mark constants print as (`marks.Sensitive`).
fn mark_names(marks: Marks) -> Vec<&'static str> {
    let mut names = Vec::new();
    if marks.contains(Marks::SENSITIVE) {
        names.push("marks.Sensitive");
    }
    if marks.contains(Marks::EPHEMERAL) {
        names.push("marks.Ephemeral");
    }
    if marks.contains(Marks::TYPE_VALUE) {
        names.push("marks.TypeType");
    }
    names
}

fn refinement_calls(refinement: &terrace_value::Refinement) -> String {
    let mut calls = String::new();
    if refinement.not_null {
        calls.push_str(".NotNull()");
    }
    if let Some(prefix) = refinement
        .string_prefix
        .as_deref()
        .filter(|p| !p.is_empty())
    {
        calls.push_str(&format!(".StringPrefixFull({})", quote(prefix)));
    }
    if let Some((min, inclusive)) = &refinement.number_lower {
        if !min.is_infinite() {
            calls.push_str(".NumberLowerBound(");
            write_number(&mut calls, min);
            calls.push_str(&format!(", {inclusive})"));
        }
    }
    if let Some((max, inclusive)) = &refinement.number_upper {
        if !max.is_infinite() {
            calls.push_str(".NumberUpperBound(");
            write_number(&mut calls, max);
            calls.push_str(&format!(", {inclusive})"));
        }
    }
    if let Some(min) = refinement.length_lower.filter(|m| *m != 0) {
        calls.push_str(&format!(".CollectionLengthLowerBound({min})"));
    }
    if let Some(max) = refinement.length_upper.filter(|m| *m < i64::MAX as u64) {
        calls.push_str(&format!(".CollectionLengthUpperBound({max})"));
    }
    calls
}

/// Integers as `NumberIntVal`, numbers a float64 holds exactly as
/// `NumberFloatVal`, anything else as `MustParseNumberVal`, as cty chooses.
fn write_number(out: &mut String, n: &Number) {
    if n.is_integer() {
        out.push_str(&format!("cty.NumberIntVal({})", n.text('g', -1)));
    } else if let Some(f) = n.to_f64_exact().filter(|f| f.is_finite()) {
        // Go prints a float64 with `%#v` as the shortest 'g' form at 53
        // bits of precision, which is what big.Float's 'g' gives at 53 bits.
        let text = Number::from_f64(f)
            .map(|n| n.with_precision(53).text('g', -1))
            .unwrap_or_else(|| n.text('g', -1));
        out.push_str(&format!("cty.NumberFloatVal({text})"));
    } else {
        out.push_str(&format!(
            "cty.MustParseNumberVal({})",
            quote(&n.text('f', -1))
        ));
    }
}

fn write_value_slice(out: &mut String, values: &[Value]) {
    out.push_str("[]cty.Value{");
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_value(out, v);
    }
    out.push('}');
}

fn write_value_map<'a>(out: &mut String, entries: impl Iterator<Item = (&'a String, &'a Value)>) {
    out.push_str("map[string]cty.Value{");
    for (i, (k, v)) in entries.enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&quote(k));
        out.push(':');
        write_value(out, v);
    }
    out.push('}');
}

fn write_type(out: &mut String, ty: &Type) {
    match ty {
        Type::Bool => out.push_str("cty.Bool"),
        Type::Number => out.push_str("cty.Number"),
        Type::String => out.push_str("cty.String"),
        Type::Dynamic => out.push_str("cty.DynamicPseudoType"),
        Type::List(e) => {
            out.push_str("cty.List(");
            write_type(out, e);
            out.push(')');
        }
        Type::Set(e) => {
            out.push_str("cty.Set(");
            write_type(out, e);
            out.push(')');
        }
        Type::Map(e) => {
            out.push_str("cty.Map(");
            write_type(out, e);
            out.push(')');
        }
        Type::Tuple(elements) if elements.is_empty() => out.push_str("cty.EmptyTuple"),
        Type::Tuple(elements) => {
            out.push_str("cty.Tuple([]cty.Type{");
            for (i, e) in elements.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_type(out, e);
            }
            out.push_str("})");
        }
        Type::Object(object) if object.attributes.is_empty() => out.push_str("cty.EmptyObject"),
        Type::Object(object) => {
            let optional = !object.optional.is_empty();
            out.push_str(if optional {
                "cty.ObjectWithOptionalAttrs(map[string]cty.Type{"
            } else {
                "cty.Object(map[string]cty.Type{"
            });
            for (i, (name, t)) in object.attributes.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&quote(name));
                out.push(':');
                write_type(out, t);
            }
            out.push('}');
            if optional {
                out.push_str(", []string{");
                let names: Vec<String> = object.optional.iter().map(|n| quote(n)).collect();
                out.push_str(&names.join(", "));
                out.push('}');
            }
            out.push(')');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn num(text: &str) -> Value {
        Value::number(Number::parse(text).unwrap_or_else(Number::zero))
    }

    #[test]
    fn values_read_like_go_cty() {
        let obj = Value::object(BTreeMap::from([
            ("b".to_string(), Value::bool(true)),
            ("a".to_string(), Value::string("x\"y")),
        ]));
        let cases: Vec<(Value, &str)> = vec![
            (Value::string("foo"), r#"cty.StringVal("foo")"#),
            (Value::int(5), "cty.NumberIntVal(5)"),
            (num("1.5"), "cty.NumberFloatVal(1.5)"),
            (num("0.1"), r#"cty.MustParseNumberVal("0.1")"#),
            (Value::bool(false), "cty.False"),
            (Value::null(Type::String), "cty.NullVal(cty.String)"),
            (Value::dynamic(), "cty.DynamicVal"),
            (
                Value::unknown(Type::list(Type::String)),
                "cty.UnknownVal(cty.List(cty.String))",
            ),
            (
                Value::unknown(Type::String).refine_not_null(),
                "cty.UnknownVal(cty.String).RefineNotNull()",
            ),
            (
                Value::unknown(Type::String)
                    .refine()
                    .not_null()
                    .string_prefix_full("ab")
                    .new_value(),
                r#"cty.UnknownVal(cty.String).Refine().NotNull().StringPrefixFull("ab").NewValue()"#,
            ),
            (
                obj.clone(),
                r#"cty.ObjectVal(map[string]cty.Value{"a":cty.StringVal("x\"y"), "b":cty.True})"#,
            ),
            (
                Value::list(Type::String, vec![Value::string("a"), Value::string("b")]),
                r#"cty.ListVal([]cty.Value{cty.StringVal("a"), cty.StringVal("b")})"#,
            ),
            (
                Value::list(Type::Number, vec![]),
                "cty.ListValEmpty(cty.Number)",
            ),
            (Value::set(Type::Bool, vec![]), "cty.SetValEmpty(cty.Bool)"),
            (
                Value::map(Type::String, BTreeMap::new()),
                "cty.MapValEmpty(cty.String)",
            ),
            (
                Value::map(
                    Type::String,
                    BTreeMap::from([("k".into(), Value::string("v"))]),
                ),
                r#"cty.MapVal(map[string]cty.Value{"k":cty.StringVal("v")})"#,
            ),
            (Value::empty_tuple(), "cty.EmptyTupleVal"),
            (Value::empty_object(), "cty.EmptyObjectVal"),
            (
                Value::tuple(vec![Value::int(1), Value::string("a")]),
                r#"cty.TupleVal([]cty.Value{cty.NumberIntVal(1), cty.StringVal("a")})"#,
            ),
            (
                Value::string("s").mark(Marks::SENSITIVE),
                r#"cty.StringVal("s").Mark(marks.Sensitive)"#,
            ),
            (
                Value::null(obj.ty().clone()),
                r#"cty.NullVal(cty.Object(map[string]cty.Type{"a":cty.String, "b":cty.Bool}))"#,
            ),
        ];
        for (value, want) in cases {
            assert_eq!(value_go_string(&value), want);
        }
    }

    #[test]
    fn types_read_like_go_cty() {
        let optional = Type::object_with_optional(
            BTreeMap::from([("a".to_string(), Type::String)]),
            ["a".to_string()].into_iter().collect(),
        );
        let cases = vec![
            (Type::Dynamic, "cty.DynamicPseudoType"),
            (Type::empty_object(), "cty.EmptyObject"),
            (Type::empty_tuple(), "cty.EmptyTuple"),
            (
                Type::tuple(vec![Type::Number, Type::set(Type::Bool)]),
                "cty.Tuple([]cty.Type{cty.Number, cty.Set(cty.Bool)})",
            ),
            (
                Type::map(Type::List(std::sync::Arc::new(Type::String))),
                "cty.Map(cty.List(cty.String))",
            ),
            (
                optional,
                r#"cty.ObjectWithOptionalAttrs(map[string]cty.Type{"a":cty.String}, []string{"a"})"#,
            ),
        ];
        for (ty, want) in cases {
            assert_eq!(type_go_string(&ty), want);
        }
    }
}
