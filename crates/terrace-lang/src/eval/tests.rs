//! Evaluation tests: expression text in, compact value rendering or
//! diagnostics out. Expected values were checked against
//! `terraform console` (1.11) where the console can show them.

use super::*;
use crate::funcs::call::CallError;
use crate::funcs::testing::render;
use crate::funcs::Param;
use crate::scope::ExternalFunction;
use crate::scope::MapScope;
use std::collections::BTreeMap;
use std::sync::Arc;
use terrace_syntax::diagnostic::has_errors;
use terrace_value::{Marks, Refinement};

fn s(x: &str) -> Value {
    Value::string(x)
}

fn n(x: i64) -> Value {
    Value::int(x)
}

fn obj(items: &[(&str, Value)]) -> Value {
    Value::object(
        items
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect::<BTreeMap<_, _>>(),
    )
}

/// A scope-supplied function, as the console adds `type`.
struct Doubler(Vec<Param>);

impl ExternalFunction for Doubler {
    fn params(&self) -> &[Param] {
        &self.0
    }
    fn variadic(&self) -> Option<&Param> {
        None
    }
    fn call(&self, args: Vec<Value>) -> Result<Value, CallError> {
        args[0]
            .multiply(&Value::int(2))
            .map_err(|e| CallError::Function(crate::funcs::FunctionError::call(e.to_string())))
    }
}

fn test_scope() -> MapScope {
    let objs_ty = Type::object([
        ("name".to_string(), Type::String),
        ("port".to_string(), Type::Number),
    ]);
    let objs = Value::list(
        objs_ty.clone(),
        vec![
            obj(&[("name", s("a")), ("port", n(1))]),
            obj(&[("name", s("b")), ("port", n(2))]),
        ],
    );
    let mut mp = BTreeMap::new();
    mp.insert("one".to_string(), n(1));
    mp.insert("two".to_string(), n(2));
    MapScope::new()
        .with("str", s("hello"))
        .with("num", n(5))
        .with("t", Value::bool(true))
        .with(
            "lst",
            Value::list(Type::String, vec![s("a"), s("b"), s("c")]),
        )
        .with("elist", Value::list(Type::String, vec![]))
        .with("tup", Value::tuple(vec![n(1), s("two"), Value::bool(true)]))
        .with(
            "obj",
            obj(&[
                ("a", n(1)),
                ("b", s("x")),
                ("nested", obj(&[("k", s("v"))])),
            ]),
        )
        .with("mp", Value::map(Type::Number, mp))
        .with("st", Value::set(Type::String, vec![s("y"), s("x")]))
        .with("objs", objs)
        .with("nul", Value::null(Type::String))
        .with("dyn", Value::dynamic())
        .with("ustr", Value::unknown(Type::String))
        .with("unum", Value::unknown(Type::Number))
        .with("ubool", Value::unknown(Type::Bool))
        .with("ulist", Value::unknown(Type::list(Type::String)))
        .with(
            "uobj",
            Value::unknown(Type::object([("a".to_string(), Type::Number)])),
        )
        .with(
            "utup",
            Value::unknown(Type::tuple(vec![Type::Number, Type::String])),
        )
        .with(
            "ulen",
            Value::unknown_refined(
                Type::list(Type::String),
                Refinement {
                    not_null: true,
                    length_lower: Some(1),
                    length_upper: Some(3),
                    ..Refinement::default()
                },
            ),
        )
        .with("sec", s("secret").mark(Marks::SENSITIVE))
        .with("secnum", n(3).mark(Marks::SENSITIVE))
        .with(
            "seclist",
            Value::list(Type::String, vec![s("a"), s("b")]).mark(Marks::SENSITIVE),
        )
        .with(
            "secnums",
            Value::list(Type::Number, vec![n(1), n(2)]).mark(Marks::SENSITIVE),
        )
        .with(
            "secinner",
            Value::tuple(vec![s("a").mark(Marks::SENSITIVE), s("b")]),
        )
        .with("eph", s("e").mark(Marks::EPHEMERAL))
        .with(
            "partial",
            obj(&[("known", n(1)), ("later", Value::unknown(Type::String))]),
        )
        .with_function(
            "console_fn",
            Arc::new(Doubler(vec![Param::new("n", Type::Number)])),
        )
}

fn eval_with(src: &str, scope: &dyn Scope) -> (Value, Diagnostics) {
    let file = SourceFile::new("test.tf", src);
    let (expr, diags) = terrace_syntax::parse_expression(&file);
    assert!(!has_errors(&diags), "parse errors in {src:?}: {diags:#?}");
    evaluate(&expr, &file, scope)
}

