//! Built-in functions: collections (`alltrue`, `anytrue`, `chunklist`,
//! `coalesce`, `coalescelist`, `compact`, `concat`, `contains`, `distinct`,
//! `element`, `flatten`, `index`, `keys`, `length`, `lookup`, `matchkeys`,
//! `merge`, `one`, `range`, `reverse`, `setintersection`, `setproduct`,
//! `setsubtract`, `setunion`, `slice`, `sort`, `sum`, `transpose`,
//! `values`, `zipmap`), with the semantics of go-cty v1.16.0's stdlib and
//! Terraform 1.11's own collection functions: result types, unknown and
//! null handling, marks, refinements and error messages.

use super::numeric::{number_arg, whole_number};
use super::string::grapheme_count;
use super::{CallContext, Function, FunctionError, FunctionResult, Param, ReturnType};
use std::collections::BTreeMap;
use terrace_value::convert::{convert, unify};
use terrace_value::gostr;
use terrace_value::{Marks, Number, Type, Value};

pub(crate) fn register(out: &mut Vec<Function>) {
    let dynamic = |name| Param::new(name, Type::Dynamic);
    let number = |name| Param::new(name, Type::Number);
    let fixed = |ty: Type| ReturnType::Static(ty);

    out.push(Function::new(
        "length",
        vec![dynamic("value")
            .allow_dynamic_type()
            .allow_unknown()
            .allow_marked()],
        ReturnType::Computed(length_type),
        length,
    ));
    out.push(Function::new(
        "alltrue",
        vec![Param::new("list", Type::list(Type::Bool))],
        fixed(Type::Bool),
        alltrue,
    ));
    out.push(Function::new(
        "anytrue",
        vec![Param::new("list", Type::list(Type::Bool))],
        fixed(Type::Bool),
        anytrue,
    ));
    out.push(Function::new(
        "chunklist",
        vec![
            Param::new("list", Type::list(Type::Dynamic)).allow_marked(),
            number("size").allow_marked(),
        ],
        ReturnType::Computed(chunklist_type),
        chunklist,
    ));
    out.push(
        Function::new(
            "coalesce",
            vec![],
            ReturnType::Computed(coalesce_type),
            coalesce,
        )
        .variadic(
            dynamic("vals")
                .allow_unknown()
                .allow_dynamic_type()
                .allow_null(),
        ),
    );
    out.push(
        Function::new(
            "coalescelist",
            vec![],
            ReturnType::Computed(coalescelist_type),
            coalescelist,
        )
        .variadic(
            dynamic("vals")
                .allow_unknown()
                .allow_dynamic_type()
                .allow_null(),
        ),
    );
    out.push(Function::new(
        "compact",
        vec![Param::new("list", Type::list(Type::String))],
        fixed(Type::list(Type::String)),
        compact,
    ));
    out.push(
        Function::new("concat", vec![], ReturnType::Computed(concat_type), concat)
            .variadic(dynamic("seqs").allow_marked()),
    );
    out.push(Function::new(
        "contains",
        vec![dynamic("list"), dynamic("value")],
        fixed(Type::Bool),
        contains,
    ));
    out.push(Function::new(
        "distinct",
        vec![Param::new("list", Type::list(Type::Dynamic))],
        ReturnType::Computed(first_arg_type),
        distinct,
    ));
    out.push(
        Function::new(
            "element",
            vec![dynamic("list").allow_marked(), number("index")],
            ReturnType::Computed(element_type),
            element,
        )
        .nullable_result(),
    );
    out.push(Function::new(
        "flatten",
        vec![dynamic("list").allow_marked()],
        ReturnType::Computed(flatten_type),
        flatten,
    ));
    out.push(Function::new(
        "index",
        vec![dynamic("list"), dynamic("value")],
        fixed(Type::Number),
        index,
    ));
    out.push(Function::new(
        "keys",
        vec![dynamic("inputMap").allow_unknown().allow_marked()],
        ReturnType::Computed(keys_type),
        keys,
    ));
    out.push(
        Function::new(
            "lookup",
            vec![
                dynamic("inputMap").allow_marked(),
                Param::new("key", Type::String).allow_marked(),
            ],
            ReturnType::Computed(lookup_type),
            lookup,
        )
        .variadic(
            dynamic("default")
                .allow_unknown()
                .allow_dynamic_type()
                .allow_null()
                .allow_marked(),
        )
        .nullable_result(),
    );
    out.push(Function::new(
        "matchkeys",
        vec![
            Param::new("values", Type::list(Type::Dynamic)),
            Param::new("keys", Type::list(Type::Dynamic)),
            Param::new("searchset", Type::list(Type::Dynamic)),
        ],
        ReturnType::Computed(matchkeys_type),
        matchkeys,
    ));
    out.push(
        Function::new("merge", vec![], ReturnType::Computed(merge_type), merge).variadic(
            dynamic("maps")
                .allow_dynamic_type()
                .allow_null()
                .allow_marked(),
        ),
    );
    out.push(
        Function::new(
            "one",
            vec![dynamic("list")],
            ReturnType::Computed(one_type),
            one,
        )
        .nullable_result(),
    );
    out.push(
        Function::new("range", vec![], fixed(Type::list(Type::Number)), range)
            .variadic(number("params")),
    );
    out.push(Function::new(
        "reverse",
        vec![dynamic("list").allow_marked()],
        ReturnType::Computed(reverse_type),
        reverse,
    ));
    let set_param = |name| Param::new(name, Type::set(Type::Dynamic)).allow_dynamic_type();
    out.push(
        Function::new(
            "setintersection",
            vec![set_param("first_set")],
            ReturnType::Computed(set_op_type),
            setintersection,
        )
        .variadic(set_param("other_sets")),
    );
    out.push(
        Function::new(
            "setunion",
            vec![set_param("first_set")],
            ReturnType::Computed(set_op_type),
            setunion,
        )
        .variadic(set_param("other_sets")),
    );
    out.push(Function::new(
        "setsubtract",
        vec![set_param("a"), set_param("b")],
        ReturnType::Computed(set_op_type),
        setsubtract,
    ));
    out.push(
        Function::new(
            "setproduct",
            vec![],
            ReturnType::Computed(setproduct_type),
            setproduct,
        )
        .variadic(dynamic("sets").allow_marked().allow_unknown()),
    );
    out.push(Function::new(
        "slice",
        vec![
            dynamic("list").allow_marked(),
            number("start_index"),
            number("end_index"),
        ],
        ReturnType::Computed(slice_type),
        slice,
    ));
    out.push(Function::new(
        "sort",
        vec![Param::new("list", Type::list(Type::String)).allow_unknown()],
        fixed(Type::list(Type::String)),
        sort,
    ));
    out.push(Function::new(
        "sum",
        vec![dynamic("list")],
        fixed(Type::Number),
        sum,
    ));
    out.push(Function::new(
        "transpose",
        vec![Param::new("values", Type::map(Type::list(Type::String)))],
        fixed(Type::map(Type::list(Type::String))),
        transpose,
    ));
    out.push(Function::new(
        "values",
        vec![dynamic("mapping").allow_marked()],
        ReturnType::Computed(values_type),
        values,
    ));
    out.push(Function::new(
        "zipmap",
        vec![
            Param::new("keys", Type::list(Type::String)).allow_marked(),
            dynamic("values").allow_marked(),
        ],
        ReturnType::Computed(zipmap_type),
        zipmap,
    ));
}

// ----- helpers -----

/// The elements of a known list, set or tuple (in set order for sets).
fn elements(v: &Value) -> &[Value] {
    v.as_elements().unwrap_or(&[])
}

fn is_true(v: &Value) -> bool {
    v.clone().unmark().0.as_bool() == Some(true)
}

/// cty's `Equals` answered as "known to be equal".
fn equal(a: &Value, b: &Value) -> Value {
    a.equals(b)
}

fn first_arg_type(_: &CallContext<'_>, args: &[Value]) -> FunctionResult<Type> {
    Ok(args[0].ty().clone())
}

fn list_or_empty(ety: Type, elems: Vec<Value>) -> Value {
    Value::list(ety, elems)
}

fn conversion_failed(index: usize, e: terrace_value::convert::ConversionError) -> FunctionError {
    FunctionError::arg(index, e.message)
}

fn value_error(e: terrace_value::ops::ValueError) -> FunctionError {
    FunctionError::call(e.to_string())
}

/// An unknown value whose collection length lies between the bounds of
/// `of` (cty's `CollectionLengthLowerBound(...).CollectionLengthUpperBound(...)`).
fn unknown_with_length_of(ty: Type, of: &Value) -> Value {
    let range = of.range();
    Value::unknown(ty)
        .refine()
        .collection_length_lower_bound(range.length_lower_bound())
        .collection_length_upper_bound(range.length_upper_bound())
        .new_value()
}

// ----- length, alltrue, anytrue -----

fn length_type(_: &CallContext<'_>, args: &[Value]) -> FunctionResult<Type> {
    let ty = args[0].ty();
    if *ty == Type::String || ty.is_collection() || ty.is_structural() || ty.is_dynamic() {
        Ok(Type::Number)
    } else {
        Err(FunctionError::call(
            "argument must be a string, a collection type, or a structural type",
        ))
    }
}

fn length(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let coll = &args[0];
    let marks = coll.marks();
    match coll.ty() {
        Type::Dynamic => Ok(Value::unknown(Type::Number).mark(marks)),
        Type::Tuple(t) => Ok(Value::int(t.len() as i64).mark(marks)),
        Type::Object(o) => Ok(Value::int(o.attributes.len() as i64).mark(marks)),
        Type::String => {
            // cty's strlen, called as a function: all marks (at any depth)
            // move to the result, and an unknown string's known prefix
            // bounds its length from below.
            let (s, marks) = coll.unmark_deep();
            let result = match s.as_str() {
                Some(text) => Value::int(grapheme_count(text) as i64),
                None => {
                    let prefix = s.range().string_prefix().to_string();
                    Value::unknown(Type::Number)
                        .refine()
                        .number_range_lower_bound(&Value::int(grapheme_count(&prefix) as i64), true)
                        .new_value()
                        .refine()
                        .not_null()
                        .number_range_lower_bound(&Value::int(0), true)
                        .new_value()
                }
            };
            Ok(result.mark(marks))
        }
        _ => coll.length().map_err(value_error),
    }
}

fn alltrue(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    for v in elements(&args[0]) {
        if !v.is_known() {
            return Ok(Value::unknown(Type::Bool));
        }
        if v.as_bool() != Some(true) {
            return Ok(Value::bool(false));
        }
    }
    Ok(Value::bool(true))
}

fn anytrue(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let mut has_unknown = false;
    for v in elements(&args[0]) {
        if !v.is_known() {
            has_unknown = true;
        } else if v.as_bool() == Some(true) {
            return Ok(Value::bool(true));
        }
    }
    if has_unknown {
        return Ok(Value::unknown(Type::Bool));
    }
    Ok(Value::bool(false))
}

// ----- chunklist -----

fn chunklist_type(_: &CallContext<'_>, args: &[Value]) -> FunctionResult<Type> {
    Ok(Type::list(args[0].ty().clone()))
}

