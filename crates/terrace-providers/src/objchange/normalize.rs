//! OpenTofu's `objchange.NormalizeObjectFromLegacySDK`: objects from
//! providers on the legacy SDK may represent nested blocks as null or
//! unknown, which no configuration can produce. They are rewritten so a
//! block collection is never null or unknown itself (an unknown becomes one
//! block of unknown attributes, as a dynamic block with an unknown
//! `for_each` decodes).

use super::proposed::nested_block_empty_value;
use super::walk::{attr, elements};
use crate::schema::{Block, NestedBlock, NestingMode};
use std::collections::BTreeMap;
use terrace_value::convert::PathStep;
use terrace_value::{Marks, Type, Value};

/// Normalizes `value` (of `schema`'s implied type) from a legacy-SDK
/// provider. Marks anywhere in the value are kept where their paths still
/// exist.
pub fn normalize_object_from_legacy_sdk(value: &Value, schema: &Block) -> Value {
    let mut marks = Vec::new();
    collect_marks(value, &mut Vec::new(), &mut marks);
    let (unmarked, _) = value.unmark_deep();
    let normalized = normalize(&unmarked, schema);
    if marks.is_empty() {
        return normalized;
    }
    apply_marks(&normalized, &mut Vec::new(), &marks)
}

fn normalize(value: &Value, schema: &Block) -> Value {
    if value.is_null() {
        return Value::null(schema.implied_type());
    }
    let mut values = BTreeMap::new();
    for (name, attribute) in &schema.attributes {
        values.insert(name.clone(), attr(value, name, &attribute.implied_type()));
    }
    for (name, block_s) in &schema.block_types {
        if schema.attributes.contains_key(name) {
            continue;
        }
        let lv = attr(value, name, &block_s.implied_type());
        // The legacy SDK never produces dynamically-typed attributes, so
        // such blocks come from another SDK and pass through untouched.
        if block_s.block.implied_type().has_dynamic_types() {
            values.insert(name.clone(), lv);
            continue;
        }
        let normalized = match block_s.nesting {
            NestingMode::Single | NestingMode::Group => normalize_single(&lv, block_s),
            NestingMode::List | NestingMode::Set => normalize_collection(&lv, block_s),
            // The legacy SDK has no map blocks.
            NestingMode::Map => lv,
        };
        values.insert(name.clone(), normalized);
    }
    Value::object(values)
}

fn normalize_single(value: &Value, block_s: &NestedBlock) -> Value {
    if !value.is_known() {
        return unknown_block_stub(&block_s.block);
    }
    if value.is_null() && block_s.nesting == NestingMode::Group {
        return nested_block_empty_value(block_s);
    }
    normalize(value, &block_s.block)
}

fn normalize_collection(value: &Value, block_s: &NestedBlock) -> Value {
    let ety = block_s.block.implied_type();
    let items: Vec<Value> = if !value.is_known() {
        vec![unknown_block_stub(&block_s.block)]
    } else {
        elements(value)
            .into_iter()
            .map(|(_, v)| normalize(&v, &block_s.block))
            .collect()
    };
    let items: Vec<Value> = items.into_iter().filter(|v| *v.ty() == ety).collect();
    if block_s.nesting == NestingMode::Set {
        Value::set(ety, items)
    } else {
        Value::list(ety, items)
    }
}

/// A known block whose leaf attributes are all unknown, standing for an
/// unknown block (OpenTofu's `unknownBlockStub`).
fn unknown_block_stub(schema: &Block) -> Value {
    let mut values = BTreeMap::new();
    for (name, attribute) in &schema.attributes {
        values.insert(name.clone(), Value::unknown(attribute.implied_type()));
    }
    for (name, block_s) in &schema.block_types {
        if schema.attributes.contains_key(name) {
            continue;
        }
        let ety = block_s.block.implied_type();
        let value = match block_s.nesting {
            NestingMode::Single | NestingMode::Group => unknown_block_stub(&block_s.block),
            NestingMode::List => Value::list(ety, vec![unknown_block_stub(&block_s.block)]),
            NestingMode::Set => Value::set(ety, vec![unknown_block_stub(&block_s.block)]),
            // A map of blocks cannot be unknown: its keys would be unknown.
            NestingMode::Map => Value::map(ety, BTreeMap::new()),
        };
        values.insert(name.clone(), value);
    }
    Value::object(values)
}

fn collect_marks(value: &Value, path: &mut Vec<PathStep>, out: &mut Vec<(Vec<PathStep>, Marks)>) {
    if !value.marks().is_empty() {
        out.push((path.clone(), value.marks()));
    }
    let is_object = value.ty().is_object();
    for (key, element) in elements(value) {
        path.push(step_for(is_object, key));
        collect_marks(&element, path, out);
        path.pop();
    }
}

fn step_for(is_object: bool, key: Value) -> PathStep {
    if is_object {
        PathStep::Attr(key.as_str().unwrap_or_default().to_string())
    } else {
        PathStep::Index(key)
    }
}

fn same_path(a: &[PathStep], b: &[PathStep]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| match (x, y) {
            (PathStep::Attr(x), PathStep::Attr(y)) => x == y,
            (PathStep::Index(x), PathStep::Index(y)) => x.raw_equals(y),
            _ => false,
        })
}

/// cty's `MarkWithPaths`: each recorded mark goes back on the value at
/// its path, if that path still exists.
fn apply_marks(value: &Value, path: &mut Vec<PathStep>, marks: &[(Vec<PathStep>, Marks)]) -> Value {
    let here = marks
        .iter()
        .filter(|(p, _)| same_path(p, path))
        .fold(Marks::NONE, |acc, (_, m)| acc.union(*m));
    let deeper = marks.iter().any(|(p, _)| p.len() > path.len());
    if !deeper || value.is_null() || !value.is_known() {
        return value.clone().mark(here);
    }
    let ty = value.ty().clone();
    let rebuilt = match &ty {
        Type::Object(_) => Value::object(
            elements(value)
                .into_iter()
                .map(|(k, v)| {
                    let name = k.as_str().unwrap_or_default().to_string();
                    path.push(PathStep::Attr(name.clone()));
                    let v = apply_marks(&v, path, marks);
                    path.pop();
                    (name, v)
                })
                .collect(),
        ),
        Type::Map(ety) => Value::map(
            (**ety).clone(),
            elements(value)
                .into_iter()
                .map(|(k, v)| {
                    let name = k.as_str().unwrap_or_default().to_string();
                    path.push(PathStep::Index(k));
                    let v = apply_marks(&v, path, marks);
                    path.pop();
                    (name, v)
                })
                .collect(),
        ),
        Type::List(_) | Type::Set(_) | Type::Tuple(_) => {
            let items: Vec<Value> = elements(value)
                .into_iter()
                .map(|(k, v)| {
                    path.push(PathStep::Index(k));
                    let v = apply_marks(&v, path, marks);
                    path.pop();
                    v
                })
                .collect();
            match &ty {
                Type::List(ety) => Value::list((**ety).clone(), items),
                Type::Set(ety) => Value::set((**ety).clone(), items),
                _ => Value::tuple(items),
            }
        }
        _ => value.clone(),
    };
    rebuilt.mark(here)
}