fn check_rows(rows: &[(&str, &str)]) {
    let scope = test_scope();
    let mut failures = Vec::new();
    for (src, want) in rows {
        let (v, diags) = eval_with(src, &scope);
        if has_errors(&diags) {
            failures.push(format!(
                "{src}\n   unexpected errors: {:?}",
                diags
                    .iter()
                    .map(|d| (&d.summary, &d.detail))
                    .collect::<Vec<_>>()
            ));
            continue;
        }
        let got = render(&v);
        if got != *want {
            failures.push(format!("{src}\n   want {want}\n    got {got}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} rows failed:\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n")
    );
}

/// Rows of (expression, summary, detail) for expressions that must fail
/// with exactly that first error.
fn check_error_rows(rows: &[(&str, &str, &str)]) {
    let scope = test_scope();
    let mut failures = Vec::new();
    for (src, summary, detail) in rows {
        let (_, diags) = eval_with(src, &scope);
        let errors: Vec<_> = diags.iter().filter(|d| d.is_error()).collect();
        match errors.first() {
            None => failures.push(format!("{src}\n   expected error {summary:?}, got none")),
            Some(d) if d.summary != *summary || d.detail != *detail => failures.push(format!(
                "{src}\n   want {summary:?}: {detail:?}\n    got {:?}: {:?}",
                d.summary, d.detail
            )),
            Some(_) => {}
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} rows failed:\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n")
    );
}

#[test]
fn literals_and_arithmetic() {
    check_rows(&[
        ("1", "1"),
        ("1.5", "1.5"),
        ("1e3", "1000"),
        ("true", "true"),
        ("null", "null"),
        ("\"hello\"", "\"hello\""),
        ("0.1 + 0.2", "0.3"),
        ("7 % 3", "1"),
        ("-7 % 3", "-1"),
        ("5 / 0", "+Inf"),
        ("-(3)", "-3"),
        ("-num", "-5"),
        ("num * 2 - 1", "9"),
        ("1 + \"2\"", "3"),
        ("\"2\" * \"3\"", "6"),
        ("1 + 2 * 3", "7"),
        ("(1 + 2) * 3", "9"),
        ("unum + 1", "unknown(number, notnull)"),
        ("dyn + 1", "unknown(number, notnull)"),
        ("secnum + 1", "sensitive(4)"),
        ("-secnum", "sensitive(-3)"),
    ]);
}

#[test]
fn logic_and_comparison() {
    check_rows(&[
        ("!true", "false"),
        ("!\"false\"", "true"),
        ("true && false", "false"),
        ("\"true\" && true", "true"),
        ("true || false", "true"),
        ("1 == 1.0", "true"),
        ("\"1\" == 1", "false"),
        ("[1] == [1]", "true"),
        ("tolist([1]) == [1]", "false"),
        ("{a=1} == {a=1}", "true"),
        ("null == null", "true"),
        ("nul == null", "true"),
        ("1 != 2", "true"),
        ("1 < 2", "true"),
        ("\"2\" > 1", "true"),
        ("2 >= 2", "true"),
        ("3 <= 2", "false"),
        ("ustr == \"a\"", "unknown(bool, notnull)"),
        // HCL 2.23 (Terraform 1.11) does not short-circuit.
        ("ubool || true", "unknown(bool, notnull)"),
        ("ubool && false", "unknown(bool, notnull)"),
        ("ubool && true", "unknown(bool, notnull)"),
        ("sec == \"secret\"", "sensitive(true)"),
        ("!ubool", "unknown(bool, notnull)"),
    ]);
}

#[test]
fn collections_and_traversals() {
    check_rows(&[
        ("[1, \"a\", true]", "[1, \"a\", true]"),
        ("[]", "[]"),
        ("{}", "{}"),
        ("{a = 1, \"b c\" = 2}", "{a=1, b c=2}"),
        ("{(1) = \"x\"}", "{1=\"x\"}"),
        ("{null = 1}", "{null=1}"),
        ("{true = 1}", "{true=1}"),
        ("{a = 1, a = 2}", "{a=2}"),
        ("{(str) = 1}", "{hello=1}"),
        ("{(ustr) = 1}", "unknown(dynamic)"),
        ("{(sec) = 1}", "sensitive({secret=1})"),
        ("lst[0]", "\"a\""),
        ("lst[\"1\"]", "\"b\""),
        ("lst.2", "\"c\""),
        ("tup[1]", "\"two\""),
        ("obj.a", "1"),
        ("obj[\"b\"]", "\"x\""),
        ("obj.nested.k", "\"v\""),
        ("obj[\"nested\"][\"k\"]", "\"v\""),
        ("mp.one", "1"),
        ("mp[\"two\"]", "2"),
        ("objs[1].name", "\"b\""),
        ("lst[num - 4]", "\"b\""),
        ("dyn.foo.bar", "unknown(dynamic)"),
        ("dyn[0]", "unknown(dynamic)"),
        ("ulist[0]", "unknown(string)"),
        ("lst[unum]", "unknown(string)"),
        ("tup[unum]", "unknown(dynamic)"),
        ("utup[1]", "unknown(string)"),
        ("uobj.a", "unknown(number)"),
        ("uobj[\"a\"]", "unknown(dynamic)"),
        ("mp[ustr]", "unknown(number)"),
        ("seclist[0]", "sensitive(\"a\")"),
        ("secinner[1]", "\"b\""),
        ("secinner[0]", "sensitive(\"a\")"),
        ("lst[secnum - 1]", "sensitive(\"c\")"),
        ("partial.known", "1"),
        ("partial.later", "unknown(string)"),
        ("[for x in [1]: x][0]", "1"),
        ("{a={b=[10, 20]}}.a.b[1]", "20"),
    ]);
}

#[test]
fn conditionals() {
    check_rows(&[
        ("true ? 1 : 2", "1"),
        ("false ? \"a\" : 1", "\"1\""),
        ("\"true\" ? 1 : 2", "1"),
        ("true ? [1] : [1, 2]", "list(number)[1]"),
        ("true ? {a=1} : {b=2}", "map(number){a=1}"),
        (
            "true ? tolist([1]) : tolist([\"a\"])",
            "list(string)[\"1\"]",
        ),
        ("true ? null : 1", "null(number)"),
        ("false ? null : 1", "1"),
        ("true ? 1 : null", "1"),
        ("true ? dyn : 1", "unknown(dynamic)"),
        ("ubool ? 1 : 2", "unknown(number, notnull, >=1, <=2)"),
        ("ubool ? 5 : 5", "5"),
        ("ubool ? \"a\" : \"b\"", "unknown(string, notnull)"),
        ("ubool ? null : null", "null"),
        ("ubool ? nul : \"b\"", "unknown(string)"),
        (
            "ubool ? lst : elist",
            "unknown(list(string), notnull, len<=3)",
        ),
        ("ubool ? 1 : unum", "unknown(number)"),
        ("t ? sec : \"x\"", "sensitive(\"secret\")"),
        ("t ? \"x\" : sec", "sensitive(\"x\")"),
        ("ubool ? sec : \"x\"", "sensitive(unknown(string, notnull))"),
        ("ustr == \"\" ? 1 : 2", "unknown(number, notnull, >=1, <=2)"),
    ]);
}

#[test]
fn templates() {
    check_rows(&[
        ("\"${1}\"", "1"),
        ("\"a${1}b\"", "\"a1b\""),
        ("\"${true}\"", "true"),
        ("\"${null}\"", "null"),
        ("\"x${true}\"", "\"xtrue\""),
        ("\"${str} world\"", "\"hello world\""),
        ("\"n=${num}\"", "\"n=5\""),
        ("\"%{if true}yes%{else}no%{endif}\"", "\"yes\""),
        ("\"%{if false}yes%{else}no%{endif}\"", "\"no\""),
        ("\"%{if false}yes%{endif}\"", "\"\""),
        ("\"%{for x in [1,2]}${x},%{endfor}\"", "\"1,2,\""),
        (
            "\"%{for k, v in {a=1, b=2}}${k}=${v};%{endfor}\"",
            "\"a=1;b=2;\"",
        ),
        ("\"%{for x in st}${x}%{endfor}\"", "\"xy\""),
        ("\"${ustr}\"", "unknown(string)"),
        ("\"a-${ustr}\"", "unknown(string, notnull, prefix=\"a-\")"),
        ("\"${ustr}-a\"", "unknown(string, notnull)"),
        ("\"%{if ubool}a%{endif}\"", "unknown(string, notnull)"),
        (
            "\"x%{for v in ulist}${v}%{endfor}\"",
            "unknown(string, notnull)",
        ),
        (
            "\"%{for v in dyn}${v}%{endfor}\"",
            "unknown(string, notnull)",
        ),
        ("\"s=${sec}\"", "sensitive(\"s=secret\")"),
        ("\"%{for v in seclist}${v}%{endfor}\"", "sensitive(\"ab\")"),
        ("\"%{for v in secinner}${v}%{endfor}\"", "sensitive(\"ab\")"),
        ("\"%{if sec == \"x\"}a%{endif}\"", "sensitive(\"\")"),
        ("\"${\"a\"}${\"b\"}\"", "\"ab\""),
        ("<<EOT\nhello ${str}\nEOT\n", "\"hello hello\\n\""),
    ]);
}

#[test]
fn for_expressions() {
    check_rows(&[
        ("{for k, v in {a=1, b=2}: v => k}", "{1=\"a\", 2=\"b\"}"),
        (
            "[for i, v in [\"a\",\"b\"]: \"${i}=${v}\"]",
            "[\"0=a\", \"1=b\"]",
        ),
        ("[for v in toset([\"b\",\"a\"]): v]", "[\"a\", \"b\"]"),
        ("[for k, v in st: k == v]", "[true, true]"),
        (
            "{for v in [\"a\",\"b\",\"a\"]: v => v...}",
            "{a=[\"a\", \"a\"], b=[\"b\"]}",
        ),
        ("[for x in [1,2,3]: x if x > 1]", "[2, 3]"),
        ("[for k, v in {b=1, a=2}: k]", "[\"a\", \"b\"]"),
        ("[for k, v in mp: v * 10]", "[10, 20]"),
        ("{for o in objs: o.name => o.port}", "{a=1, b=2}"),
        ("[for x in []: x]", "[]"),
        ("{for x in []: x => x}", "{}"),
        ("[for x in ulist: x]", "unknown(dynamic)"),
        ("[for x in dyn: x]", "unknown(dynamic)"),
        ("[for x in [1, 2]: x if ubool]", "unknown(dynamic)"),
        ("{for x in [1, 2]: x => x if ubool}", "unknown(dynamic)"),
        ("{for x in [\"a\"]: ustr => x}", "unknown(dynamic)"),
        ("[for x in seclist: x]", "sensitive([\"a\", \"b\"])"),
        ("[for x in [1, 2]: x if x == secnum]", "sensitive([])"),
        (
            "[for x in [[1, 2], [3]]: [for y in x: y * 10]]",
            "[[10, 20], [30]]",
        ),
        ("[for x in [1]: [for x in [2]: x]]", "[[2]]"),
        (
            "[for i, x in [\"a\"]: [for j, y in [\"b\"]: \"${i}${x}${j}${y}\"]]",
            "[[\"0a0b\"]]",
        ),
        ("[for str in [1]: str]", "[1]"),
        ("[for x in [1, 2]: x if x == 2][0]", "2"),
    ]);
}

#[test]
fn splats() {
    check_rows(&[
        ("[1,2,3][*]", "[1, 2, 3]"),
        ("{a=1}[*]", "[{a=1}]"),
        ("null[*]", "[]"),
        ("nul[*]", "[]"),
        ("[{a=1},{a=2}][*].a", "[1, 2]"),
        ("[{a=1},{a=2}].*.a", "[1, 2]"),
        ("tolist([{a=1},{a=2}])[*].a", "list(number)[1, 2]"),
        ("objs[*].name", "list(string)[\"a\", \"b\"]"),
        ("objs.*.port", "list(number)[1, 2]"),
        ("toset([1,2])[*]", "list(number)[1, 2]"),
        ("\"x\"[*]", "[\"x\"]"),
        ("[[1,2],[3]][*][0]", "[1, 3]"),
        ("elist[*]", "list(string)[]"),
        ("ulist[*]", "unknown(list(string), notnull)"),
        ("ulen[*]", "unknown(list(string), notnull, len>=1, len<=3)"),
        ("utup[*]", "unknown(tuple([number,string]), notnull)"),
        ("ustr[*]", "unknown(dynamic)"),
        ("dyn[*]", "unknown(dynamic)"),
        ("seclist[*]", "sensitive(list(string)[\"a\", \"b\"])"),
        ("sec[*]", "sensitive([sensitive(\"secret\")])"),
        ("[{a={b=1}}][*].a.b", "[1]"),
        ("length(objs[*].port)", "2"),
    ]);
}

#[test]
fn function_calls() {
    check_rows(&[
        ("length(\"abc\")", "3"),
        ("core::length(\"abc\")", "3"),
        ("length(lst)", "3"),
        ("upper(\"a\")", "\"A\""),
        ("upper(1)", "\"1\""),
        ("max([1,2]...)", "2"),
        ("max(1, [2]...)", "2"),
        ("max(tolist([3, 4])...)", "4"),
        ("max(secnums...)", "sensitive(2)"),
        ("max(secnums[*]...)", "sensitive(2)"),
        ("upper(ustr)", "unknown(string, notnull)"),
        ("upper(sec)", "sensitive(\"SECRET\")"),
        ("console_fn(2)", "4"),
        ("length(sec)", "sensitive(6)"),
        ("try(obj.missing, \"fallback\")", "\"fallback\""),
        ("try(obj.a, \"fallback\")", "1"),
        ("try(ustr, \"x\")", "unknown(dynamic)"),
        ("try(partial, \"x\")", "unknown(dynamic)"),
        ("try(nul, \"x\")", "null(string)"),
        ("try([][0], {}.a, 3)", "3"),
        ("can(obj.missing)", "false"),
        ("can(obj.a)", "true"),
        ("can(ustr)", "unknown(bool)"),
        ("can(upper([]))", "false"),
        ("try(sec, 1)", "sensitive(\"secret\")"),
        ("try([1, 2]...)", "1"),
    ]);
}

#[test]
fn error_diagnostics() {
    check_error_rows(&[
        ("\"a\" + 1", "Invalid operand", "Unsuitable value for left operand: a number is required."),
        ("1 + [1]", "Invalid operand", "Unsuitable value for right operand: number required."),
        ("!1", "Invalid operand", "Unsuitable value for unary operand: bool required."),
        ("null + 1", "Operation failed", "Error during operation: argument must not be null."),
        ("!null", "Operation failed", "Error during operation: argument must not be null."),
        ("true && null", "Operation failed", "Error during operation: argument must not be null."),
        ("null || true", "Operation failed", "Error during operation: argument must not be null."),
        ("true || upper(1, 2)", "Too many function arguments", "Function \"upper\" expects only 1 argument(s)."),
        ("[1,2][5]", "Invalid index", "The given key does not identify an element in this collection value."),
        ("[][1]", "Invalid index", "The given key does not identify an element in this collection value."),
        (
            "[0,1][2]",
            "Invalid index",
            "The given key does not identify an element in this collection value: the given index is greater than or equal to the length of the collection.",
        ),
        ("objs[*].name[0]", "Invalid index", "This value does not have any indices."),
        (
            "[1,2][-1]",
            "Invalid index",
            "The given key does not identify an element in this collection value: a negative number is not a valid index for a sequence.",
        ),
        (
            "[1,2][0.5]",
            "Invalid index",
            "The given key does not identify an element in this collection value: indexing a sequence requires a whole number, but the given index has a fractional part.",
        ),
        ("[][0]", "Invalid index", "The given key does not identify an element in this collection value: the collection has no elements."),
        ("elist[0]", "Invalid index", "The given key does not identify an element in this collection value: the collection has no elements."),
        (
            "lst[3]",
            "Invalid index",
            "The given key does not identify an element in this collection value: the given index is greater than or equal to the length of the collection.",
        ),
        ("{a=1}[\"b\"]", "Invalid index", "The given key does not identify an element in this collection value."),
        (
            "{a=1}[0]",
            "Invalid index",
            "The given key does not identify an element in this collection value. An object only supports looking up attributes by name, not by numeric index.",
        ),
        ("tomap({a=1})[\"b\"]", "Invalid index", "The given key does not identify an element in this collection value."),
        ("mp[[1]]", "Invalid index", "The given key does not identify an element in this collection value: string required."),
        ("tomap({a=1}).b", "Missing map element", "This map does not have an element with the key \"b\"."),
        (
            "toset([1])[0]",
            "Invalid index",
            "Elements of a set are identified only by their value and don't have any separate index or key to select with, so it's only possible to perform operations across all elements of the set.",
        ),
        ("\"abc\"[0]", "Invalid index", "This value does not have any indices."),
        ("\"abc\".x", "Unsupported attribute", "Can't access attributes on a primitive-typed value (string)."),
        ("[1].x", "Unsupported attribute", "This value does not have any attributes."),
        ("{a=1}.b", "Unsupported attribute", "This object does not have an attribute named \"b\"."),
        (
            "objs.name",
            "Unsupported attribute",
            "Can't access attributes on a list of objects. Did you mean to access attribute \"name\" for a specific element of the list, or across all elements of the list?",
        ),
        (
            "objs.b",
            "Unsupported attribute",
            "Can't access attributes on a list of objects. Did you mean to access an attribute for a specific element of the list, or across all elements of the list?",
        ),
        (
            "toset([{a=1}]).a",
            "Unsupported attribute",
            "Can't access attributes on a set of objects. Did you mean to access an attribute across all elements of the set?",
        ),
        ("null.a", "Attempt to get attribute from null value", "This value is null, so it does not have any attributes."),
        ("nul.a", "Attempt to get attribute from null value", "This value is null, so it does not have any attributes."),
        ("null[0]", "Attempt to index null value", "This value is null, so it does not have any indices."),
        ("[1][null]", "Invalid index", "Can't use a null value as an indexing key."),
        ("null ? 1 : 2", "Null condition", "The condition value is null. Conditions must either be true or false."),
        ("\"x\" ? 1 : 2", "Incorrect condition type", "The condition expression must be of type bool."),
        ("1 ? 1 : 2", "Incorrect condition type", "The condition expression must be of type bool."),
        (
            "true ? [1] : {a=1}",
            "Inconsistent conditional result types",
            "The true and false result expressions must have consistent types. The 'true' value is tuple, but the 'false' value is object.",
        ),
        (
            "false ? tolist([1]) : {a=1}",
            "Inconsistent conditional result types",
            "The true and false result expressions must have consistent types. The 'true' value is list of number, but the 'false' value is object.",
        ),
        (
            "true ? {a=1} : {a=[]}",
            "Inconsistent conditional result types",
            "The true and false result expressions must have consistent types. Type mismatch for object attribute \"a\": The 'true' value is number, but the 'false' value is tuple.",
        ),
        (
            "true ? [1] : [[], 2]",
            "Inconsistent conditional result types",
            "The true and false result expressions must have consistent types. The 'true' tuple has length 1, but the 'false' tuple has length 2.",
        ),
        ("\"a${null}\"", "Invalid template interpolation value", "The expression result is null. Cannot include a null value in a string template."),
        ("\"${[1]}x\"", "Invalid template interpolation value", "Cannot include the given value in a string template: string required."),
        ("\"%{if \"x\"}yes%{endif}\"", "Incorrect condition type", "The condition expression must be of type bool."),
        ("\"%{if null}yes%{endif}\"", "Null condition", "The condition value is null. Conditions must either be true or false."),
        ("\"%{for x in null}${x}%{endfor}\"", "Iteration over null value", "A null value cannot be used as the collection in a 'for' expression."),
        (
            "\"%{for x in 1}${x}%{endfor}\"",
            "Iteration over non-iterable value",
            "A value of type number cannot be used as the collection in a 'for' expression.",
        ),
        ("\"%{for x in [[1]]}${x}%{endfor}\"", "Invalid template interpolation value", "Cannot include the given value in a string template: string required."),
        ("[for x in [1,2]: x if x]", "Invalid 'for' condition", "The 'if' clause value is invalid: bool required."),
        ("[for x in [1,2]: x if null]", "Condition is null", "The value of the 'if' clause must not be null."),
        ("[for x in [1,2]: x if x == 1 ? null : true]", "Invalid 'for' condition", "The value of the 'if' clause must not be null."),
        (
            "{for x in [\"a\",\"a\"]: x => 1}",
            "Duplicate object key",
            "Two different items produced the key \"a\" in this 'for' expression. If duplicates are expected, use the ellipsis (...) after the value expression to enable grouping by key.",
        ),
        ("{for x in [1]: null => x}", "Invalid object key", "Key expression in 'for' expression must not produce a null value."),
        ("{for x in [1]: [x] => x}", "Invalid object key", "The key expression produced an invalid result: string required."),
        ("[for x in null: x]", "Iteration over null value", "A null value cannot be used as the collection in a 'for' expression."),
        ("[for x in true: x]", "Iteration over non-iterable value", "A value of type bool cannot be used as the collection in a 'for' expression."),
        ("{(null) = 1}", "Null value as key", "Can't use a null value as a key."),
        ("{([]) = 1}", "Incorrect key type", "Can't use this value as a key: string required."),
        (
            "{a.b = 1}",
            "Ambiguous attribute key",
            "If this expression is intended to be a reference, wrap it in parentheses. If it's instead intended as a literal name containing periods, wrap it in quotes to create a string literal.",
        ),
        ("tolist(null)[*]", "Splat of null value", "Splat expressions (with the * symbol) cannot be applied to null sequences."),
        ("foo(1)", "Call to unknown function", "There is no function named \"foo\". Did you mean \"floor\"?"),
        ("uper(\"a\")", "Call to unknown function", "There is no function named \"uper\". Did you mean \"upper\"?"),
        ("zzzzzzzz(1)", "Call to unknown function", "There is no function named \"zzzzzzzz\"."),
        (
            "core::uper(\"a\")",
            "Unknown provider function",
            "The function namespace \"core\" is not valid. Provider function calls must use the \"provider::\" namespace prefix.",
        ),
        (
            "foo::bar(1)",
            "Unknown provider function",
            "The function namespace \"foo\" is not valid. Provider function calls must use the \"provider::\" namespace prefix.",
        ),
        (
            "provider::foo(1)",
            "Unknown provider function",
            "The function call must include the provider name after the \"provider::\" prefix.",
        ),
        (
            "provider::a::b::c(1)",
            "Unknown provider function",
            "There is no function named \"provider::a::c\". Ensure that provider name \"a\" is declared in this module's required_providers block, and that this provider offers a function named \"c\".",
        ),
        ("upper()", "Not enough function arguments", "Function \"upper\" expects 1 argument(s). Missing value for \"str\"."),
        ("upper(1,2)", "Too many function arguments", "Function \"upper\" expects only 1 argument(s)."),
        ("upper([1])", "Invalid function argument", "Invalid value for \"str\" parameter: string required."),
        ("max(null...)", "Invalid expanding argument value", "The expanding argument (indicated by ...) must not be null."),
        ("max(1...)", "Invalid expanding argument value", "The expanding argument (indicated by ...) must be of a tuple, list, or set type."),
        ("try()", "Error in function call", "Call to function \"try\" failed: at least one argument is required."),
        ("can()", "Not enough function arguments", "Function \"can\" expects 1 argument(s). Missing value for \"expression\"."),
        ("can(1,2)", "Too many function arguments", "Function \"can\" expects only 1 argument(s)."),
        (
            "try({}.a, [][0])",
            "Error in function call",
            "Call to function \"try\" failed: no expression succeeded:\n- Unsupported attribute (at test.tf:1,7-9)\n  This object does not have an attribute named \"a\".\n- Invalid index (at test.tf:1,13-16)\n  The given key does not identify an element in this collection value: the collection has no elements.\n\nAt least one expression must produce a successful result.",
        ),
        ("nope", "Unknown variable", "There is no variable named \"nope\"."),
        ("stt", "Unknown variable", "There is no variable named \"stt\". Did you mean \"st\"?"),
        ("[for x in [1]: y]", "Unknown variable", "There is no variable named \"y\". Did you mean \"t\"?"),
    ]);
}

/// Where diagnostics point: (expression, subject, context) with ranges as
/// `line,col-line,col`.
#[test]
fn diagnostic_ranges() {
    let rows: &[(&str, &str, Option<&str>)] = &[
        ("obj.zz", "1,4-1,7", None),
        ("lst[9]", "1,4-1,7", None),
        ("lst[num + 10]", "1,4-1,14", None),
        ("nope.a", "1,1-1,5", None),
        ("1 + \"x\"", "1,5-1,8", Some("1,1-1,8")),
        ("upper(1, 2)", "1,10-1,11", Some("1,1-1,12")),
        ("upper()", "1,7-1,8", Some("1,1-1,8")),
        ("upper([1])", "1,7-1,8", Some("1,1-1,11")),
        ("upper(tolist([1]))", "1,7-1,14", Some("1,1-1,19")),
        ("foo(1)", "1,1-1,4", Some("1,1-1,7")),
        ("try()", "1,1-1,5", Some("1,1-1,6")),
        ("true ? 1 : [2]", "1,8-1,15", Some("1,1-1,15")),
        ("null ? 1 : 2", "1,1-1,5", Some("1,1-1,13")),
        ("\"a${null}\"", "1,5-1,9", Some("1,1-1,11")),
        ("[for x in null: x]", "1,11-1,15", Some("1,1-1,19")),
        ("{for x in [1, 1]: x => x}", "1,19-1,20", Some("1,1-1,26")),
        ("tolist(null)[*]", "1,1-1,13", Some("1,1-1,16")),
        ("{(null) = 1}", "1,11-1,12", None),
        ("max(1...)", "1,5-1,6", Some("1,1-1,10")),
    ];
    let scope = test_scope();
    let fmt = |r: &terrace_syntax::SourceRange| {
        format!(
            "{},{}-{},{}",
            r.start.line, r.start.column, r.end.line, r.end.column
        )
    };
    let mut failures = Vec::new();
    for (src, subject, context) in rows {
        let (_, diags) = eval_with(src, &scope);
        let Some(d) = diags.iter().find(|d| d.is_error()) else {
            failures.push(format!("{src}: no error"));
            continue;
        };
        let got_subject = d.subject.as_ref().map(fmt);
        let got_context = d.context.as_ref().map(fmt);
        if got_subject.as_deref() != Some(*subject) || got_context.as_deref() != *context {
            failures.push(format!(
                "{src}: want {subject} / {context:?}, got {got_subject:?} / {got_context:?} ({})",
                d.summary
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn diagnostics_from_unchosen_branches_are_dropped() {
    let scope = test_scope();
    let (v, diags) = eval_with("true ? 1 : upper(1, 2)", &scope);
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(render(&v), "1");
    let (_, diags) = eval_with("false ? 1 : upper(1, 2)", &scope);
    assert_eq!(diags.len(), 1);
    let (_, diags) = eval_with("ubool ? upper(1, 2) : 1", &scope);
    assert!(
        diags.is_empty(),
        "unknown conditions keep no branch diagnostics: {diags:?}"
    );
}

#[test]
fn first_for_error_only() {
    let scope = test_scope();
    let (v, diags) = eval_with("[for x in [1, 2, 3]: x if x]", &scope);
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(render(&v), "unknown(dynamic)");
}

#[test]
fn variables_and_functions_can_be_forbidden() {
    let scope = MapScope::constant();
    let (_, diags) = eval_with("var.x", &scope);
    assert_eq!(diags[0].summary, "Variables not allowed");
    assert_eq!(diags[0].detail, "Variables may not be used here.");
    let (_, diags) = eval_with("upper(\"a\")", &scope);
    assert_eq!(diags[0].summary, "Function calls not allowed");
    assert_eq!(diags[0].detail, "Functions may not be called here.");
    // for-expression temporaries are not references
    let (v, diags) = eval_with("[for x in [1]: x + 1]", &scope);
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(render(&v), "[2]");
}

/// A scope that consumes two steps (`var.NAME`) like the engine's does.
struct VarScope;

impl Scope for VarScope {
    fn lookup(&self, t: &terrace_syntax::ast::Traversal, file: &SourceFile) -> Lookup {
        if t.root != "var" {
            return Lookup::NotFound;
        }
        match t.steps.first() {
            Some(terrace_syntax::ast::TraversalStep::Attr { name, .. }) if name == "x" => {
                Lookup::Found {
                    value: obj(&[("y", n(7))]),
                    consumed: 1,
                }
            }
            _ => Lookup::Failed(vec![Diagnostic::error(
                "Reference to undeclared input variable",
                "nope",
            )
            .with_subject(file.range(t.root_span))]),
        }
    }
    fn base_dir(&self) -> &std::path::Path {
        std::path::Path::new(".")
    }
}

#[test]
fn scopes_may_consume_steps() {
    let (v, diags) = eval_with("var.x.y + 1", &VarScope);
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(render(&v), "8");
    let (v, diags) = eval_with("var.x.z", &VarScope);
    assert_eq!(diags[0].summary, "Unsupported attribute");
    assert_eq!(render(&v), "unknown(dynamic)");
    let (_, diags) = eval_with("var.q", &VarScope);
    assert_eq!(diags[0].summary, "Reference to undeclared input variable");
}

#[test]
fn deep_nesting_is_refused_not_fatal() {
    // Built by hand: the parser has its own nesting limit.
    let depth = MAX_NESTING_DEPTH + 50;
    let src = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
    let file = SourceFile::new("deep.tf", src.as_str());
    let mut expr = Expr {
        kind: ExprKind::Number("1".into()),
        span: Span::new(depth, depth + 1),
    };
    for i in (0..depth).rev() {
        expr = Expr {
            kind: ExprKind::Tuple(vec![expr]),
            span: Span::new(i, src.len() - i),
        };
    }
    let scope = MapScope::new();
    let outcome = std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(move || {
            let (v, diags) = evaluate(&expr, &file, &scope);
            drop(expr);
            (
                v.ty().is_tuple(),
                diags
                    .iter()
                    .any(|d| d.summary == "Expression too deeply nested"),
            )
        })
        .map(|h| h.join());
    match outcome {
        Ok(Ok((is_tuple, refused))) => assert!(is_tuple && refused),
        other => panic!("evaluation thread failed: {:?}", other.map(|r| r.is_ok())),
    }
}

#[test]
fn invalid_nodes_evaluate_to_unknown() {
    let file = SourceFile::new("x.tf", "1 + x");
    let invalid = Expr {
        kind: ExprKind::Invalid,
        span: Span::new(4, 5),
    };
    let one = Expr {
        kind: ExprKind::Number("1".into()),
        span: Span::new(0, 1),
    };
    let sum = Expr {
        kind: ExprKind::Binary {
            first: Box::new(one),
            rest: vec![terrace_syntax::ast::BinaryOperand {
                op: terrace_syntax::ast::BinaryOp::Add,
                op_span: Span::new(2, 3),
                rhs: invalid.clone(),
            }],
        },
        span: Span::new(0, 5),
    };
    for e in [&invalid, &sum] {
        let (v, diags) = evaluate(e, &file, &MapScope::new());
        assert!(!v.is_known());
        assert!(diags.is_empty(), "{diags:?}");
    }
    // Parse failures still give a tree that evaluates without panicking.
    for src in ["1 +", "[for", "a.", "\"${", "f(", "x ? :", "{a = }", "[*]"] {
        let file = SourceFile::new("x.tf", src);
        let (expr, _) = terrace_syntax::parse_expression(&file);
        let _ = evaluate(&expr, &file, &test_scope());
    }
}

#[test]
fn arc_scope_values_are_shared() {
    let big = Value::list(Type::Number, (0..1000).map(n).collect());
    let scope = MapScope::new().with("big", big);
    let (v, _) = eval_with("big[999]", &scope);
    assert_eq!(render(&v), "999");
}

#[test]
fn provider_functions_through_the_scope() {
    let mut scope = test_scope();
    for name in crate::scope::TERRAFORM_PROVIDER_FUNCTIONS {
        if let Some(f) = crate::scope::terraform_provider_function(name) {
            scope
                .provider_functions
                .insert(("terraform".to_string(), name.to_string()), f);
        }
    }
    let (v, diags) = eval_with("provider::terraform::encode_expr({a = 1})", &scope);
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(render(&v), "\"{\\n  a = 1\\n}\"");
    let (v, _) = eval_with("provider::terraform::encode_tfvars({a = sec})", &scope);
    assert_eq!(render(&v), "sensitive(\"a = \\\"secret\\\"\\n\")");
    let (v, _) = eval_with("provider::terraform::encode_expr([ustr])", &scope);
    assert_eq!(render(&v), "unknown(string, notnull)");
    let (_, diags) = eval_with("provider::terraform::encode_expr()", &scope);
    assert_eq!(
        diags[0].detail,
        "Function \"provider::terraform::encode_expr\" expects 1 argument(s). Missing value for \"value\"."
    );
    let (_, diags) = eval_with("provider::terraform::encode_tfvars(null)", &scope);
    assert_eq!(
        diags[0].detail,
        "Invalid value for \"value\" parameter: argument must not be null."
    );
    let (_, diags) = eval_with("provider::terraform::encode_tfvars(1)", &scope);
    assert_eq!(
        diags[0].detail,
        "Call to function \"provider::terraform::encode_tfvars\" failed: invalid value to encode: must be an object whose attribute names will become the encoded variable names."
    );
    let (_, diags) = eval_with("provider::terraform::nope(1)", &scope);
    assert_eq!(diags[0].summary, "Unknown provider function");
}

#[test]
fn evaluate_expr_checks_references_and_type() {
    let scope = test_scope();
    let run = |src: &str, want: &Type| {
        let file = SourceFile::new("t.tf", src);
        let (expr, _) = terrace_syntax::parse_expression(&file);
        let (v, diags) = evaluate_expr(&expr, &file, &scope, want);
        (
            render(&v),
            diags
                .into_iter()
                .map(|d| (d.summary, d.detail))
                .collect::<Vec<_>>(),
        )
    };
    assert_eq!(run("5 + 1", &Type::String), ("\"6\"".to_string(), vec![]));
    assert_eq!(
        run("[for x in [1]: x]", &Type::list(Type::String)),
        ("list(string)[\"1\"]".to_string(), vec![])
    );
    assert_eq!(
        run("true ? 1 : nosuch", &Type::Number),
        (
            "unknown(number)".to_string(),
            vec![(
                "Invalid reference".to_string(),
                "A reference to a resource type must be followed by at least one attribute access, specifying the resource name.".to_string()
            )]
        )
    );
    assert_eq!(
        run("\"x\"", &Type::Number),
        (
            "unknown(number)".to_string(),
            vec![(
                "Incorrect value type".to_string(),
                "Invalid expression value: a number is required.".to_string()
            )]
        )
    );
    assert_eq!(
        run(
            "{a = \"x\"}",
            &Type::object([("a".to_string(), Type::Number)])
        ),
        (
            "unknown(object({a=number}))".to_string(),
            vec![(
                "Incorrect value type".to_string(),
                "Invalid expression value: .a: a number is required.".to_string()
            )]
        )
    );
}