fn chunklist(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let (list, list_marks) = args[0].clone().unmark();
    let (size, size_marks) = args[1].clone().unmark();
    let marks = list_marks.union(size_marks);
    let size = size
        .as_number()
        .ok_or_else(|| FunctionError::arg(1, "a known number is required"))?;
    let size = whole_number(size).map_err(|m| FunctionError::call(format!("invalid size: {m}")))?;
    if size < 0 {
        return Err(FunctionError::call("the size argument must be positive"));
    }
    let list_ty = list.ty().clone();
    let elems = elements(&list);
    if elems.is_empty() {
        return Ok(Value::list(list_ty, Vec::new()).mark(marks));
    }
    if size == 0 {
        return Ok(Value::list(list_ty, vec![list]).mark(marks));
    }
    let ety = list_ty.element_type().cloned().unwrap_or(Type::Dynamic);
    let size = usize::try_from(size).unwrap_or(usize::MAX);
    let chunks = elems
        .chunks(size)
        .map(|c| Value::list(ety.clone(), c.to_vec()))
        .collect();
    Ok(Value::list(list_ty, chunks).mark(marks))
}

// ----- coalesce, coalescelist, compact -----

fn coalesce_type(_: &CallContext<'_>, args: &[Value]) -> FunctionResult<Type> {
    let types: Vec<Type> = args.iter().map(|a| a.ty().clone()).collect();
    unify(&types, true).ok_or_else(|| FunctionError::call("all arguments must have the same type"))
}

/// Terraform's `coalesce`: the first argument that is neither null nor an
/// empty string, converted to the arguments' common type.
fn coalesce(_: &CallContext<'_>, args: &[Value], ret: &Type) -> FunctionResult<Value> {
    for arg in args {
        // A failed conversion leaves cty with a nil value, which it then
        // skips like a null.
        let Ok(v) = convert(arg, ret) else { continue };
        if !v.is_known() {
            return Ok(Value::unknown(ret.clone()));
        }
        if v.is_null() {
            continue;
        }
        if *ret == Type::String && v.as_str() == Some("") {
            continue;
        }
        return Ok(v);
    }
    Err(FunctionError::call(
        "no non-null, non-empty-string arguments",
    ))
}

fn coalescelist_type(_: &CallContext<'_>, args: &[Value]) -> FunctionResult<Type> {
    if args.is_empty() {
        return Err(FunctionError::call("at least one argument is required"));
    }
    for arg in args {
        if !arg.is_known() {
            return Ok(Type::Dynamic);
        }
        if !arg.ty().is_list() && !arg.ty().is_tuple() {
            return Err(FunctionError::call(
                "coalescelist arguments must be lists or tuples",
            ));
        }
    }
    let first = args[0].ty();
    if args.iter().all(|a| a.ty() == first) {
        Ok(first.clone())
    } else {
        Ok(Type::Dynamic)
    }
}

fn coalescelist(_: &CallContext<'_>, args: &[Value], ret: &Type) -> FunctionResult<Value> {
    for arg in args {
        if !arg.is_known() {
            return Ok(Value::unknown(ret.clone()));
        }
        if arg.is_null() {
            continue;
        }
        if !elements(arg).is_empty() {
            return Ok(arg.clone());
        }
    }
    Err(FunctionError::call("no non-null arguments"))
}

fn compact(_: &CallContext<'_>, args: &[Value], ret: &Type) -> FunctionResult<Value> {
    let list = &args[0];
    if !list.is_wholly_known() {
        return Ok(Value::unknown(ret.clone()));
    }
    let kept = elements(list)
        .iter()
        .filter(|v| v.as_str().is_some_and(|s| !s.is_empty()))
        .cloned()
        .collect();
    Ok(list_or_empty(Type::String, kept))
}

// ----- concat -----

fn concat_type(_: &CallContext<'_>, args: &[Value]) -> FunctionResult<Type> {
    if args.is_empty() {
        return Err(FunctionError::call("at least one argument is required"));
    }
    if args[0].ty().is_list() && args.iter().all(|a| a.ty().is_list()) {
        let types: Vec<Type> = args.iter().map(|a| a.ty().clone()).collect();
        if let Some(common) = unify(&types, true) {
            return Ok(common);
        }
    }
    let mut etys = Vec::new();
    for (i, arg) in args.iter().enumerate() {
        let (arg, _) = arg.unmark_deep();
        match arg.ty() {
            Type::Tuple(t) => etys.extend(t.iter().cloned()),
            Type::List(e) => {
                if !arg.is_known() {
                    return Ok(Type::Dynamic);
                }
                etys.extend(std::iter::repeat_n((**e).clone(), elements(&arg).len()));
            }
            other => {
                return Err(FunctionError::arg(
                    i,
                    format!(
                        "all arguments must be lists or tuples; got {}",
                        other.friendly_name()
                    ),
                ))
            }
        }
    }
    Ok(Type::tuple(etys))
}

fn concat(_: &CallContext<'_>, args: &[Value], ret: &Type) -> FunctionResult<Value> {
    let mut vals = Vec::new();
    let mut marks = Marks::NONE;
    match ret {
        Type::List(ety) => {
            for (i, list) in args.iter().enumerate() {
                let list = convert(list, ret).map_err(|e| conversion_failed(i, e))?;
                let (list, m) = list.unmark();
                marks = marks.union(m);
                vals.extend(elements(&list).iter().cloned());
            }
            Ok(Value::list((**ety).clone(), vals).mark(marks))
        }
        _ => {
            for seq in args {
                let (seq, m) = seq.clone().unmark();
                marks = marks.union(m);
                vals.extend(elements(&seq).iter().cloned());
            }
            Ok(Value::tuple(vals).mark(marks))
        }
    }
}

// ----- contains, distinct, index -----

fn contains(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let list = &args[0];
    let ty = list.ty();
    if !ty.is_list() && !ty.is_tuple() && !ty.is_set() {
        return Err(FunctionError::call("argument must be list, tuple, or set"));
    }
    let elems = elements(list);
    if elems.is_empty() {
        return Ok(Value::bool(false));
    }
    let mut contains_unknown = false;
    for v in elems {
        let eq = equal(&args[1], v);
        if !eq.is_known() {
            contains_unknown = true;
        } else if is_true(&eq) {
            return Ok(Value::bool(true));
        }
    }
    if contains_unknown {
        return Ok(Value::unknown(Type::Bool));
    }
    Ok(Value::bool(false))
}

fn distinct(_: &CallContext<'_>, args: &[Value], ret: &Type) -> FunctionResult<Value> {
    let list = &args[0];
    if !list.is_wholly_known() {
        return Ok(Value::unknown(ret.clone()));
    }
    let mut kept: Vec<Value> = Vec::new();
    for v in elements(list) {
        if !kept.iter().any(|k| is_true(&equal(k, v))) {
            kept.push(v.clone());
        }
    }
    let ety = ret.element_type().cloned().unwrap_or(Type::Dynamic);
    Ok(list_or_empty(ety, kept))
}

/// Terraform's `index`: the position of the first element equal to the
/// value.
fn index(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let list = &args[0];
    if !list.ty().is_list() && !list.ty().is_tuple() {
        return Err(FunctionError::call("argument must be a list or tuple"));
    }
    let elems = elements(list);
    if elems.is_empty() {
        return Err(FunctionError::call("cannot search an empty list"));
    }
    for (i, v) in elems.iter().enumerate() {
        let eq = equal(v, &args[1]);
        if !eq.is_known() {
            return Ok(Value::unknown(Type::Number));
        }
        if is_true(&eq) {
            return Ok(Value::int(i as i64));
        }
    }
    Err(FunctionError::call("item not found"))
}

// ----- element -----

fn element_type(_: &CallContext<'_>, args: &[Value]) -> FunctionResult<Type> {
    match args[0].ty() {
        Type::List(e) => Ok((**e).clone()),
        Type::Tuple(etys) => {
            let Some(n) = args[1].as_number() else {
                return Ok(Type::Dynamic);
            };
            let index =
                whole_number(n).map_err(|m| FunctionError::call(format!("invalid index: {m}")))?;
            if etys.is_empty() {
                return Err(FunctionError::call(
                    "cannot use element function with an empty list",
                ));
            }
            // go-cty v1.16.0 takes the remainder without correcting its
            // sign, so a negative index into a tuple crashes its type check.
            let index = index % etys.len() as i64;
            if index < 0 {
                return Err(FunctionError::call(format!(
                    "panic in function implementation: runtime error: index out of range [{index}]"
                )));
            }
            Ok(etys[index as usize].clone())
        }
        other => Err(FunctionError::call(format!(
            "cannot read elements from {}",
            other.friendly_name()
        ))),
    }
}

fn element(_: &CallContext<'_>, args: &[Value], ret: &Type) -> FunctionResult<Value> {
    let index = whole_number(number_arg(args, 1)?)
        .map_err(|m| FunctionError::call(format!("invalid index: {m}")))?;
    let (list, marks) = args[0].clone().unmark();
    if !list.is_known() {
        return Ok(Value::unknown(ret.clone()).mark(marks));
    }
    let elems = elements(&list);
    if elems.is_empty() {
        return Err(FunctionError::call(
            "cannot use element function with an empty list",
        ));
    }
    let len = elems.len() as i64;
    let index = index.rem_euclid(len) as usize;
    Ok(elems[index].clone().mark(marks))
}

// ----- flatten -----

/// Flattens nested lists, sets and tuples; `None` when the result cannot be
/// known yet (an unknown nested sequence, or a value of unknown type that
/// may turn out to be one). Marks of the sequences taken apart are
/// collected in `marks`.
fn flattener(list: &Value, marks: &mut Marks) -> Option<Vec<Value>> {
    let (list, m) = list.clone().unmark();
    *marks = marks.union(m);
    if !list.length().is_ok_and(|l| l.is_known()) {
        return None;
    }
    let mut out = Vec::new();
    let mut known = true;
    for v in elements(&list) {
        if v.ty().is_dynamic() && !v.is_known() && !v.is_marked() {
            known = false;
        }
        let ty = v.ty();
        if !v.is_null() && (ty.is_list() || ty.is_set() || ty.is_tuple()) {
            if !v.is_known() {
                known = false;
                *marks = marks.union(v.marks());
                continue;
            }
            match flattener(v, marks) {
                Some(inner) => out.extend(inner),
                None => known = false,
            }
        } else {
            out.push(v.clone());
        }
    }
    known.then_some(out)
}

fn flatten_type(_: &CallContext<'_>, args: &[Value]) -> FunctionResult<Type> {
    if !args[0].is_wholly_known() {
        return Ok(Type::Dynamic);
    }
    let ty = args[0].ty();
    if !ty.is_list() && !ty.is_set() && !ty.is_tuple() {
        return Err(FunctionError::call(
            "can only flatten lists, sets and tuples",
        ));
    }
    let mut ignored = Marks::NONE;
    match flattener(&args[0], &mut ignored) {
        Some(vals) => Ok(Type::tuple(vals.iter().map(|v| v.ty().clone()).collect())),
        None => Ok(Type::Dynamic),
    }
}

fn flatten(_: &CallContext<'_>, args: &[Value], ret: &Type) -> FunctionResult<Value> {
    let (unmarked, top_marks) = args[0].clone().unmark();
    if elements(&unmarked).is_empty() {
        return Ok(Value::empty_tuple().mark(top_marks));
    }
    let mut marks = Marks::NONE;
    match flattener(&args[0], &mut marks) {
        Some(vals) => Ok(Value::tuple(vals).mark(marks)),
        None => Ok(Value::unknown(ret.clone()).mark(marks)),
    }
}

// ----- keys, values, lookup -----

fn keys_type(_: &CallContext<'_>, args: &[Value]) -> FunctionResult<Type> {
    match args[0].ty() {
        Type::Map(_) => Ok(Type::list(Type::String)),
        Type::Object(o) => Ok(Type::tuple(vec![Type::String; o.attributes.len()])),
        _ => Err(FunctionError::arg(0, "must have map or object type")),
    }
}

