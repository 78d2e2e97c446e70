//! Default values for optional object attributes (HCL `typeexpr.Defaults`,
//! from `optional(type, default)` in type constraints). Terraform applies
//! them to a variable's value before converting it to the constraint, so
//! they see the value's own structure (tuples, objects) and fill in
//! attributes that are absent or null.

use crate::convert::{list_val, map_val, set_val};
use crate::types::Type;
use crate::unify::unify_inner;
use crate::value::Value;
use std::collections::BTreeMap;

/// The defaults for one level of a type constraint.
#[derive(Clone, Debug)]
pub struct TypeDefaults {
    /// The type constraint this level applies to.
    pub ty: Type,
    /// Default values of attributes of `ty` (an object type).
    pub defaults: BTreeMap<String, Value>,
    /// Defaults for nested levels: keyed by attribute name for objects, by
    /// decimal index for tuples, and by "" for the elements of lists, sets
    /// and maps.
    pub children: BTreeMap<String, TypeDefaults>,
}

impl TypeDefaults {
    pub fn new(ty: Type) -> TypeDefaults {
        TypeDefaults {
            ty,
            defaults: BTreeMap::new(),
            children: BTreeMap::new(),
        }
    }

    fn child_for_index(&self, i: usize) -> Option<&TypeDefaults> {
        if self.ty.is_tuple() {
            self.children.get(&i.to_string())
        } else {
            self.children.get("")
        }
    }

    fn child_for_key(&self, key: &str) -> Option<&TypeDefaults> {
        if self.ty.is_object() {
            self.children.get(key)
        } else {
            self.children.get("")
        }
    }
}

/// Fills in defaults throughout `value` (HCL `Defaults.Apply`). Unknown and
/// null values are left alone; lists and sets whose elements end up with
/// different types become tuples, maps become objects, as in HCL.
pub fn apply_defaults(value: &Value, defaults: &TypeDefaults) -> Value {
    if !value.is_known() || value.is_null() {
        return value.clone();
    }
    if defaults.defaults.is_empty() && defaults.children.is_empty() {
        return value.clone();
    }
    let (v, marks) = value.clone().unmark();
    let ty = v.ty.clone();
    let result = match &ty {
        Type::Set(_) | Type::List(_) | Type::Tuple(_) => {
            let ety = ty.element_type().cloned().unwrap_or(Type::Dynamic);
            let elems: Vec<Value> = v
                .as_elements()
                .unwrap_or(&[])
                .iter()
                .enumerate()
                .map(|(i, e)| match defaults.child_for_index(i) {
                    Some(child) => apply_defaults(e, child),
                    None => e.clone(),
                })
                .collect();
            match &ty {
                Type::Set(_) if elems.is_empty() => Value::set(ety, Vec::new()),
                Type::List(_) if elems.is_empty() => Value::list(ety, Vec::new()),
                Type::Set(_) => match unify_as_slice(&elems).and_then(set_val) {
                    Some(set) => set,
                    None => Value::tuple(elems),
                },
                Type::List(_) => match unify_as_slice(&elems).and_then(list_val) {
                    Some(list) => list,
                    None => Value::tuple(elems),
                },
                _ => Value::tuple(elems),
            }
        }
        Type::Object(_) | Type::Map(_) => {
            let mut values: BTreeMap<String, Value> = v
                .as_attributes()
                .map(|m| {
                    m.iter()
                        .map(|(k, e)| {
                            let e = match defaults.child_for_key(k) {
                                Some(child) => apply_defaults(e, child),
                                None => e.clone(),
                            };
                            (k.clone(), e)
                        })
                        .collect()
                })
                .unwrap_or_default();
            for (key, default) in &defaults.defaults {
                if values.get(key).is_none_or(Value::is_null) {
                    if let Some(child) = defaults.children.get(key) {
                        values.insert(key.clone(), apply_defaults(default, child));
                        continue;
                    }
                    values.insert(key.clone(), default.clone());
                }
                if default.range().definitely_not_null() {
                    if let Some(current) = values.get_mut(key) {
                        if !current.ty.is_dynamic() {
                            *current = current.clone().refine_not_null();
                        }
                    }
                }
            }
            match &ty {
                Type::Map(ety) if values.is_empty() => Value::map((**ety).clone(), BTreeMap::new()),
                Type::Map(_) => match unify_as_map(&values).and_then(map_val) {
                    Some(map) => map,
                    None => Value::object(values),
                },
                _ => Value::object(values),
            }
        }
        _ => v,
    };
    result.mark(marks)
}

