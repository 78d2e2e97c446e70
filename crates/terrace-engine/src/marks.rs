//! Marks across the provider boundary: providers see unmarked values, so
//! the marks of a configuration value are taken off as paths before a
//! request and put back on the answer, together with the marks the schema
//! implies (`sensitive` attributes).

use std::collections::BTreeMap;
use terrace_providers::{Block, NestingMode};
use terrace_value::convert::PathStep;
use terrace_value::{Marks, Value};

pub(crate) type MarkPath = (Vec<PathStep>, Marks);

/// Every mark in `v` with the path to the value carrying it.
pub(crate) fn mark_paths(v: &Value) -> Vec<MarkPath> {
    let mut out = Vec::new();
    if !v.deep_marks().is_empty() {
        collect(v, &mut Vec::new(), &mut out);
    }
    out
}

fn collect(v: &Value, path: &mut Vec<PathStep>, out: &mut Vec<MarkPath>) {
    if v.is_marked() {
        out.push((path.clone(), v.marks()));
    }
    let ty = v.ty();
    if ty.is_object() || ty.is_map() {
        if let Some(attrs) = v.as_attributes() {
            for (k, e) in attrs.iter() {
                if e.deep_marks().is_empty() {
                    continue;
                }
                path.push(if ty.is_object() {
                    PathStep::Attr(k.clone())
                } else {
                    PathStep::Index(Value::string(k))
                });
                collect(e, path, out);
                path.pop();
            }
        }
    } else if ty.is_list() || ty.is_tuple() {
        if let Some(elems) = v.as_elements() {
            for (i, e) in elems.iter().enumerate() {
                if e.deep_marks().is_empty() {
                    continue;
                }
                path.push(PathStep::Index(Value::int(i as i64)));
                collect(e, path, out);
                path.pop();
            }
        }
    }
}

/// `v` without any marks, and the marks it had.
pub(crate) fn unmark(v: &Value) -> (Value, Vec<MarkPath>) {
    let paths = mark_paths(v);
    if paths.is_empty() {
        return (v.clone(), paths);
    }
    (v.unmark_deep().0, paths)
}

/// `v` with `paths` marked; paths that lead nowhere are ignored, a path
/// into a set marks the set.
pub(crate) fn apply_mark_paths(v: &Value, paths: &[MarkPath]) -> Value {
    let mut out = v.clone();
    for (p, m) in paths {
        out = out.mark_at_path(p, *m);
    }
    out
}

/// `v` (a value of `block`'s implied type) with every attribute the schema
/// declares sensitive marked so.
pub(crate) fn mark_schema_sensitive(block: &Block, v: &Value) -> Value {
    if !block.contains_sensitive() || v.is_null() || !v.is_known() {
        return v.clone();
    }
    let Some(attrs) = v.as_attributes() else {
        return v.clone();
    };
    let mut out: BTreeMap<String, Value> = attrs.to_map();
    for (name, a) in &block.attributes {
        if a.sensitive {
            if let Some(x) = out.get_mut(name) {
                *x = x.clone().mark(Marks::SENSITIVE);
            }
        }
    }
    for (name, nb) in &block.block_types {
        if !nb.block.contains_sensitive() {
            continue;
        }
        let Some(x) = out.get(name).cloned() else {
            continue;
        };
        if x.is_null() || !x.is_known() {
            continue;
        }
        let nx = match nb.nesting {
            NestingMode::Single | NestingMode::Group => mark_schema_sensitive(&nb.block, &x),
            NestingMode::Set => x.clone().mark(Marks::SENSITIVE),
            NestingMode::List => match (x.as_elements(), x.ty().element_type()) {
                (Some(es), Some(ety)) => Value::list(
                    ety.clone(),
                    es.iter()
                        .map(|e| mark_schema_sensitive(&nb.block, e))
                        .collect(),
                )
                .mark(x.marks()),
                (Some(es), None) => Value::tuple(
                    es.iter()
                        .map(|e| mark_schema_sensitive(&nb.block, e))
                        .collect(),
                )
                .mark(x.marks()),
                _ => x.clone(),
            },
            NestingMode::Map => match (x.as_attributes(), x.ty().element_type()) {
                (Some(es), Some(ety)) => Value::map(
                    ety.clone(),
                    es.iter()
                        .map(|(k, e)| (k.clone(), mark_schema_sensitive(&nb.block, e)))
                        .collect(),
                )
                .mark(x.marks()),
                (Some(es), None) => Value::object(
                    es.iter()
                        .map(|(k, e)| (k.clone(), mark_schema_sensitive(&nb.block, e)))
                        .collect(),
                )
                .mark(x.marks()),
                _ => x.clone(),
            },
        };
        out.insert(name.clone(), nx);
    }
    Value::object(out).mark(v.marks())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_round_trip_through_paths() {
        let inner = Value::object(BTreeMap::from([
            ("a".to_string(), Value::string("x").mark(Marks::SENSITIVE)),
            ("b".to_string(), Value::string("y")),
        ]));
        let v = Value::tuple(vec![Value::int(1), inner]);
        let (plain, paths) = unmark(&v);
        assert_eq!(paths.len(), 1);
        assert!(plain.deep_marks().is_empty());
        let back = apply_mark_paths(&plain, &paths);
        assert!(back.deep_marks().is_sensitive());
        let got = back
            .as_elements()
            .and_then(|e| e[1].as_attributes())
            .and_then(|a| a.get("a"))
            .cloned();
        assert!(got.is_some_and(|g| g.is_sensitive()));
    }
}