fn keys(_: &CallContext<'_>, args: &[Value], ret: &Type) -> FunctionResult<Value> {
    let (m, marks) = args[0].clone().unmark();
    if let Some(o) = m.ty().object_type() {
        // Known from the type alone, so unknown objects have keys too.
        let names = o.attributes.keys().map(Value::string).collect();
        return Ok(Value::tuple(names).mark(marks));
    }
    if !m.is_known() {
        return Ok(Value::unknown(ret.clone()).mark(marks));
    }
    let names = m
        .as_attributes()
        .map(|a| a.keys().map(Value::string).collect())
        .unwrap_or_default();
    Ok(Value::list(Type::String, names).mark(marks))
}

fn values_type(_: &CallContext<'_>, args: &[Value]) -> FunctionResult<Type> {
    match args[0].ty() {
        Type::Map(e) => Ok(Type::list((**e).clone())),
        Type::Object(o) => Ok(Type::tuple(o.attributes.values().cloned().collect())),
        _ => Err(FunctionError::call(
            "values() requires a map as the first argument",
        )),
    }
}

fn values(_: &CallContext<'_>, args: &[Value], ret: &Type) -> FunctionResult<Value> {
    let (m, marks) = args[0].clone().unmark();
    let vals: Vec<Value> = m
        .as_attributes()
        .map(|a| a.values().cloned().collect())
        .unwrap_or_default();
    match ret {
        Type::List(e) => Ok(Value::list((**e).clone(), vals).mark(marks)),
        _ => Ok(Value::tuple(vals).mark(marks)),
    }
}

/// Terraform's `lookup`, whose default is optional: looking up a missing
/// key without one is an error naming the key (unless it is sensitive).
fn lookup_type(_: &CallContext<'_>, args: &[Value]) -> FunctionResult<Type> {
    if args.len() > 3 {
        return Err(FunctionError::call(format!(
            "lookup() takes two or three arguments, got {}",
            args.len()
        )));
    }
    match args[0].ty() {
        Type::Object(o) => {
            let key = args[1].clone().unmark().0;
            let Some(key) = key.as_str() else {
                return Ok(Type::Dynamic);
            };
            if let Some(ty) = o.attributes.get(key) {
                Ok(ty.clone())
            } else if let Some(default) = args.get(2) {
                Ok(default.ty().clone())
            } else {
                Err(FunctionError::arg(
                    0,
                    format!("the given object has no attribute {}", gostr::quote(key)),
                ))
            }
        }
        Type::Map(e) => {
            if let Some(default) = args.get(2) {
                if convert(default, e).is_err() {
                    return Err(FunctionError::arg(
                        2,
                        "the default value must have the same type as the map elements",
                    ));
                }
            }
            Ok((**e).clone())
        }
        _ => Err(FunctionError::arg(
            0,
            "lookup() requires a map as the first argument",
        )),
    }
}

fn lookup(_: &CallContext<'_>, args: &[Value], ret: &Type) -> FunctionResult<Value> {
    let (map, map_marks) = args[0].clone().unmark();
    let (key, key_marks) = args[1].clone().unmark();
    let marks = map_marks.union(key_marks);
    let key = key
        .as_str()
        .ok_or_else(|| FunctionError::arg(1, "a known string is required"))?;
    if !map.is_known() {
        return Ok(Value::unknown(ret.clone()).mark(marks));
    }
    if let Some(found) = map.as_attributes().and_then(|a| a.get(key)) {
        return Ok(found.clone().mark(marks));
    }
    if let Some(default) = args.get(2) {
        let default = convert(default, ret).map_err(|e| FunctionError::call(e.message))?;
        return Ok(default.mark(marks));
    }
    Err(FunctionError::call(format!(
        "lookup failed to find key {}",
        super::redact(key, key_marks)
    )))
}

// ----- matchkeys -----

fn matchkeys_type(_: &CallContext<'_>, args: &[Value]) -> FunctionResult<Type> {
    if unify(&[args[1].ty().clone(), args[2].ty().clone()], true).is_none() {
        return Err(FunctionError::call(
            "keys and searchset must be of the same type",
        ));
    }
    Ok(args[0].ty().clone())
}

fn matchkeys(_: &CallContext<'_>, args: &[Value], ret: &Type) -> FunctionResult<Value> {
    let ety = ret.element_type().cloned().unwrap_or(Type::Dynamic);
    let values = &args[0];
    if elements(values).len() != elements(&args[1]).len() {
        return Err(FunctionError::call(
            "length of keys and values should be equal",
        ));
    }
    let Some(ty) = unify(&[args[1].ty().clone(), args[2].ty().clone()], true) else {
        return Err(FunctionError::call(
            "keys and searchset must be of the same type",
        ));
    };
    let keys = convert(&args[1], &ty).map_err(|e| FunctionError::call(e.message))?;
    let searchset = convert(&args[2], &ty).map_err(|e| FunctionError::call(e.message))?;
    if elements(&searchset).is_empty() {
        return Ok(Value::list(ety, Vec::new()));
    }
    if !values.is_wholly_known() || !keys.is_wholly_known() {
        return Ok(Value::unknown(ret.clone()));
    }
    let mut output = Vec::new();
    for (i, key) in elements(&keys).iter().enumerate() {
        for search in elements(&searchset) {
            let eq = equal(key, search);
            if !eq.is_known() {
                return Ok(Value::list(ety, Vec::new()));
            }
            if is_true(&eq) {
                if let Some(v) = elements(values).get(i) {
                    output.push(v.clone());
                }
                break;
            }
        }
    }
    Ok(Value::list(ety, output))
}

// ----- merge -----