/// HCL's `unifyAsSlice`: the elements converted to one unified type, or
/// None when they do not unify or a conversion fails.
fn unify_as_slice(values: &[Value]) -> Option<Vec<Value>> {
    let types: Vec<Type> = values.iter().map(|v| v.ty.clone()).collect();
    let (_, convs) = unify_inner(&types, true)?;
    values
        .iter()
        .zip(convs.iter())
        .map(|(v, c)| c.apply(v).ok())
        .collect()
}

fn unify_as_map(values: &BTreeMap<String, Value>) -> Option<BTreeMap<String, Value>> {
    let types: Vec<Type> = values.values().map(|v| v.ty.clone()).collect();
    let (_, convs) = unify_inner(&types, true)?;
    values
        .iter()
        .zip(convs.iter())
        .map(|((k, v), c)| c.apply(v).ok().map(|v| (k.clone(), v)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::convert;
    use crate::testutil::{render, ty, val};

    fn defaults(
        t: &str,
        values: &[(&str, &str)],
        children: Vec<(&str, TypeDefaults)>,
    ) -> TypeDefaults {
        TypeDefaults {
            ty: ty(t),
            defaults: values
                .iter()
                .map(|(k, v)| (k.to_string(), val(v)))
                .collect(),
            children: children
                .into_iter()
                .map(|(k, d)| (k.to_string(), d))
                .collect(),
        }
    }

    /// Each row: the constraint, its defaults, the given value, the value
    /// after defaults, and after conversion to the constraint. The final
    /// column (tf) is Terraform 1.11.4's value for a variable with that type
    /// and default, or a module input given that value.
    #[test]
    fn defaults_table() {
        let obj_a5 = || defaults("object({a=optional(number)})", &[("a", "5")], vec![]);
        let cases: Vec<(&str, TypeDefaults, &str, &str, &str)> = vec![
            (
                r#"object({a=optional(string)})"#,
                defaults("object({a=optional(string)})", &[("a", r#""d""#)], vec![]),
                "{}",
                r#"{a = "d"}"#,
                r#"{a = "d"}"#,
            ),
            (
                "object({a=optional(string),b=number})",
                defaults(
                    "object({a=optional(string),b=number})",
                    &[("a", r#""d""#)],
                    vec![],
                ),
                "{b = 1}",
                r#"{a = "d", b = 1}"#,
                r#"{a = "d", b = 1}"#,
            ),
            (
                "object({a=optional(list(string))})",
                defaults(
                    "object({a=optional(list(string))})",
                    &[("a", r#"["x"]"#)],
                    vec![],
                ),
                "{a = null}",
                r#"{a = ["x"]}"#,
                r#"{a = tolist(["x"])}"#,
            ),
            (
                "list(object({a=optional(number)}))",
                defaults(
                    "list(object({a=optional(number)}))",
                    &[],
                    vec![("", obj_a5())],
                ),
                "[{}, {a = 1}]",
                "[{a = 5}, {a = 1}]",
                "tolist([{a = 5}, {a = 1}])",
            ),
            (
                "map(object({a=optional(number),b=optional(string)}))",
                defaults(
                    "map(object({a=optional(number),b=optional(string)}))",
                    &[],
                    vec![(
                        "",
                        defaults(
                            "object({a=optional(number),b=optional(string)})",
                            &[("a", "5")],
                            vec![],
                        ),
                    )],
                ),
                "{k = {}}",
                "{k = {a = 5}}",
                "tomap({k = {a = 5, b = null(string)}})",
            ),
            (
                "object({o=optional(object({x=optional(number)}))})",
                defaults(
                    "object({o=optional(object({x=optional(number)}))})",
                    &[("o", "{}")],
                    vec![(
                        "o",
                        defaults("object({x=optional(number)})", &[("x", "1")], vec![]),
                    )],
                ),
                "{}",
                "{o = {x = 1}}",
                "{o = {x = 1}}",
            ),
            (
                "set(object({a=optional(number)}))",
                defaults(
                    "set(object({a=optional(number)}))",
                    &[],
                    vec![("", obj_a5())],
                ),
                "[{}, {a = 5}]",
                "[{a = 5}, {a = 5}]",
                "toset([{a = 5}])",
            ),
            (
                "list(object({a=optional(number),b=optional(string)}))",
                defaults(
                    "list(object({a=optional(number),b=optional(string)}))",
                    &[],
                    vec![(
                        "",
                        defaults(
                            "object({a=optional(number),b=optional(string)})",
                            &[("a", "5")],
                            vec![],
                        ),
                    )],
                ),
                r#"[{b = "x"}, {a = null}]"#,
                r#"[{a = 5, b = "x"}, {a = 5}]"#,
                r#"tolist([{a = 5, b = "x"}, {a = 5, b = null(string)}])"#,
            ),
            (
                "tuple([object({a=optional(string)}),string])",
                defaults(
                    "tuple([object({a=optional(string)}),string])",
                    &[],
                    vec![(
                        "0",
                        defaults("object({a=optional(string)})", &[("a", r#""t""#)], vec![]),
                    )],
                ),
                r#"[{}, "s"]"#,
                r#"[{a = "t"}, "s"]"#,
                r#"[{a = "t"}, "s"]"#,
            ),
            (
                "object({a=optional(map(object({b=optional(bool)})))})",
                defaults(
                    "object({a=optional(map(object({b=optional(bool)})))})",
                    &[("a", "{k = {}}")],
                    vec![(
                        "a",
                        defaults(
                            "map(object({b=optional(bool)}))",
                            &[],
                            vec![(
                                "",
                                defaults("object({b=optional(bool)})", &[("b", "true")], vec![]),
                            )],
                        ),
                    )],
                ),
                "{}",
                "{a = {k = {b = true}}}",
                "{a = tomap({k = {b = true}})}",
            ),
            (
                "list(object({a=optional(number)}))",
                defaults(
                    "list(object({a=optional(number)}))",
                    &[],
                    vec![("", obj_a5())],
                ),
                "tolist([{a = null(number)}, {a = 2}])",
                "tolist([{a = 5}, {a = 2}])",
                "tolist([{a = 5}, {a = 2}])",
            ),
            (
                "map(object({a=optional(number)}))",
                defaults(
                    "map(object({a=optional(number)}))",
                    &[],
                    vec![("", obj_a5())],
                ),
                "tomap({k = {a = null(number)}})",
                "tomap({k = {a = 5}})",
                "tomap({k = {a = 5}})",
            ),
            (
                "object({a=optional(string)})",
                defaults("object({a=optional(string)})", &[("a", r#""x""#)], vec![]),
                "{a = sensitive(null)}",
                r#"{a = "x"}"#,
                r#"{a = "x"}"#,
            ),
            (
                "list(object({a=optional(list(string))}))",
                defaults(
                    "list(object({a=optional(list(string))}))",
                    &[],
                    vec![(
                        "",
                        defaults(
                            "object({a=optional(list(string))})",
                            &[("a", r#"["d"]"#)],
                            vec![],
                        ),
                    )],
                ),
                r#"[{a = null}, {a = ["x", "y"]}]"#,
                r#"[{a = ["d"]}, {a = ["x", "y"]}]"#,
                r#"tolist([{a = tolist(["d"])}, {a = tolist(["x", "y"])}])"#,
            ),
        ];
        for (constraint, d, given, applied, converted) in cases {
            let v = apply_defaults(&val(given), &d);
            assert_eq!(render(&v), applied, "defaults for {constraint} on {given}");
            let c = convert(&v, &ty(constraint))
                .map(|v| render(&v))
                .unwrap_or_else(|e| format!("error: {e}"));
            assert_eq!(c, converted, "conversion to {constraint} of {applied}");
        }
    }

    #[test]
    fn defaults_edge_cases() {
        let d = defaults("object({a=optional(number)})", &[("a", "5")], vec![]);
        let lst = defaults(
            "list(object({a=optional(number)}))",
            &[],
            vec![("", d.clone())],
        );
        let cases: Vec<(&TypeDefaults, &str, &str)> = vec![
            // unknown and null values are left alone
            (
                &d,
                "unknown(object({a=number}))",
                "unknown(object({a=number}))",
            ),
            (&d, "null(object({a=number}))", "null(object({a=number}))"),
            // an unknown attribute is not replaced but is known not to be null
            (&d, "{a = unknown(number)}", "{a = unknown(number){!null}}"),
            (&d, "{a = ?}", "{a = ?}"),
            // marks stay where they were
            (&d, "sensitive({})", "sensitive({a = 5})"),
            (&d, "{a = sensitive(1)}", "{a = sensitive(1)}"),
            // defaults apply to maps given for objects too
            (&d, r#"tomap({b = "x"})"#, r#"tomap({a = "5", b = "x"})"#),
            (&d, "tomap({b = true})", "{a = 5, b = true}"),
            // lists whose elements no longer unify become tuples
            (
                &lst,
                "emptylist(object({a=number}))",
                "emptylist(object({a=number}))",
            ),
            (&lst, "tolist([{a = null(number)}])", "tolist([{a = 5}])"),
            (
                &lst,
                "toset([{a = null(number)}, {a = 5}])",
                "toset([{a = 5}])",
            ),
            (&lst, r#"[{a = null}, "x"]"#, r#"[{a = 5}, "x"]"#),
        ];
        for (d, given, expect) in cases {
            assert_eq!(
                render(&apply_defaults(&val(given), d)),
                expect,
                "apply_defaults({given})"
            );
        }
        let empty = TypeDefaults::new(Type::Dynamic);
        assert_eq!(render(&apply_defaults(&val("{}"), &empty)), "{}");
    }
}
