//! Value and schema navigation shared by the objchange checks, with cty's
//! semantics (`Walk`, `Path.Apply`, `AttributeByPath`) but never panicking
//! on values that do not match the schema: a provider may send anything.

use crate::schema::{Attribute, AttributeType, Block, NestedAttributes};
use std::collections::BTreeMap;
use terrace_value::convert::PathStep;
use terrace_value::{Type, Value};

/// A schema that attribute paths can be resolved in: a block, or the
/// object of nested attributes (OpenTofu's `nestedSchema`).
#[derive(Clone, Copy)]
pub(crate) enum Nested<'a> {
    Block(&'a Block),
    Object(&'a NestedAttributes),
}

impl<'a> Nested<'a> {
    pub(crate) fn attribute_by_path(self, path: &[PathStep]) -> Option<&'a Attribute> {
        match self {
            Nested::Block(block) => block_attribute_by_path(block, path),
            Nested::Object(object) => object_attribute_by_path(object, path),
        }
    }
}

/// OpenTofu's `Block.AttributeByPath`: index steps are skipped, so a path
/// through a list of blocks still finds the attribute.
pub(crate) fn block_attribute_by_path<'a>(
    schema: &'a Block,
    path: &[PathStep],
) -> Option<&'a Attribute> {
    let mut block = schema;
    for (i, step) in path.iter().enumerate() {
        let PathStep::Attr(name) = step else {
            continue;
        };
        if let Some(attribute) = block.attributes.get(name) {
            return attribute_at(attribute, path, i);
        }
        match block.block_types.get(name) {
            Some(nested) => block = &nested.block,
            None => return None,
        }
    }
    None
}

/// OpenTofu's `Object.AttributeByPath`, which skips names it does not know
/// as well as index steps.
pub(crate) fn object_attribute_by_path<'a>(
    object: &'a NestedAttributes,
    path: &[PathStep],
) -> Option<&'a Attribute> {
    for (i, step) in path.iter().enumerate() {
        let PathStep::Attr(name) = step else {
            continue;
        };
        if let Some(attribute) = object.attributes.get(name) {
            return attribute_at(attribute, path, i);
        }
    }
    None
}

fn attribute_at<'a>(
    attribute: &'a Attribute,
    path: &[PathStep],
    i: usize,
) -> Option<&'a Attribute> {
    let more = i + 1 < path.len();
    match &attribute.ty {
        AttributeType::Nested(nested) if more => object_attribute_by_path(nested, &path[i + 1..]),
        _ if more => None,
        _ => Some(attribute),
    }
}

/// `value.GetAttr(name)` that answers a null of `fallback` when the value
/// is null or lacks the attribute, instead of failing.
pub(crate) fn attr(value: &Value, name: &str, fallback: &Type) -> Value {
    if value.is_null() {
        let ty = value.ty().attribute_type(name).unwrap_or(fallback).clone();
        return Value::null(ty);
    }
    value
        .get_attr(name)
        .unwrap_or_else(|_| Value::null(fallback.clone()))
}

/// The (key, element) pairs of a known, non-null collection, tuple or
/// object, as cty's `ElementIterator` gives them (sets keyed by their
/// elements). Marks on the container itself are ignored.
pub(crate) fn elements(value: &Value) -> Vec<(Value, Value)> {
    if value.is_null() || !value.is_known() {
        return Vec::new();
    }
    if let Some(items) = value.as_elements() {
        let is_set = value.ty().is_set();
        return items
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let key = if is_set {
                    e.clone()
                } else {
                    Value::int(i as i64)
                };
                (key, e.clone())
            })
            .collect();
    }
    if let Some(entries) = value.as_attributes() {
        return entries
            .iter()
            .map(|(k, e)| (Value::string(k), e.clone()))
            .collect();
    }
    Vec::new()
}

/// The elements of a map or object by key.
pub(crate) fn value_map(value: &Value) -> BTreeMap<String, Value> {
    if value.is_null() || !value.is_known() {
        return BTreeMap::new();
    }
    value
        .as_attributes()
        .map(terrace_value::Attrs::to_map)
        .unwrap_or_default()
}

/// `HasIndex(key).True()`.
pub(crate) fn has_index(value: &Value, key: &Value) -> bool {
    if value.is_null() {
        return false;
    }
    value
        .has_index(key)
        .ok()
        .and_then(|b| b.as_bool())
        .unwrap_or(false)
}

/// `Index(key)`, unknown of the element type (or dynamic) when it fails.
pub(crate) fn index(value: &Value, key: &Value) -> Value {
    value.index(key).unwrap_or_else(|_| {
        Value::unknown(value.ty().element_type().cloned().unwrap_or(Type::Dynamic))
    })
}

/// `LengthInt()` of a known collection, 0 otherwise.
pub(crate) fn length_int(value: &Value) -> usize {
    if value.is_null() || !value.is_known() {
        return 0;
    }
    value.length_int().unwrap_or(0)
}

/// Whether `Equals` is known to be true.
pub(crate) fn equals_true(a: &Value, b: &Value) -> bool {
    a.equals(b).as_bool() == Some(true)
}