fn merge_type(_: &CallContext<'_>, args: &[Value]) -> FunctionResult<Type> {
    if args.is_empty() {
        return Ok(Type::empty_object());
    }
    let mut attrs: BTreeMap<String, Type> = BTreeMap::new();
    let mut first: Option<&Type> = None;
    let mut matching = true;
    let mut attrs_known = true;
    for arg in args {
        let ty = arg.ty();
        if ty.is_dynamic() {
            return Ok(Type::Dynamic);
        }
        if !ty.is_map() && !ty.is_object() {
            return Err(FunctionError::call(format!(
                "arguments must be maps or objects, got {}",
                gostr::quote(&ty.friendly_name())
            )));
        }
        let (arg, _) = arg.clone().unmark();
        match ty {
            Type::Object(o) if !arg.is_null() => {
                attrs.extend(o.attributes.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
            Type::Map(e) if !arg.is_null() => match arg.as_attributes() {
                Some(entries) => attrs.extend(entries.keys().map(|k| (k.clone(), (**e).clone()))),
                None => attrs_known = false,
            },
            _ => {}
        }
        match first {
            None => first = Some(ty),
            Some(f) if f != ty => matching = false,
            Some(_) => {}
        }
    }
    if matching {
        return Ok(first.cloned().unwrap_or_else(Type::empty_object));
    }
    if !attrs_known {
        return Ok(Type::Dynamic);
    }
    Ok(Type::object(attrs))
}

fn merge(_: &CallContext<'_>, args: &[Value], ret: &Type) -> FunctionResult<Value> {
    let mut output: BTreeMap<String, Value> = BTreeMap::new();
    let mut marks = Marks::NONE;
    for arg in args {
        if arg.is_null() {
            continue;
        }
        let (arg, m) = arg.clone().unmark();
        marks = marks.union(m);
        if let Some(entries) = arg.as_attributes() {
            output.extend(entries.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
    }
    match ret {
        Type::Map(e) => Ok(Value::map((**e).clone(), output).mark(marks)),
        _ => Ok(Value::object(output).mark(marks)),
    }
}

// ----- one -----

const ONE_ERROR: &str = "must be a list, set, or tuple value with either zero or one elements";

fn one_type(_: &CallContext<'_>, args: &[Value]) -> FunctionResult<Type> {
    match args[0].ty() {
        Type::List(e) | Type::Set(e) => Ok((**e).clone()),
        Type::Tuple(etys) if etys.is_empty() => Ok(Type::Dynamic),
        Type::Tuple(etys) if etys.len() == 1 => Ok(etys[0].clone()),
        _ => Err(FunctionError::arg(0, ONE_ERROR)),
    }
}

fn one(_: &CallContext<'_>, args: &[Value], ret: &Type) -> FunctionResult<Value> {
    let val = &args[0];
    if val.ty().is_collection() {
        let len = val.length().map_err(value_error)?;
        if !len.is_known() {
            return Ok(Value::unknown(ret.clone()));
        }
    }
    match elements(val) {
        [] => Ok(Value::null(ret.clone())),
        [only] => Ok(only.clone()),
        _ => Err(FunctionError::arg(0, ONE_ERROR)),
    }
}

// ----- range -----

/// cty's `range`, including that a zero step is not rejected up front (its
/// check compares against one particular zero value) and so runs into the
/// 1024-element limit instead.
fn range(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let nums: Vec<&Number> = (0..args.len())
        .map(|i| number_arg(args, i))
        .collect::<Result<_, _>>()?;
    let zero = Number::zero();
    let one = Number::from_i64(1);
    let minus_one = Number::from_i64(-1);
    let (start, end, step) = match nums.as_slice() {
        [end] => {
            let step = if Number::cmp(end, &zero).is_lt() {
                minus_one
            } else {
                one
            };
            (zero.clone(), (*end).clone(), step)
        }
        [start, end] => {
            let step = if Number::cmp(end, start).is_lt() {
                minus_one
            } else {
                one
            };
            ((*start).clone(), (*end).clone(), step)
        }
        [start, end, step] => ((*start).clone(), (*end).clone(), (*step).clone()),
        _ => {
            return Err(FunctionError::call(
                "must have one, two, or three arguments",
            ))
        }
    };
    let down = step.cmp(&zero).is_lt();
    if down && end.cmp(&start).is_gt() {
        return Err(FunctionError::arg(
            1,
            "end must be less than start when step is negative",
        ));
    }
    if !down && end.cmp(&start).is_lt() {
        return Err(FunctionError::arg(
            1,
            "end must be greater than start when step is positive",
        ));
    }
    let mut vals = Vec::new();
    let mut num = start;
    loop {
        let done = if down {
            num.cmp(&end).is_le()
        } else {
            num.cmp(&end).is_ge()
        };
        if done {
            break;
        }
        if vals.len() >= 1024 {
            return Err(FunctionError::call(
                "more than 1024 values were generated; either decrease the difference between start and end or use a smaller step",
            ));
        }
        let next = num
            .add(&step)
            .map_err(|_| FunctionError::call("can't compute sum of opposing infinities"))?;
        vals.push(Value::number(num));
        num = next;
    }
    Ok(Value::list(Type::Number, vals))
}

// ----- reverse, slice -----

fn reverse_type(_: &CallContext<'_>, args: &[Value]) -> FunctionResult<Type> {
    match args[0].ty() {
        Type::Tuple(etys) => Ok(Type::tuple(etys.iter().rev().cloned().collect())),
        Type::List(e) | Type::Set(e) => Ok(Type::list((**e).clone())),
        other => Err(FunctionError::arg(
            0,
            format!(
                "can only reverse list or tuple values, not {}",
                other.friendly_name()
            ),
        )),
    }
}

fn reverse(_: &CallContext<'_>, args: &[Value], ret: &Type) -> FunctionResult<Value> {
    let (list, marks) = args[0].clone().unmark();
    let vals: Vec<Value> = elements(&list).iter().rev().cloned().collect();
    match ret {
        Type::List(e) => Ok(Value::list((**e).clone(), vals).mark(marks)),
        _ => Ok(Value::tuple(vals).mark(marks)),
    }
}

/// cty's `sliceIndexes`: the validated indexes, or `None` while either is
/// unknown.
fn slice_indexes(args: &[Value]) -> FunctionResult<Option<(usize, usize)>> {
    let list = args[0].clone().unmark().0;
    let length = if list.ty().is_tuple() || list.length().is_ok_and(|l| l.is_known()) {
        list.length_int()
    } else {
        None
    };
    let mut start = None;
    if let Some(n) = args[1].as_number() {
        let i = whole_number(n)
            .map_err(|m| FunctionError::arg(1, format!("invalid start index: {m}")))?;
        if i < 0 {
            return Err(FunctionError::arg(
                1,
                "start index must not be less than zero",
            ));
        }
        if length.is_some_and(|l| i as u64 > l as u64) {
            return Err(FunctionError::arg(
                1,
                "start index must not be greater than the length of the list",
            ));
        }
        start = Some(i as usize);
    }
    let mut end = None;
    if let Some(n) = args[2].as_number() {
        let i = whole_number(n)
            .map_err(|m| FunctionError::arg(2, format!("invalid end index: {m}")))?;
        if i < 0 {
            return Err(FunctionError::arg(
                2,
                "end index must not be less than zero",
            ));
        }
        if length.is_some_and(|l| i as u64 > l as u64) {
            return Err(FunctionError::arg(
                2,
                "end index must not be greater than the length of the list",
            ));
        }
        end = Some(i as usize);
    }
    match (start, end) {
        (Some(s), Some(e)) if s > e => Err(FunctionError::arg(
            1,
            "start index must not be greater than end index",
        )),
        (Some(s), Some(e)) => Ok(Some((s, e))),
        _ => Ok(None),
    }
}

fn slice_type(_: &CallContext<'_>, args: &[Value]) -> FunctionResult<Type> {
    let ty = args[0].ty();
    if ty.is_set() {
        return Err(FunctionError::arg(
            0,
            "cannot slice a set, because its elements do not have indices; explicitly convert to a list if the ordering of the result is not important",
        ));
    }
    if !ty.is_list() && !ty.is_tuple() {
        return Err(FunctionError::arg(0, "must be a list or tuple value"));
    }
    let indexes = slice_indexes(args)?;
    if ty.is_list() {
        return Ok(ty.clone());
    }
    match (indexes, ty.tuple_elements()) {
        (Some((s, e)), Some(etys)) => Ok(Type::tuple(etys[s..e].to_vec())),
        _ => Ok(Type::Dynamic),
    }
}

fn slice(_: &CallContext<'_>, args: &[Value], ret: &Type) -> FunctionResult<Value> {
    let (list, marks) = args[0].clone().unmark();
    if ret.is_dynamic() {
        return Ok(Value::dynamic().mark(marks));
    }
    let Some((start, end)) = slice_indexes(args)? else {
        return Ok(Value::unknown(ret.clone()).mark(marks));
    };
    let vals = elements(&list)
        .get(start..end)
        .map(<[Value]>::to_vec)
        .unwrap_or_default();
    match ret {
        Type::List(e) => Ok(Value::list((**e).clone(), vals).mark(marks)),
        _ => Ok(Value::tuple(vals).mark(marks)),
    }
}

// ----- sets -----

/// cty's `setOperationReturnType`: a set of the unified element type, where
/// empty sets of unknown element type do not take part.
fn set_op_type(_: &CallContext<'_>, args: &[Value]) -> FunctionResult<Type> {
    let mut etys = Vec::new();
    for arg in args {
        let ety = arg.ty().element_type().cloned().unwrap_or(Type::Dynamic);
        if arg.is_known() && elements(arg).is_empty() && ety.is_dynamic() {
            continue;
        }
        etys.push(ety);
    }
    if etys.is_empty() {
        return Ok(Type::set(Type::Dynamic));
    }
    match unify(&etys, true) {
        Some(ety) => Ok(Type::set(ety)),
        None => Err(FunctionError::call(
            "given sets must all have compatible element types",
        )),
    }
}

/// Set membership as cty's sets decide it: equal, and known to be.
fn set_contains(elems: &[Value], v: &Value) -> bool {
    elems.iter().any(|e| is_true(&equal(e, v)))
}

fn set_operation(
    args: &[Value],
    ret: &Type,
    allow_unknowns: bool,
    op: fn(Vec<Value>, &[Value]) -> Vec<Value>,
) -> FunctionResult<Value> {
    let ety = ret.element_type().cloned().unwrap_or(Type::Dynamic);
    let first = convert(&args[0], ret).map_err(|e| conversion_failed(0, e))?;
    if !allow_unknowns && !first.is_wholly_known() {
        return Ok(Value::unknown(ret.clone()));
    }
    let mut set = elements(&first).to_vec();
    for (i, arg) in args[1..].iter().enumerate() {
        let arg = convert(arg, ret).map_err(|e| conversion_failed(i + 1, e))?;
        if !allow_unknowns && !arg.is_wholly_known() {
            return Ok(Value::unknown(ret.clone()));
        }
        set = op(set, elements(&arg));
    }
    Ok(Value::set(ety, set))
}

fn setunion(_: &CallContext<'_>, args: &[Value], ret: &Type) -> FunctionResult<Value> {
    set_operation(args, ret, true, |mut set, other| {
        set.extend(other.iter().cloned());
        set
    })
}

fn setintersection(_: &CallContext<'_>, args: &[Value], ret: &Type) -> FunctionResult<Value> {
    set_operation(args, ret, false, |set, other| {
        set.into_iter().filter(|v| set_contains(other, v)).collect()
    })
}

fn setsubtract(_: &CallContext<'_>, args: &[Value], ret: &Type) -> FunctionResult<Value> {
    set_operation(args, ret, false, |set, other| {
        set.into_iter()
            .filter(|v| !set_contains(other, v))
            .collect()
    })
}

// ----- setproduct -----

fn setproduct_type(_: &CallContext<'_>, args: &[Value]) -> FunctionResult<Type> {
    if args.len() < 2 {
        return Err(FunctionError::call("at least two arguments are required"));
    }
    let mut list_count = 0;
    let mut etys = Vec::with_capacity(args.len());
    for (i, arg) in args.iter().enumerate() {
        match arg.ty() {
            Type::Set(e) => etys.push((**e).clone()),
            Type::List(e) => {
                etys.push((**e).clone());
                list_count += 1;
            }
            Type::Tuple(all) => {
                list_count += 1;
                if all.is_empty() {
                    etys.push(Type::Dynamic);
                } else {
                    let ety = unify(all, true).ok_or_else(|| {
                        FunctionError::arg(i, "all elements must be of the same type")
                    })?;
                    etys.push(ety);
                }
            }
            _ => return Err(FunctionError::arg(i, "a set or a list is required")),
        }
    }
    if list_count == args.len() {
        Ok(Type::list(Type::tuple(etys)))
    } else {
        Ok(Type::set(Type::tuple(etys)))
    }
}

fn setproduct(_: &CallContext<'_>, args: &[Value], ret: &Type) -> FunctionResult<Value> {
    let ety = ret.element_type().cloned().unwrap_or(Type::Dynamic);
    let mut marks = Marks::NONE;
    let mut unmarked = Vec::with_capacity(args.len());
    let mut total: usize = 1;
    let mut unknown_length = false;
    for arg in args {
        let (arg, m) = arg.clone().unmark();
        marks = marks.union(m);
        if !(arg.is_known() && arg.length().is_ok_and(|l| l.is_known())) {
            unknown_length = true;
        } else {
            total = total.saturating_mul(arg.length_int().unwrap_or(0));
        }
        unmarked.push(arg);
    }

    if unknown_length {
        let result = Value::unknown(ret.clone());
        // Bound the result's length when the inputs are small enough that
        // the bound is useful.
        let mut max_length: u64 = 1;
        for arg in &unmarked {
            let arg_max = if arg.ty().is_collection() {
                arg.range().length_upper_bound()
            } else if let Some(t) = arg.ty().tuple_elements() {
                t.len() as u64
            } else {
                return Ok(result.mark(marks));
            };
            if arg_max > 1024 {
                return Ok(result.mark(marks));
            }
            max_length *= arg_max;
            if max_length > 2048 {
                return Ok(result.mark(marks));
            }
        }
        let refined = if max_length == 0 {
            result.refine().collection_length(0).new_value()
        } else {
            result
                .refine()
                .collection_length_lower_bound(1)
                .collection_length_upper_bound(max_length)
                .new_value()
        };
        return Ok(refined.mark(marks));
    }

    if total == 0 {
        return Ok(if ret.is_list() {
            Value::list(ety, Vec::new())
        } else {
            Value::set(ety, Vec::new())
        }
        .mark(marks));
    }

    let sub_etys = ety
        .tuple_elements()
        .map(<[Type]>::to_vec)
        .unwrap_or_default();
    let seqs: Vec<&[Value]> = unmarked.iter().map(elements).collect();
    let mut product = Vec::new();
    if product.try_reserve_exact(total).is_err() {
        return Err(FunctionError::call(
            "panic in function implementation: runtime error: out of memory",
        ));
    }
    let mut positions = vec![0usize; seqs.len()];
    for _ in 0..total {
        let mut tuple = Vec::with_capacity(seqs.len());
        for (j, &pos) in positions.iter().enumerate() {
            let val = seqs[j][pos].clone();
            let want = sub_etys.get(j).cloned().unwrap_or(Type::Dynamic);
            let val = if *val.ty() == want {
                val
            } else {
                convert(&val, &want).map_err(|e| FunctionError::call(e.message))?
            };
            tuple.push(val);
        }
        product.push(Value::tuple(tuple));
        for j in (0..positions.len()).rev() {
            positions[j] += 1;
            if positions[j] < seqs[j].len() {
                break;
            }
            positions[j] = 0;
        }
    }
    let result = if ret.is_list() {
        Value::list(ety, product)
    } else {
        Value::set(ety, product)
    };
    Ok(result.mark(marks))
}

// ----- sort, sum, transpose -----

fn sort(_: &CallContext<'_>, args: &[Value], ret: &Type) -> FunctionResult<Value> {
    let list = &args[0];
    if !list.is_wholly_known() {
        // The order is not known yet, but the length cannot change.
        return Ok(unknown_with_length_of(ret.clone(), list));
    }
    let mut strings = Vec::with_capacity(elements(list).len());
    for (i, v) in elements(list).iter().enumerate() {
        match v.as_str() {
            Some(s) => strings.push(s),
            None => {
                return Err(FunctionError::call(format!(
                    "given list element {i} is null; a null string cannot be sorted"
                )))
            }
        }
    }
    strings.sort_unstable();
    Ok(Value::list(
        Type::String,
        strings.into_iter().map(Value::string).collect(),
    ))
}

/// Terraform's `sum`, over a list, set or tuple of numbers (or values that
/// convert to numbers).
fn sum(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let list = &args[0];
    let ty = list.ty();
    if !list.can_iterate_elements() {
        return Err(FunctionError::arg(0, "cannot sum noniterable"));
    }
    if list.length_int() == Some(0) {
        return Err(FunctionError::arg(0, "cannot sum an empty list"));
    }
    if !ty.is_list() && !ty.is_set() && !ty.is_tuple() {
        return Err(FunctionError::arg(
            0,
            format!(
                "argument must be list, set, or tuple. Received {}",
                ty.friendly_name()
            ),
        ));
    }
    if !list.is_wholly_known() {
        return Ok(Value::unknown(Type::Number));
    }
    let not_numbers =
        || FunctionError::arg(0, "argument must be list, set, or tuple of number values");
    let mut total: Option<Number> = None;
    for v in elements(list) {
        if v.is_null() {
            return Err(not_numbers());
        }
        let n = convert(v, &Type::Number).map_err(|_| not_numbers())?;
        let n = n.as_number().ok_or_else(not_numbers)?.clone();
        total = Some(match total {
            None => n,
            Some(t) => t
                .add(&n)
                .map_err(|_| FunctionError::call("can't compute sum of opposing infinities"))?,
        });
    }
    total
        .map(Value::number)
        .ok_or_else(|| FunctionError::arg(0, "cannot sum an empty list"))
}

/// Terraform's `transpose`: swaps keys and values of a map of lists of
/// strings; each new list is sorted.
fn transpose(_: &CallContext<'_>, args: &[Value], ret: &Type) -> FunctionResult<Value> {
    let input = &args[0];
    if !input.is_wholly_known() {
        return Ok(Value::unknown(ret.clone()));
    }
    let mut swapped: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (key, list) in input.as_attributes().into_iter().flatten() {
        if list.is_null() {
            return Err(FunctionError::call("input must not contain null list"));
        }
        for v in elements(list) {
            let Some(s) = v.as_str() else {
                return Err(FunctionError::call(
                    "input list must not contain null string",
                ));
            };
            swapped.entry(s.to_string()).or_default().push(key.clone());
        }
    }
    let result = swapped
        .into_iter()
        .map(|(k, mut ks)| {
            ks.sort_unstable();
            (
                k,
                Value::list(Type::String, ks.into_iter().map(Value::string).collect()),
            )
        })
        .collect();
    Ok(Value::map(Type::list(Type::String), result))
}

// ----- zipmap -----

fn zipmap_type(_: &CallContext<'_>, args: &[Value]) -> FunctionResult<Type> {
    let keys = &args[0];
    match args[1].ty() {
        Type::List(e) => Ok(Type::map((**e).clone())),
        Type::Tuple(etys) => {
            if !keys.is_wholly_known() {
                return Ok(Type::Dynamic);
            }
            let (keys, _) = keys.clone().unmark();
            let keys = elements(&keys);
            if keys.len() != etys.len() {
                return Err(FunctionError::call(format!(
                    "number of keys ({}) does not match number of values ({})",
                    keys.len(),
                    etys.len()
                )));
            }
            let mut attrs = BTreeMap::new();
            for (i, (key, ety)) in keys.iter().zip(etys.iter()).enumerate() {
                let key = key.clone().unmark().0;
                let Some(name) = key.as_str() else {
                    return Err(FunctionError::call(format!(
                        "keys list has null value at index {i}"
                    )));
                };
                attrs.insert(name.to_string(), ety.clone());
            }
            Ok(Type::object(attrs))
        }
        _ => Err(FunctionError::call(
            "values argument must be a list or tuple value",
        )),
    }
}

fn zipmap(_: &CallContext<'_>, args: &[Value], ret: &Type) -> FunctionResult<Value> {
    let (keys, key_marks) = args[0].clone().unmark();
    let (vals, val_marks) = args[1].clone().unmark();
    let mut marks = key_marks.union(val_marks);
    if !keys.is_wholly_known() {
        return Ok(Value::unknown(ret.clone()).mark(marks));
    }
    let keys = elements(&keys);
    let vals = elements(&vals);
    if keys.len() != vals.len() {
        return Err(FunctionError::call(format!(
            "number of keys ({}) does not match number of values ({})",
            keys.len(),
            vals.len()
        )));
    }
    let mut output = BTreeMap::new();
    for (key, val) in keys.iter().zip(vals.iter()) {
        let (key, m) = key.clone().unmark();
        marks = marks.union(m);
        let Some(name) = key.as_str() else {
            return Err(FunctionError::call(
                "panic in function implementation: value is null",
            ));
        };
        output.insert(name.to_string(), val.clone());
    }
    match ret {
        Type::Map(e) => Ok(Value::map((**e).clone(), output).mark(marks)),
        _ => Ok(Value::object(output).mark(marks)),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use terrace_value::{Marks, Refinement, Type, Value};

    fn ints(items: &[i64]) -> Vec<Value> {
        items.iter().map(|&i| Value::int(i)).collect()
    }

    fn int_tuple(items: &[i64]) -> Value {
        Value::tuple(ints(items))
    }

    fn int_list(items: &[i64]) -> Value {
        Value::list(Type::Number, ints(items))
    }

    fn bools(items: &[bool]) -> Value {
        Value::tuple(items.iter().map(|&b| Value::bool(b)).collect())
    }

    #[test]
    fn length() {
        call("length", vec![s("héllo👍🏽")], Ok(Value::int(6)));
        call("length", vec![int_tuple(&[1, 2])], Ok(Value::int(2)));
        call(
            "length",
            vec![obj(vec![("a", Value::int(1))])],
            Ok(Value::int(1)),
        );
        call(
            "length",
            vec![set_of(Type::Number, ints(&[1, 1]))],
            Ok(Value::int(1)),
        );
        call(
            "length",
            vec![sensitive(s("abc"))],
            Ok(sensitive(Value::int(3))),
        );
        call(
            "length",
            vec![Value::tuple(vec![sensitive(s("a"))])],
            Ok(Value::int(1)),
        );
        call(
            "length",
            vec![Value::int(1)],
            err_call("argument must be a string, a collection type, or a structural type"),
        );
        call(
            "length",
            vec![Value::bool(true)],
            err_call("argument must be a string, a collection type, or a structural type"),
        );
        call(
            "length",
            vec![Value::null(Type::String)],
            err_arg(0, "argument must not be null"),
        );
        call(
            "length",
            vec![Value::dynamic()],
            Ok(unknown_nn(Type::Number)),
        );
        call(
            "length",
            vec![unknown(Type::tuple(vec![Type::String]))],
            Ok(Value::int(1)),
        );
        let prefixed = Value::unknown_refined(
            Type::String,
            Refinement {
                not_null: true,
                string_prefix: Some("ab".into()),
                ..Refinement::default()
            },
        );
        let want = Value::unknown(Type::Number)
            .refine()
            .not_null()
            .number_range_lower_bound(&Value::int(2), true)
            .new_value();
        call("length", vec![prefixed], Ok(want));
    }

    #[test]
    fn alltrue_anytrue() {
        call("alltrue", vec![bools(&[true, true])], Ok(Value::bool(true)));
        call("alltrue", vec![Value::empty_tuple()], Ok(Value::bool(true)));
        call(
            "alltrue",
            vec![Value::tuple(vec![Value::bool(true), s("false")])],
            Ok(Value::bool(false)),
        );
        call(
            "alltrue",
            vec![Value::tuple(vec![
                Value::bool(true),
                Value::null(Type::Dynamic),
            ])],
            Ok(Value::bool(false)),
        );
        call(
            "alltrue",
            vec![str_tuple(&["x"])],
            err_arg(0, "a bool is required"),
        );
        call(
            "alltrue",
            vec![Value::tuple(vec![unknown(Type::Bool), Value::bool(false)])],
            Ok(unknown_nn(Type::Bool)),
        );
        call(
            "anytrue",
            vec![Value::tuple(vec![
                Value::bool(false),
                Value::null(Type::Dynamic),
            ])],
            Ok(Value::bool(false)),
        );
        call(
            "anytrue",
            vec![Value::empty_tuple()],
            Ok(Value::bool(false)),
        );
        call("anytrue", vec![str_tuple(&["true"])], Ok(Value::bool(true)));
        call(
            "anytrue",
            vec![Value::tuple(vec![unknown(Type::Bool), Value::bool(true)])],
            Ok(Value::bool(true)),
        );
        call(
            "anytrue",
            vec![Value::tuple(vec![unknown(Type::Bool), Value::bool(false)])],
            Ok(unknown_nn(Type::Bool)),
        );
    }

    #[test]
    fn chunklist() {
        let abc = str_tuple(&["a", "b", "c"]);
        let lst = |items: &[&str]| str_list(items);
        call(
            "chunklist",
            vec![abc.clone(), Value::int(2)],
            Ok(list_of(
                Type::list(Type::String),
                vec![lst(&["a", "b"]), lst(&["c"])],
            )),
        );
        call(
            "chunklist",
            vec![abc.clone(), Value::int(0)],
            Ok(list_of(
                Type::list(Type::String),
                vec![lst(&["a", "b", "c"])],
            )),
        );
        call(
            "chunklist",
            vec![abc.clone(), Value::int(-1)],
            err_call("the size argument must be positive"),
        );
        call(
            "chunklist",
            vec![Value::empty_tuple(), Value::int(2)],
            Ok(list_of(Type::list(Type::Dynamic), vec![])),
        );
        call(
            "chunklist",
            vec![Value::tuple(vec![s("a"), Value::int(1)]), Value::int(1)],
            Ok(list_of(
                Type::list(Type::String),
                vec![lst(&["a"]), lst(&["1"])],
            )),
        );
        call(
            "chunklist",
            vec![str_tuple(&["a"]), num("1.5")],
            err_call(&format!(
                "invalid size: {}",
                super::super::numeric::NOT_WHOLE_NUMBER
            )),
        );
        call(
            "chunklist",
            vec![sensitive(str_list(&["a"])), Value::int(1)],
            Ok(sensitive(list_of(
                Type::list(Type::String),
                vec![lst(&["a"])],
            ))),
        );
    }

    #[test]
    fn coalesce() {
        call("coalesce", vec![s(""), s("b")], Ok(s("b")));
        call(
            "coalesce",
            vec![Value::null(Type::Dynamic), s(""), s("")],
            err_call("no non-null, non-empty-string arguments"),
        );
        call("coalesce", vec![Value::int(1), s("a")], Ok(s("1")));
        call("coalesce", vec![s(""), Value::int(1)], Ok(s("1")));
        call(
            "coalesce",
            vec![int_tuple(&[1]), s("a")],
            err_call("all arguments must have the same type"),
        );
        call(
            "coalesce",
            vec![],
            err_call("all arguments must have the same type"),
        );
        call(
            "coalesce",
            vec![Value::null(Type::Dynamic)],
            err_call("no non-null, non-empty-string arguments"),
        );
        call(
            "coalesce",
            vec![unknown(Type::String), s("a")],
            Ok(unknown_nn(Type::String)),
        );
        call(
            "coalesce",
            vec![
                Value::null(Type::Number),
                Value::int(2),
                unknown(Type::Number),
            ],
            Ok(Value::int(2)),
        );
    }

    #[test]
    fn coalescelist() {
        call(
            "coalescelist",
            vec![Value::empty_tuple(), str_tuple(&["a"])],
            Ok(str_tuple(&["a"])),
        );
        call(
            "coalescelist",
            vec![Value::empty_tuple(), Value::empty_tuple()],
            err_call("no non-null arguments"),
        );
        call(
            "coalescelist",
            vec![
                list_of(Type::String, vec![]),
                Value::tuple(vec![Value::int(1), s("a")]),
            ],
            Ok(Value::tuple(vec![Value::int(1), s("a")])),
        );
        call(
            "coalescelist",
            vec![s("a")],
            err_call("coalescelist arguments must be lists or tuples"),
        );
        call(
            "coalescelist",
            vec![],
            err_call("at least one argument is required"),
        );
        call(
            "coalescelist",
            vec![Value::null(Type::Dynamic), int_tuple(&[1])],
            err_call("coalescelist arguments must be lists or tuples"),
        );
        call(
            "coalescelist",
            vec![unknown(Type::list(Type::String)), str_list(&["a"])],
            Ok(Value::dynamic()),
        );
        call(
            "coalescelist",
            vec![str_list(&["a"]), unknown(Type::list(Type::String))],
            Ok(str_list(&["a"])),
        );
        call(
            "coalescelist",
            vec![str_list(&["a"]), str_list(&["b"])],
            Ok(str_list(&["a"])),
        );
    }

    #[test]
    fn compact() {
        call(
            "compact",
            vec![Value::tuple(vec![
                s("a"),
                s(""),
                s("b"),
                Value::null(Type::Dynamic),
            ])],
            Ok(str_list(&["a", "b"])),
        );
        call("compact", vec![Value::empty_tuple()], Ok(str_list(&[])));
        call("compact", vec![str_tuple(&["", ""])], Ok(str_list(&[])));
        call(
            "compact",
            vec![Value::tuple(vec![s("a"), unknown(Type::String)])],
            Ok(unknown_nn(Type::list(Type::String))),
        );
    }

    #[test]
    fn concat() {
        call(
            "concat",
            vec![int_tuple(&[1]), str_tuple(&["a"])],
            Ok(Value::tuple(vec![Value::int(1), s("a")])),
        );
        call(
            "concat",
            vec![int_list(&[1]), str_list(&["a"])],
            Ok(str_list(&["1", "a"])),
        );
        call(
            "concat",
            vec![int_list(&[1]), int_list(&[2])],
            Ok(int_list(&[1, 2])),
        );
        call(
            "concat",
            vec![str_list(&["a"]), bools(&[true])],
            Ok(Value::tuple(vec![s("a"), Value::bool(true)])),
        );
        call(
            "concat",
            vec![],
            err_call("at least one argument is required"),
        );
        call(
            "concat",
            vec![s("a")],
            err_arg(0, "all arguments must be lists or tuples; got string"),
        );
        call(
            "concat",
            vec![int_tuple(&[1]), s("a")],
            err_arg(1, "all arguments must be lists or tuples; got string"),
        );
        call(
            "concat",
            vec![sensitive(int_list(&[1])), int_list(&[2])],
            Ok(sensitive(int_list(&[1, 2]))),
        );
        call(
            "concat",
            vec![unknown(Type::list(Type::Number)), int_tuple(&[1])],
            Ok(Value::dynamic()),
        );
    }

    #[test]
    fn contains() {
        call(
            "contains",
            vec![str_tuple(&["a", "b"]), s("b")],
            Ok(Value::bool(true)),
        );
        call(
            "contains",
            vec![int_tuple(&[1, 2]), s("1")],
            Ok(Value::bool(false)),
        );
        call(
            "contains",
            vec![set_of(Type::String, strs(&["a"])), s("a")],
            Ok(Value::bool(true)),
        );
        call(
            "contains",
            vec![obj(vec![("a", Value::int(1))]), Value::int(1)],
            err_call("argument must be list, tuple, or set"),
        );
        call(
            "contains",
            vec![s("abc"), s("a")],
            err_call("argument must be list, tuple, or set"),
        );
        call(
            "contains",
            vec![Value::empty_tuple(), Value::int(1)],
            Ok(Value::bool(false)),
        );
        call(
            "contains",
            vec![int_tuple(&[1]), Value::null(Type::Dynamic)],
            err_arg(1, "argument must not be null"),
        );
        call(
            "contains",
            vec![
                Value::tuple(vec![unknown(Type::Number), Value::int(2)]),
                Value::int(2),
            ],
            Ok(Value::bool(true)),
        );
        call(
            "contains",
            vec![
                Value::tuple(vec![unknown(Type::Number), Value::int(2)]),
                Value::int(3),
            ],
            Ok(unknown_nn(Type::Bool)),
        );
    }

    #[test]
    fn distinct() {
        call(
            "distinct",
            vec![str_tuple(&["a", "b", "a", "c"])],
            Ok(str_list(&["a", "b", "c"])),
        );
        call(
            "distinct",
            vec![Value::tuple(vec![Value::int(1), s("1")])],
            Ok(str_list(&["1"])),
        );
        call(
            "distinct",
            vec![Value::empty_tuple()],
            Ok(list_of(Type::Dynamic, vec![])),
        );
        call(
            "distinct",
            vec![Value::tuple(vec![
                int_tuple(&[1]),
                int_tuple(&[1]),
                int_tuple(&[2]),
            ])],
            Ok(list_of(
                Type::tuple(vec![Type::Number]),
                vec![int_tuple(&[1]), int_tuple(&[2])],
            )),
        );
        call(
            "distinct",
            vec![s("a")],
            err_arg(0, "list of any single type required"),
        );
        call(
            "distinct",
            vec![Value::tuple(vec![s("a"), unknown(Type::String)])],
            Ok(unknown_nn(Type::list(Type::String))),
        );
    }

    #[test]
    fn element() {
        let abc = || str_list(&["a", "b", "c"]);
        call("element", vec![abc(), Value::int(-1)], Ok(s("c")));
        call("element", vec![abc(), Value::int(4)], Ok(s("b")));
        call(
            "element",
            vec![str_tuple(&["a", "b", "c"]), Value::int(5)],
            Ok(s("c")),
        );
        call(
            "element",
            vec![str_tuple(&["a", "b", "c"]), Value::int(-1)],
            err_call("panic in function implementation: runtime error: index out of range [-1]"),
        );
        call(
            "element",
            vec![str_tuple(&["a", "b", "c"]), Value::int(-3)],
            Ok(s("a")),
        );
        call(
            "element",
            vec![Value::empty_tuple(), Value::int(0)],
            err_call("cannot use element function with an empty list"),
        );
        call(
            "element",
            vec![list_of(Type::String, vec![]), Value::int(0)],
            err_call("cannot use element function with an empty list"),
        );
        call(
            "element",
            vec![str_tuple(&["a"]), num("1.5")],
            err_call(&format!(
                "invalid index: {}",
                super::super::numeric::NOT_WHOLE_NUMBER
            )),
        );
        call(
            "element",
            vec![s("abc"), Value::int(0)],
            err_call("cannot read elements from string"),
        );
        call(
            "element",
            vec![obj(vec![("a", Value::int(1))]), Value::int(0)],
            err_call("cannot read elements from object"),
        );
        call(
            "element",
            vec![sensitive(abc()), Value::int(0)],
            Ok(sensitive(s("a"))),
        );
        call(
            "element",
            vec![str_tuple(&["a"]), unknown(Type::Number)],
            Ok(Value::dynamic()),
        );
        call(
            "element",
            vec![abc(), unknown(Type::Number)],
            Ok(unknown(Type::String)),
        );
    }

    #[test]
    fn flatten() {
        call(
            "flatten",
            vec![Value::tuple(vec![
                int_tuple(&[1, 2]),
                int_tuple(&[3]),
                Value::empty_tuple(),
                Value::tuple(vec![int_tuple(&[4])]),
            ])],
            Ok(int_tuple(&[1, 2, 3, 4])),
        );
        call(
            "flatten",
            vec![Value::tuple(vec![
                str_tuple(&["a"]),
                s("b"),
                set_of(Type::String, strs(&["c"])),
            ])],
            Ok(str_tuple(&["a", "b", "c"])),
        );
        call(
            "flatten",
            vec![s("a")],
            err_call("can only flatten lists, sets and tuples"),
        );
        call(
            "flatten",
            vec![Value::empty_tuple()],
            Ok(Value::empty_tuple()),
        );
        call(
            "flatten",
            vec![Value::tuple(vec![
                Value::null(Type::Dynamic),
                Value::tuple(vec![Value::null(Type::Dynamic)]),
            ])],
            Ok(Value::tuple(vec![
                Value::null(Type::Dynamic),
                Value::null(Type::Dynamic),
            ])),
        );
        call(
            "flatten",
            vec![Value::tuple(vec![
                sensitive(int_tuple(&[1])),
                int_tuple(&[2]),
            ])],
            Ok(sensitive(int_tuple(&[1, 2]))),
        );
        call(
            "flatten",
            vec![Value::tuple(vec![unknown(Type::list(Type::String))])],
            Ok(Value::dynamic()),
        );
    }

    #[test]
    fn index() {
        call(
            "index",
            vec![str_tuple(&["a", "b"]), s("b")],
            Ok(Value::int(1)),
        );
        call(
            "index",
            vec![str_tuple(&["a", "b"]), s("c")],
            err_call("item not found"),
        );
        call(
            "index",
            vec![Value::empty_tuple(), s("c")],
            err_call("cannot search an empty list"),
        );
        call(
            "index",
            vec![set_of(Type::String, strs(&["a"])), s("a")],
            err_call("argument must be a list or tuple"),
        );
        call(
            "index",
            vec![Value::tuple(vec![Value::int(1), s("1")]), s("1")],
            Ok(Value::int(1)),
        );
        call(
            "index",
            vec![Value::tuple(vec![unknown(Type::String), s("b")]), s("b")],
            Ok(unknown_nn(Type::Number)),
        );
    }

    #[test]
    fn keys_and_values() {
        call(
            "keys",
            vec![obj(vec![("b", Value::int(1)), ("a", Value::int(2))])],
            Ok(str_tuple(&["a", "b"])),
        );
        call(
            "keys",
            vec![map_of(
                Type::Number,
                vec![("b", Value::int(1)), ("a", Value::int(2))],
            )],
            Ok(str_list(&["a", "b"])),
        );
        call(
            "keys",
            vec![Value::empty_object()],
            Ok(Value::empty_tuple()),
        );
        call(
            "keys",
            vec![s("a")],
            err_arg(0, "must have map or object type"),
        );
        call(
            "keys",
            vec![int_tuple(&[1])],
            err_arg(0, "must have map or object type"),
        );
        call(
            "keys",
            vec![unknown(Type::object([("x".to_string(), Type::String)]))],
            Ok(str_tuple(&["x"])),
        );
        call(
            "keys",
            vec![unknown(Type::map(Type::String))],
            Ok(unknown_nn(Type::list(Type::String))),
        );
        call(
            "keys",
            vec![sensitive(map_of(
                Type::Number,
                vec![("a", sensitive(Value::int(1)))],
            ))],
            Ok(sensitive(str_list(&["a"]))),
        );
        call(
            "values",
            vec![obj(vec![("b", Value::int(1)), ("a", s("x"))])],
            Ok(Value::tuple(vec![s("x"), Value::int(1)])),
        );
        call(
            "values",
            vec![map_of(
                Type::Number,
                vec![("b", Value::int(1)), ("a", Value::int(2))],
            )],
            Ok(int_list(&[2, 1])),
        );
        call(
            "values",
            vec![Value::empty_object()],
            Ok(Value::empty_tuple()),
        );
        call(
            "values",
            vec![int_tuple(&[1])],
            err_call("values() requires a map as the first argument"),
        );
        call(
            "values",
            vec![sensitive(obj(vec![("a", Value::int(1))]))],
            Ok(sensitive(int_tuple(&[1]))),
        );
    }

    #[test]
    fn lookup() {
        let m = || map_of(Type::Number, vec![("a", Value::int(1))]);
        call(
            "lookup",
            vec![obj(vec![("a", Value::int(1))]), s("a")],
            Ok(Value::int(1)),
        );
        call(
            "lookup",
            vec![obj(vec![("a", Value::int(1))]), s("b")],
            err_arg(0, "the given object has no attribute \"b\""),
        );
        call(
            "lookup",
            vec![obj(vec![("a", Value::int(1))]), s("b"), s("x")],
            Ok(s("x")),
        );
        call(
            "lookup",
            vec![m(), s("b"), s("x")],
            err_arg(
                2,
                "the default value must have the same type as the map elements",
            ),
        );
        call(
            "lookup",
            vec![m(), s("b"), int_tuple(&[1])],
            err_arg(
                2,
                "the default value must have the same type as the map elements",
            ),
        );
        call("lookup", vec![m(), s("b"), s("2")], Ok(Value::int(2)));
        call(
            "lookup",
            vec![obj(vec![("a", s("x"))]), s("a"), Value::int(1)],
            Ok(s("x")),
        );
        call(
            "lookup",
            vec![int_tuple(&[1]), s("a")],
            err_arg(0, "lookup() requires a map as the first argument"),
        );
        call(
            "lookup",
            vec![m(), s("b"), s("c"), s("d")],
            err_call("lookup() takes two or three arguments, got 4"),
        );
        call(
            "lookup",
            vec![map_of(Type::String, vec![("a", s("x"))]), s("b")],
            err_call("lookup failed to find key \"b\""),
        );
        call(
            "lookup",
            vec![map_of(Type::String, vec![("a", s("x"))]), sensitive(s("b"))],
            err_call("lookup failed to find key (sensitive value)"),
        );
        call(
            "lookup",
            vec![
                map_of(Type::String, vec![("a", s("x"))]),
                s("b"),
                sensitive(s("y")),
            ],
            Ok(sensitive(s("y"))),
        );
        call(
            "lookup",
            vec![sensitive(m()), s("a")],
            Ok(sensitive(Value::int(1))),
        );
        call(
            "lookup",
            vec![obj(vec![("a", Value::int(1))]), unknown(Type::String)],
            Ok(Value::dynamic()),
        );
        call(
            "lookup",
            vec![m(), unknown(Type::String)],
            Ok(unknown(Type::Number)),
        );
    }

    #[test]
    fn matchkeys() {
        call(
            "matchkeys",
            vec![
                str_tuple(&["a", "b", "c"]),
                int_tuple(&[1, 2, 3]),
                int_tuple(&[1, 3]),
            ],
            Ok(str_list(&["a", "c"])),
        );
        call(
            "matchkeys",
            vec![
                str_tuple(&["a", "b"]),
                int_tuple(&[1, 2, 3]),
                int_tuple(&[1]),
            ],
            err_call("length of keys and values should be equal"),
        );
        call(
            "matchkeys",
            vec![
                str_tuple(&["a", "b"]),
                int_tuple(&[1, 2]),
                Value::empty_tuple(),
            ],
            Ok(str_list(&[])),
        );
        call(
            "matchkeys",
            vec![
                str_tuple(&["a", "b"]),
                int_tuple(&[1, 2]),
                str_tuple(&["1"]),
            ],
            Ok(str_list(&["a"])),
        );
        call(
            "matchkeys",
            vec![
                str_tuple(&["a"]),
                Value::tuple(vec![int_tuple(&[1])]),
                int_tuple(&[1]),
            ],
            err_call("keys and searchset must be of the same type"),
        );
        call(
            "matchkeys",
            vec![
                str_tuple(&["a", "b"]),
                Value::tuple(vec![unknown(Type::Number), Value::int(2)]),
                int_tuple(&[2]),
            ],
            Ok(unknown_nn(Type::list(Type::String))),
        );
    }

    #[test]
    fn merge() {
        call(
            "merge",
            vec![obj(vec![("a", Value::int(1))]), obj(vec![("b", s("x"))])],
            Ok(obj(vec![("a", Value::int(1)), ("b", s("x"))])),
        );
        call(
            "merge",
            vec![
                map_of(Type::Number, vec![("a", Value::int(1))]),
                map_of(Type::Number, vec![("b", Value::int(2))]),
            ],
            Ok(map_of(
                Type::Number,
                vec![("a", Value::int(1)), ("b", Value::int(2))],
            )),
        );
        call(
            "merge",
            vec![
                map_of(Type::Number, vec![("a", Value::int(1))]),
                obj(vec![("b", s("x"))]),
            ],
            Ok(obj(vec![("a", Value::int(1)), ("b", s("x"))])),
        );
        call("merge", vec![], Ok(Value::empty_object()));
        call(
            "merge",
            vec![obj(vec![("a", Value::int(1))]), s("b")],
            err_call("arguments must be maps or objects, got \"string\""),
        );
        call(
            "merge",
            vec![obj(vec![("a", Value::int(1))]), Value::null(Type::Dynamic)],
            Ok(obj(vec![("a", Value::int(1))])),
        );
        call(
            "merge",
            vec![
                map_of(Type::Number, vec![("a", Value::int(1))]),
                int_tuple(&[1]),
            ],
            err_call("arguments must be maps or objects, got \"tuple\""),
        );
        call(
            "merge",
            vec![obj(vec![("a", Value::int(1))]), obj(vec![("a", s("z"))])],
            Ok(obj(vec![("a", s("z"))])),
        );
        call(
            "merge",
            vec![
                sensitive(obj(vec![("a", Value::int(1))])),
                obj(vec![("b", Value::int(2))]),
            ],
            Ok(sensitive(obj(vec![
                ("a", Value::int(1)),
                ("b", Value::int(2)),
            ]))),
        );
        call(
            "merge",
            vec![
                obj(vec![("a", Value::int(1))]),
                unknown(Type::map(Type::String)),
            ],
            Ok(Value::dynamic()),
        );
    }

    #[test]
    fn one() {
        call(
            "one",
            vec![Value::empty_tuple()],
            Ok(Value::null(Type::Dynamic)),
        );
        call("one", vec![str_tuple(&["a"])], Ok(s("a")));
        call(
            "one",
            vec![str_tuple(&["a", "b"])],
            err_arg(0, super::ONE_ERROR),
        );
        call(
            "one",
            vec![set_of(Type::String, vec![])],
            Ok(Value::null(Type::String)),
        );
        call(
            "one",
            vec![list_of(Type::String, vec![])],
            Ok(Value::null(Type::String)),
        );
        call("one", vec![s("a")], err_arg(0, super::ONE_ERROR));
        call(
            "one",
            vec![str_list(&["a", "b"])],
            err_arg(0, super::ONE_ERROR),
        );
        call(
            "one",
            vec![set_of(Type::String, vec![unknown(Type::String)])],
            Ok(unknown(Type::String)),
        );
        call(
            "one",
            vec![set_of(Type::String, vec![unknown(Type::String), s("a")])],
            Ok(unknown(Type::String)),
        );
    }

    #[test]
    fn range() {
        call("range", vec![Value::int(3)], Ok(int_list(&[0, 1, 2])));
        call("range", vec![Value::int(-3)], Ok(int_list(&[0, -1, -2])));
        call(
            "range",
            vec![Value::int(1), Value::int(4)],
            Ok(int_list(&[1, 2, 3])),
        );
        call(
            "range",
            vec![Value::int(4), Value::int(1)],
            Ok(int_list(&[4, 3, 2])),
        );
        call(
            "range",
            vec![Value::int(0), Value::int(1), num("0.25")],
            Ok(list_of(
                Type::Number,
                vec![Value::int(0), num("0.25"), num("0.5"), num("0.75")],
            )),
        );
        call(
            "range",
            vec![Value::int(1), Value::int(0), num("0.5")],
            err_arg(1, "end must be greater than start when step is positive"),
        );
        call(
            "range",
            vec![Value::int(0), Value::int(1), Value::int(-1)],
            err_arg(1, "end must be less than start when step is negative"),
        );
        let too_many = "more than 1024 values were generated; either decrease the difference between start and end or use a smaller step";
        call(
            "range",
            vec![Value::int(0), Value::int(1), Value::int(0)],
            err_call(too_many),
        );
        call("range", vec![Value::int(2000)], err_call(too_many));
        call("range", vec![Value::int(0)], Ok(int_list(&[])));
        call(
            "range",
            vec![],
            err_call("must have one, two, or three arguments"),
        );
        call(
            "range",
            vec![Value::int(1); 4],
            err_call("must have one, two, or three arguments"),
        );
        call("range", vec![num("0.5")], Ok(int_list(&[0])));
        call(
            "range",
            vec![Value::int(1), Value::int(1)],
            Ok(int_list(&[])),
        );
    }

    #[test]
    fn reverse() {
        call(
            "reverse",
            vec![Value::tuple(vec![Value::int(1), s("a")])],
            Ok(Value::tuple(vec![s("a"), Value::int(1)])),
        );
        call(
            "reverse",
            vec![str_list(&["a", "b"])],
            Ok(str_list(&["b", "a"])),
        );
        call(
            "reverse",
            vec![set_of(Type::String, strs(&["b", "a"]))],
            Ok(str_list(&["b", "a"])),
        );
        call(
            "reverse",
            vec![s("ab")],
            err_arg(0, "can only reverse list or tuple values, not string"),
        );
        call(
            "reverse",
            vec![Value::empty_tuple()],
            Ok(Value::empty_tuple()),
        );
        call(
            "reverse",
            vec![sensitive(str_list(&["a", "b"]))],
            Ok(sensitive(str_list(&["b", "a"]))),
        );
    }

    #[test]
    fn set_operations() {
        let set = |items: &[&str]| set_of(Type::String, strs(items));
        call(
            "setintersection",
            vec![set(&["a", "b"]), set(&["b", "c"])],
            Ok(set(&["b"])),
        );
        call(
            "setintersection",
            vec![str_tuple(&["a", "b"]), str_tuple(&["b"])],
            Ok(set(&["b"])),
        );
        call(
            "setintersection",
            vec![int_tuple(&[1]), str_tuple(&["1"])],
            Ok(set(&["1"])),
        );
        call("setintersection", vec![set(&["a"])], Ok(set(&["a"])));
        call(
            "setunion",
            vec![str_tuple(&["a"]), str_tuple(&["b"]), int_tuple(&[1])],
            Ok(set(&["1", "a", "b"])),
        );
        call("setunion", vec![str_tuple(&["a"])], Ok(set(&["a"])));
        call(
            "setunion",
            vec![Value::tuple(vec![str_tuple(&["a"])]), str_tuple(&["b"])],
            err_call("given sets must all have compatible element types"),
        );
        call(
            "setunion",
            vec![Value::empty_tuple(), str_tuple(&["a"])],
            Ok(set(&["a"])),
        );
        call(
            "setunion",
            vec![s("a")],
            err_arg(0, "set of any single type required"),
        );
        call(
            "setsubtract",
            vec![str_tuple(&["a", "b"]), str_tuple(&["a"])],
            Ok(set(&["b"])),
        );
        call(
            "setsubtract",
            vec![Value::empty_tuple(), Value::empty_tuple()],
            Ok(set_of(Type::Dynamic, vec![])),
        );
        call(
            "setsubtract",
            vec![set(&["a", "b"]), set(&["c"])],
            Ok(set(&["a", "b"])),
        );
        call(
            "setsubtract",
            vec![
                set(&["a"]),
                set_of(Type::String, vec![unknown(Type::String)]),
            ],
            Ok(unknown_nn(Type::set(Type::String))),
        );
        call(
            "setunion",
            vec![
                set(&["a"]),
                set_of(Type::String, vec![unknown(Type::String)]),
            ],
            Ok(set_of(Type::String, vec![s("a"), unknown(Type::String)])),
        );
    }

    #[test]
    fn setproduct() {
        let pair = |a: &str, b: i64| Value::tuple(vec![s(a), Value::int(b)]);
        let pair_ty = Type::tuple(vec![Type::String, Type::Number]);
        call(
            "setproduct",
            vec![str_tuple(&["a", "b"]), int_tuple(&[1, 2])],
            Ok(list_of(
                pair_ty.clone(),
                vec![pair("a", 1), pair("a", 2), pair("b", 1), pair("b", 2)],
            )),
        );
        call(
            "setproduct",
            vec![set_of(Type::String, strs(&["a", "b"])), int_tuple(&[1, 2])],
            Ok(set_of(
                pair_ty.clone(),
                vec![pair("a", 1), pair("a", 2), pair("b", 1), pair("b", 2)],
            )),
        );
        call(
            "setproduct",
            vec![str_tuple(&["a"])],
            err_call("at least two arguments are required"),
        );
        call(
            "setproduct",
            vec![str_tuple(&["a"]), Value::empty_tuple()],
            Ok(list_of(
                Type::tuple(vec![Type::String, Type::Dynamic]),
                vec![],
            )),
        );
        call(
            "setproduct",
            vec![Value::empty_tuple(), set_of(Type::Dynamic, vec![])],
            Ok(set_of(
                Type::tuple(vec![Type::Dynamic, Type::Dynamic]),
                vec![],
            )),
        );
        call(
            "setproduct",
            vec![Value::tuple(vec![s("a"), Value::int(1)]), bools(&[true])],
            Ok(list_of(
                Type::tuple(vec![Type::String, Type::Bool]),
                vec![
                    Value::tuple(vec![s("a"), Value::bool(true)]),
                    Value::tuple(vec![s("1"), Value::bool(true)]),
                ],
            )),
        );
        call(
            "setproduct",
            vec![s("a"), str_tuple(&["b"])],
            err_arg(0, "a set or a list is required"),
        );
        call(
            "setproduct",
            vec![
                Value::tuple(vec![s("a"), int_tuple(&[1])]),
                str_tuple(&["b"]),
            ],
            err_arg(0, "all elements must be of the same type"),
        );
        let unknown_list = unknown(Type::list(Type::String));
        call(
            "setproduct",
            vec![sensitive(str_list(&["a"])), unknown_list],
            Ok(sensitive(unknown_nn(Type::list(Type::tuple(vec![
                Type::String,
                Type::String,
            ]))))),
        );
        let bounded = Value::unknown_refined(
            Type::list(Type::String),
            Refinement {
                not_null: true,
                length_upper: Some(3),
                ..Refinement::default()
            },
        );
        let want = Value::unknown(Type::list(Type::tuple(vec![Type::String, Type::String])))
            .refine()
            .not_null()
            .collection_length_lower_bound(1)
            .collection_length_upper_bound(6)
            .new_value();
        call("setproduct", vec![str_list(&["a", "b"]), bounded], Ok(want));
    }

    #[test]
    fn slice() {
        let abc = || str_tuple(&["a", "b", "c"]);
        call(
            "slice",
            vec![abc(), Value::int(1), Value::int(2)],
            Ok(str_tuple(&["b"])),
        );
        call(
            "slice",
            vec![str_list(&["a", "b", "c"]), Value::int(1), Value::int(3)],
            Ok(str_list(&["b", "c"])),
        );
        call(
            "slice",
            vec![str_tuple(&["a", "b"]), Value::int(2), Value::int(1)],
            err_arg(1, "start index must not be greater than end index"),
        );
        call(
            "slice",
            vec![str_tuple(&["a", "b"]), Value::int(-1), Value::int(1)],
            err_arg(1, "start index must not be less than zero"),
        );
        call(
            "slice",
            vec![str_tuple(&["a", "b"]), Value::int(0), Value::int(5)],
            err_arg(
                2,
                "end index must not be greater than the length of the list",
            ),
        );
        call(
            "slice",
            vec![str_tuple(&["a", "b"]), Value::int(3), Value::int(5)],
            err_arg(
                1,
                "start index must not be greater than the length of the list",
            ),
        );
        call(
            "slice",
            vec![set_of(Type::String, strs(&["a"])), Value::int(0), Value::int(1)],
            err_arg(0, "cannot slice a set, because its elements do not have indices; explicitly convert to a list if the ordering of the result is not important"),
        );
        call(
            "slice",
            vec![s("abc"), Value::int(0), Value::int(1)],
            err_arg(0, "must be a list or tuple value"),
        );
        call(
            "slice",
            vec![str_tuple(&["a"]), num("0.5"), Value::int(1)],
            err_arg(
                1,
                &format!(
                    "invalid start index: {}",
                    super::super::numeric::NOT_WHOLE_NUMBER
                ),
            ),
        );
        call(
            "slice",
            vec![
                Value::tuple(vec![s("a"), Value::int(1)]),
                Value::int(1),
                Value::int(1),
            ],
            Ok(Value::empty_tuple()),
        );
        call(
            "slice",
            vec![
                sensitive(str_list(&["a", "b"])),
                Value::int(0),
                Value::int(1),
            ],
            Ok(sensitive(str_list(&["a"]))),
        );
        call(
            "slice",
            vec![abc(), unknown(Type::Number), Value::int(1)],
            Ok(Value::dynamic()),
        );
        call(
            "slice",
            vec![str_list(&["a"]), unknown(Type::Number), Value::int(1)],
            Ok(unknown_nn(Type::list(Type::String))),
        );
    }

    #[test]
    fn sort() {
        call(
            "sort",
            vec![str_tuple(&["b", "a", "10", "9"])],
            Ok(str_list(&["10", "9", "a", "b"])),
        );
        call("sort", vec![int_tuple(&[3, 1])], Ok(str_list(&["1", "3"])));
        call("sort", vec![Value::empty_tuple()], Ok(str_list(&[])));
        call(
            "sort",
            vec![Value::tuple(vec![s("a"), Value::null(Type::Dynamic)])],
            err_call("given list element 1 is null; a null string cannot be sorted"),
        );
        let with_unknown = Value::tuple(vec![s("b"), unknown(Type::String)]);
        let want = Value::unknown(Type::list(Type::String))
            .refine()
            .not_null()
            .collection_length(2)
            .new_value();
        call("sort", vec![with_unknown], Ok(want));
        call(
            "sort",
            vec![sensitive(str_list(&["b", "a"]))],
            Ok(sensitive(str_list(&["a", "b"]))),
        );
    }

    #[test]
    fn sum() {
        call(
            "sum",
            vec![Value::tuple(vec![Value::int(1), num("2.5")])],
            Ok(num("3.5")),
        );
        call(
            "sum",
            vec![Value::empty_tuple()],
            err_arg(0, "cannot sum an empty list"),
        );
        call(
            "sum",
            vec![set_of(Type::Number, ints(&[1, 2]))],
            Ok(Value::int(3)),
        );
        call(
            "sum",
            vec![Value::tuple(vec![s("1"), Value::int(2)])],
            Ok(Value::int(3)),
        );
        call(
            "sum",
            vec![str_tuple(&["a"])],
            err_arg(0, "argument must be list, set, or tuple of number values"),
        );
        call(
            "sum",
            vec![Value::tuple(vec![Value::null(Type::Dynamic)])],
            err_arg(0, "argument must be list, set, or tuple of number values"),
        );
        call(
            "sum",
            vec![Value::int(1)],
            err_arg(0, "cannot sum noniterable"),
        );
        call(
            "sum",
            vec![obj(vec![("a", Value::int(1))])],
            err_arg(0, "argument must be list, set, or tuple. Received object"),
        );
        call(
            "sum",
            vec![map_of(Type::Number, vec![("a", Value::int(1))])],
            err_arg(
                0,
                "argument must be list, set, or tuple. Received map of number",
            ),
        );
        call(
            "sum",
            vec![Value::tuple(vec![num("+Inf"), num("-Inf")])],
            err_call("can't compute sum of opposing infinities"),
        );
        call(
            "sum",
            vec![Value::tuple(vec![Value::int(1), unknown(Type::Number)])],
            Ok(unknown_nn(Type::Number)),
        );
    }

    #[test]
    fn transpose() {
        let lst = |items: &[&str]| str_list(items);
        call(
            "transpose",
            vec![obj(vec![
                ("a", str_tuple(&["1", "2"])),
                ("b", str_tuple(&["2", "3"])),
            ])],
            Ok(map_of(
                Type::list(Type::String),
                vec![
                    ("1", lst(&["a"])),
                    ("2", lst(&["a", "b"])),
                    ("3", lst(&["b"])),
                ],
            )),
        );
        call(
            "transpose",
            vec![obj(vec![(
                "a",
                Value::tuple(vec![s("1"), Value::null(Type::Dynamic)]),
            )])],
            err_call("input list must not contain null string"),
        );
        call(
            "transpose",
            vec![obj(vec![("a", Value::null(Type::Dynamic))])],
            err_call("input must not contain null list"),
        );
        call(
            "transpose",
            vec![Value::empty_object()],
            Ok(map_of(Type::list(Type::String), vec![])),
        );
        call(
            "transpose",
            vec![obj(vec![("a", int_tuple(&[1]))])],
            Ok(map_of(Type::list(Type::String), vec![("1", lst(&["a"]))])),
        );
        call(
            "transpose",
            vec![obj(vec![("a", Value::tuple(vec![int_tuple(&[1])]))])],
            err_arg(0, "element \"a\": element 0: string required"),
        );
    }

    #[test]
    fn zipmap() {
        call(
            "zipmap",
            vec![str_tuple(&["a", "b"]), int_tuple(&[1, 2])],
            Ok(obj(vec![("a", Value::int(1)), ("b", Value::int(2))])),
        );
        call(
            "zipmap",
            vec![str_tuple(&["a", "b"]), int_list(&[1, 2])],
            Ok(map_of(
                Type::Number,
                vec![("a", Value::int(1)), ("b", Value::int(2))],
            )),
        );
        call(
            "zipmap",
            vec![str_tuple(&["a"]), int_tuple(&[1, 2])],
            err_call("number of keys (1) does not match number of values (2)"),
        );
        call(
            "zipmap",
            vec![str_tuple(&["a", "a"]), int_tuple(&[1, 2])],
            Ok(obj(vec![("a", Value::int(2))])),
        );
        call(
            "zipmap",
            vec![Value::empty_tuple(), Value::empty_tuple()],
            Ok(Value::empty_object()),
        );
        call(
            "zipmap",
            vec![str_tuple(&["a"]), s("x")],
            err_call("values argument must be a list or tuple value"),
        );
        call(
            "zipmap",
            vec![
                Value::tuple(vec![s("a"), Value::null(Type::Dynamic)]),
                int_tuple(&[1, 2]),
            ],
            err_call("keys list has null value at index 1"),
        );
        call(
            "zipmap",
            vec![
                Value::tuple(vec![s("a"), Value::null(Type::Dynamic)]),
                int_list(&[1, 2]),
            ],
            err_call("panic in function implementation: value is null"),
        );
        call(
            "zipmap",
            vec![Value::tuple(vec![sensitive(s("a"))]), int_list(&[1])],
            Ok(sensitive(map_of(Type::Number, vec![("a", Value::int(1))]))),
        );
        call(
            "zipmap",
            vec![Value::tuple(vec![unknown(Type::String)]), int_tuple(&[1])],
            Ok(Value::dynamic()),
        );
        call(
            "zipmap",
            vec![
                str_list(&["a"]),
                Value::tuple(vec![Value::int(1).mark(Marks::SENSITIVE)]),
            ],
            Ok(obj(vec![("a", sensitive(Value::int(1)))])),
        );
    }
}
