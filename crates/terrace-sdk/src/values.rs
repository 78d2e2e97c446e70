//! Walks over cty values that planning and applying need: replacing
//! unknowns, reading and writing object attributes, and the two checks
//! Terraform makes of every provider answer (a plan agrees with the
//! configuration, an applied state agrees with the plan).

use std::collections::BTreeMap;
use terrace_providers::AttributePath;
use terrace_value::{Type, Value};

/// The value with every unknown, at any depth, replaced by a null of its
/// type (cty's `UnknownAsNull`).
pub fn unknown_as_null(value: &Value) -> Value {
    if !value.is_known() {
        return Value::null(value.ty().clone());
    }
    if value.is_null() || value.is_wholly_known() {
        return value.clone();
    }
    map_children(value, unknown_as_null)
}

/// Rebuilds a known collection or structural value with `f` applied to
/// each element or attribute; other values are returned as they are.
pub fn map_children(value: &Value, f: impl Fn(&Value) -> Value) -> Value {
    let ty = value.ty();
    let rebuilt = match ty {
        Type::List(element) => value
            .as_elements()
            .map(|items| Value::list((**element).clone(), items.iter().map(&f).collect())),
        Type::Set(element) => value
            .as_elements()
            .map(|items| Value::set((**element).clone(), items.iter().map(&f).collect())),
        Type::Tuple(_) => value
            .as_elements()
            .map(|items| Value::tuple(items.iter().map(&f).collect())),
        Type::Map(element) => value.as_attributes().map(|entries| {
            Value::map(
                (**element).clone(),
                entries.iter().map(|(k, v)| (k.clone(), f(v))).collect(),
            )
        }),
        Type::Object(_) => value
            .as_attributes()
            .map(|entries| Value::object(entries.iter().map(|(k, v)| (k.clone(), f(v))).collect())),
        _ => None,
    };
    rebuilt.map_or_else(|| value.clone(), |v| v.with_marks(value.marks()))
}

/// The attributes of an object value of type `ty`: its own when known,
/// all null when it is null (or unknown).
pub fn attributes_of(value: &Value, ty: &Type) -> BTreeMap<String, Value> {
    if let Some(attributes) = value.as_attributes() {
        if value.ty().is_object() {
            return attributes.to_map();
        }
    }
    ty.object_type()
        .map(|object| {
            object
                .attributes
                .iter()
                .map(|(name, ty)| (name.clone(), Value::null(ty.clone())))
                .collect()
        })
        .unwrap_or_default()
}

/// One attribute of an object value, or a null when the object is null or
/// unknown or has no such attribute.
pub fn get_attr(object: &Value, name: &str) -> Value {
    object
        .as_attributes()
        .and_then(|attributes| attributes.get(name).cloned())
        .unwrap_or_else(|| {
            let ty = object
                .ty()
                .attribute_type(name)
                .cloned()
                .unwrap_or(Type::Dynamic);
            if object.is_known() {
                Value::null(ty)
            } else {
                Value::unknown(ty)
            }
        })
}

/// Whether two values are the same, marks aside.
pub fn same(a: &Value, b: &Value) -> bool {
    if a.is_known() != b.is_known() {
        return false;
    }
    if a.deep_marks().is_empty() && b.deep_marks().is_empty() {
        return a.raw_equals(b);
    }
    a.unmark_deep().0.raw_equals(&b.unmark_deep().0)
}

/// The places where an applied value disagrees with a planned one: every
/// known planned value must come back exactly, while unknown ones may
/// become anything of their type.
pub fn nonconforming_paths(planned: &Value, actual: &Value) -> Vec<AttributePath> {
    let mut found = Vec::new();
    collect_nonconforming(planned, actual, &AttributePath::root(), &mut found);
    found
}