/// What a walk callback wants next.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Walk {
    Descend,
    Skip,
    Stop,
}

/// cty's `Walk`: the value itself first, then (if the callback says so)
/// its attributes or elements, depth first. Returns false when stopped.
pub(crate) fn walk(value: &Value, cb: &mut dyn FnMut(&[PathStep], &Value) -> Walk) -> bool {
    walk_at(&mut Vec::new(), value, cb)
}

fn walk_at(
    path: &mut Vec<PathStep>,
    value: &Value,
    cb: &mut dyn FnMut(&[PathStep], &Value) -> Walk,
) -> bool {
    match cb(path, value) {
        Walk::Stop => return false,
        Walk::Skip => return true,
        Walk::Descend => {}
    }
    if value.is_null() || !value.is_known() {
        return true;
    }
    let is_object = value.ty().is_object();
    for (key, element) in elements(value) {
        let step = if is_object {
            PathStep::Attr(key.as_str().unwrap_or_default().to_string())
        } else {
            PathStep::Index(key)
        };
        path.push(step);
        let go_on = walk_at(path, &element, cb);
        path.pop();
        if !go_on {
            return false;
        }
    }
    true
}

/// cty's `Path.Apply`: None where cty reports an error.
pub(crate) fn apply_path(value: &Value, path: &[PathStep]) -> Option<Value> {
    let mut current = value.clone();
    for step in path {
        if current.is_null() {
            return None;
        }
        current = match step {
            PathStep::Attr(name) => {
                if !current.ty().is_object() || current.ty().attribute_type(name).is_none() {
                    return None;
                }
                current.get_attr(name).ok()?
            }
            PathStep::Index(key) => {
                let ty = current.ty().clone();
                if let Type::Set(ety) = &ty {
                    let present = current.has_element(key).ok()?;
                    let (present, marks) = present.unmark();
                    match present.as_bool() {
                        None => Value::unknown((**ety).clone()).mark(marks),
                        Some(false) => return None,
                        Some(true) => key.clone().mark(marks),
                    }
                } else {
                    match key.ty() {
                        Type::Number if ty.is_list() || ty.is_tuple() => {}
                        Type::String if ty.is_map() => {}
                        _ => return None,
                    }
                    let (has, _) = current.has_index(key).ok()?.unmark();
                    match has.as_bool() {
                        None => Value::unknown(ty.element_type().cloned().unwrap_or(Type::Dynamic)),
                        Some(false) => return None,
                        Some(true) => current.index(key).ok()?,
                    }
                }
            }
        };
    }
    Some(current)
}

/// OpenTofu's `unrefinedValue`: every unknown, at any depth, without its
/// refinements, so `raw_equals` compares only what is known.
pub(crate) fn unrefined(value: &Value) -> Value {
    if !value.is_known() {
        return Value::unknown(value.ty().clone()).mark(value.marks());
    }
    if value.is_null() {
        return value.clone();
    }
    let marks = value.marks();
    let ty = value.ty().clone();
    let rebuilt = match &ty {
        Type::List(ety) | Type::Set(ety) => {
            let items: Vec<Value> = value
                .as_elements()
                .unwrap_or_default()
                .iter()
                .map(unrefined)
                .collect();
            if ty.is_list() {
                Value::list((**ety).clone(), items)
            } else {
                Value::set((**ety).clone(), items)
            }
        }
        Type::Tuple(_) => Value::tuple(
            value
                .as_elements()
                .unwrap_or_default()
                .iter()
                .map(unrefined)
                .collect(),
        ),
        Type::Map(ety) => Value::map(
            (**ety).clone(),
            value
                .as_attributes()
                .map(|m| m.iter().map(|(k, v)| (k.clone(), unrefined(v))).collect())
                .unwrap_or_default(),
        ),
        Type::Object(_) => Value::object(
            value
                .as_attributes()
                .map(|m| m.iter().map(|(k, v)| (k.clone(), unrefined(v))).collect())
                .unwrap_or_default(),
        ),
        _ => return value.clone(),
    };
    rebuilt.mark(marks)
}

/// `a.RawEquals(b)` after stripping refinements from both.
pub(crate) fn unrefined_equal(a: &Value, b: &Value) -> bool {
    unrefined(a).raw_equals(&unrefined(b))
}

/// A list of `items`, or None when they do not all have one type (a list
/// cannot hold them; cty would panic).
pub(crate) fn list_of(items: Vec<Value>) -> Option<Value> {
    let ety = items.first()?.ty().clone();
    items
        .iter()
        .all(|v| *v.ty() == ety)
        .then(|| Value::list(ety, items))
}

/// A set of `items`, or None when they do not all have one type.
pub(crate) fn set_of(items: Vec<Value>) -> Option<Value> {
    let ety = items.first()?.ty().clone();
    items
        .iter()
        .all(|v| *v.ty() == ety)
        .then(|| Value::set(ety, items))
}

/// A map of `items`, or None when they do not all have one type.
pub(crate) fn map_of(items: BTreeMap<String, Value>) -> Option<Value> {
    let ety = items.values().next()?.ty().clone();
    items
        .values()
        .all(|v| *v.ty() == ety)
        .then(|| Value::map(ety, items))
}