fn collect_nonconforming(
    planned: &Value,
    actual: &Value,
    path: &AttributePath,
    found: &mut Vec<AttributePath>,
) {
    if !planned.is_known() {
        return;
    }
    if planned.is_null() || actual.is_null() || !actual.is_known() {
        if !(planned.is_null() && actual.is_null()) {
            found.push(path.clone());
        }
        return;
    }
    if planned.is_wholly_known() {
        if !same(planned, actual) {
            found.push(path.clone());
        }
        return;
    }
    match planned.ty() {
        Type::Object(_) | Type::Map(_) => {
            let (Some(p), Some(a)) = (planned.as_attributes(), actual.as_attributes()) else {
                found.push(path.clone());
                return;
            };
            if p.len() != a.len() || p.keys().any(|k| !a.contains_key(k)) {
                found.push(path.clone());
                return;
            }
            let is_object = planned.ty().is_object();
            for (key, p) in p {
                let step = if is_object {
                    path.clone().attribute(key)
                } else {
                    path.clone().key(key.clone())
                };
                collect_nonconforming(p, &a[key], &step, found);
            }
        }
        Type::List(_) | Type::Tuple(_) => {
            let (Some(p), Some(a)) = (planned.as_elements(), actual.as_elements()) else {
                found.push(path.clone());
                return;
            };
            if p.len() != a.len() {
                found.push(path.clone());
                return;
            }
            for (index, (p, a)) in p.iter().zip(a).enumerate() {
                let index = i64::try_from(index).unwrap_or(i64::MAX);
                collect_nonconforming(p, a, &path.clone().index(index), found);
            }
        }
        // Set elements with unknowns inside have no identity to match
        // them by; only their count can be held to the plan, and even
        // that not when unknowns may collapse into equal elements.
        _ => {}
    }
}

/// Converts an attribute path into the attribute-by-attribute form used
/// by diagnostics, for messages (`.a.b[0]`, or "the object" at the root).
pub fn describe_path(path: &AttributePath) -> String {
    if path.is_empty() {
        "the object".into()
    } else {
        path.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(entries: Vec<(&str, Value)>) -> Value {
        Value::object(
            entries
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        )
    }

    #[test]
    fn unknowns_become_nulls_at_any_depth() {
        let value = obj(vec![
            ("a", Value::unknown(Type::String)),
            (
                "l",
                Value::list(
                    Type::Number,
                    vec![Value::int(1), Value::unknown(Type::Number)],
                ),
            ),
            ("k", Value::string("x")),
        ]);
        let want = obj(vec![
            ("a", Value::null(Type::String)),
            (
                "l",
                Value::list(Type::Number, vec![Value::int(1), Value::null(Type::Number)]),
            ),
            ("k", Value::string("x")),
        ]);
        assert!(unknown_as_null(&value).raw_equals(&want));
        assert!(unknown_as_null(&Value::unknown(Type::Bool)).is_null());
    }

    #[test]
    fn conformance_of_applied_values() {
        let planned = obj(vec![
            ("id", Value::unknown(Type::String)),
            ("name", Value::string("a")),
            (
                "l",
                Value::list(
                    Type::String,
                    vec![Value::string("x"), Value::unknown(Type::String)],
                ),
            ),
        ]);
        let good = obj(vec![
            ("id", Value::string("1")),
            ("name", Value::string("a")),
            (
                "l",
                Value::list(Type::String, vec![Value::string("x"), Value::string("y")]),
            ),
        ]);
        assert!(nonconforming_paths(&planned, &good).is_empty());
        let bad = obj(vec![
            ("id", Value::string("1")),
            ("name", Value::string("b")),
            (
                "l",
                Value::list(Type::String, vec![Value::string("z"), Value::string("y")]),
            ),
        ]);
        let paths: Vec<String> = nonconforming_paths(&planned, &bad)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(paths, vec![".l[0]", ".name"]);
    }

    #[test]
    fn attributes_of_null_objects() {
        let ty = Type::object([("a".to_string(), Type::String)]);
        let attributes = attributes_of(&Value::null(ty.clone()), &ty);
        assert!(attributes["a"].is_null());
        assert!(get_attr(&Value::null(ty.clone()), "a").is_null());
        assert!(!get_attr(&Value::unknown(ty), "a").is_known());
    }
}
