//! OpenTofu's `objchange.AssertObjectCompatible`: after apply, every known
//! value of the plan must be in the new object unchanged, and every
//! unknown one must have become a value its refinements allow.

use super::gostring::value_go_string as go;
use super::walk::{attr, elements, equals_true, has_index, index, length_int};
use super::ObjectError;
use crate::schema::{Attribute, Block, NestedBlock, NestingMode};
use terrace_value::convert::{mismatch_message, PathStep};
use terrace_value::gostr::quote;
use terrace_value::{Type, Value};

/// Checks that `actual` (an apply result) is a valid completion of
/// `planned`. Both have the schema's implied type.
pub fn assert_object_compatible(
    schema: &Block,
    planned: &Value,
    actual: &Value,
) -> Vec<ObjectError> {
    let mut errors = Vec::new();
    object_compatible(schema, planned, actual, &mut Vec::new(), &mut errors);
    errors
}

fn object_compatible(
    schema: &Block,
    planned: &Value,
    actual: &Value,
    path: &mut Vec<PathStep>,
    errors: &mut Vec<ObjectError>,
) {
    let at_root = if path.is_empty() { "root object " } else { "" };
    if planned.is_null() && !actual.is_null() {
        errors.push(ObjectError::new(
            path,
            format!("{at_root}was absent, but now present"),
        ));
        return;
    }
    if actual.is_null() && !planned.is_null() {
        errors.push(ObjectError::new(
            path,
            format!("{at_root}was present, but now absent"),
        ));
        return;
    }
    if planned.is_null() {
        return;
    }
    for (name, attribute) in &schema.attributes {
        let implied = attribute.implied_type();
        let planned_v = attr(planned, name, &implied);
        let actual_v = attr(actual, name, &implied);
        path.push(PathStep::Attr(name.clone()));
        attribute_compatible(&planned_v, &actual_v, attribute, path, errors);
        path.pop();
    }
    for (name, block_s) in &schema.block_types {
        if schema.attributes.contains_key(name) {
            continue;
        }
        let (planned_v, _) = attr(planned, name, &Type::Dynamic).unmark();
        let (actual_v, _) = attr(actual, name, &Type::Dynamic).unmark();
        path.push(PathStep::Attr(name.clone()));
        nested_block_compatible(&planned_v, &actual_v, block_s, path, errors);
        path.pop();
    }
}

fn attribute_compatible(
    planned_v: &Value,
    actual_v: &Value,
    attribute: &Attribute,
    path: &mut Vec<PathStep>,
    errors: &mut Vec<ObjectError>,
) {
    let (actual, marks_a) = actual_v.unmark_deep();
    let (planned, marks_p) = planned_v.unmark_deep();
    let mut found = Vec::new();
    value_compatible(&planned, &actual, path, &mut found);
    if attribute.sensitive || marks_a.is_sensitive() || marks_p.is_sensitive() {
        // A vague message, so that the values are not disclosed.
        if !found.is_empty() {
            errors.push(ObjectError::new(
                path,
                "inconsistent values for sensitive attribute",
            ));
        }
    } else {
        errors.extend(found);
    }
}

fn nested_block_compatible(
    planned_v: &Value,
    actual_v: &Value,
    block_s: &NestedBlock,
    path: &mut Vec<PathStep>,
    errors: &mut Vec<ObjectError>,
) {
    let block = &block_s.block;
    match block_s.nesting {
        NestingMode::Single | NestingMode::Group => {
            // An unknown placeholder block may have become no block at all.
            if !planned_v.is_known() && actual_v.is_null() {
                return;
            }
            object_compatible(block, planned_v, actual_v, path, errors);
        }
        NestingMode::List => {
            if !planned_v.is_known()
                || !actual_v.is_known()
                || planned_v.is_null()
                || actual_v.is_null()
            {
                return;
            }
            let (planned_l, actual_l) = (length_int(planned_v), length_int(actual_v));
            if planned_l != actual_l {
                errors.push(ObjectError::new(
                    path,
                    format!("block count changed from {planned_l} to {actual_l}"),
                ));
                return;
            }
            for (idx, planned_ev) in elements(planned_v) {
                if !has_index(actual_v, &idx) {
                    continue;
                }
                let actual_ev = index(actual_v, &idx);
                path.push(PathStep::Index(idx));
                object_compatible(block, &planned_ev, &actual_ev, path, errors);
                path.pop();
            }
        }
        NestingMode::Map if planned_v.ty().is_object() => {
            let planned_keys: Vec<String> = object_keys(planned_v);
            let actual_keys: Vec<String> = object_keys(actual_v);
            let block_ty = block.implied_type();
            for k in &planned_keys {
                if !actual_keys.contains(k) {
                    errors.push(ObjectError::new(
                        path,
                        format!("block key {} has vanished", quote(k)),
                    ));
                    continue;
                }
                let planned_ev = attr(planned_v, k, &block_ty);
                let actual_ev = attr(actual_v, k, &block_ty);
                path.push(PathStep::Attr(k.clone()));
                object_compatible(block, &planned_ev, &actual_ev, path, errors);
                path.pop();
            }
            // New blocks may appear where the plan had unknown ones.
            if planned_v.is_known() {
                for k in &actual_keys {
                    if !planned_keys.contains(k) {
                        errors.push(ObjectError::new(
                            path,
                            format!("new block key {} has appeared", quote(k)),
                        ));
                    }
                }
            }
        }
        NestingMode::Map => {
            if !planned_v.is_known() || planned_v.is_null() || actual_v.is_null() {
                return;
            }
            let (planned_l, actual_l) = (length_int(planned_v), length_int(actual_v));
            if planned_l != actual_l {
                errors.push(ObjectError::new(
                    path,
                    format!("block count changed from {planned_l} to {actual_l}"),
                ));
                return;
            }
            for (idx, planned_ev) in elements(planned_v) {
                if !has_index(actual_v, &idx) {
                    continue;
                }
                let actual_ev = index(actual_v, &idx);
                path.push(PathStep::Index(idx));
                object_compatible(block, &planned_ev, &actual_ev, path, errors);
                path.pop();
            }
        }
        NestingMode::Set => {
            if !planned_v.is_known()
                || !actual_v.is_known()
                || planned_v.is_null()
                || actual_v.is_null()
            {
                return;
            }
            let base: Vec<PathStep> = path.clone();
            errors.extend(set_values_compatible(planned_v, actual_v, path, |p, a| {
                let mut element_path = base.clone();
                element_path.push(PathStep::Index(a.clone()));
                let mut found = Vec::new();
                object_compatible(block, p, a, &mut element_path, &mut found);
                found.is_empty()
            }));
            // Elements may coalesce once known, but never multiply.
            let (planned_l, actual_l) = (length_int(planned_v), length_int(actual_v));
            if planned_l < actual_l {
                errors.push(ObjectError::new(
                    path,
                    format!("block set length changed from {planned_l} to {actual_l}"),
                ));
            }
        }
    }
}

fn object_keys(value: &Value) -> Vec<String> {
    value
        .ty()
        .object_type()
        .map(|o| o.attributes.keys().cloned().collect())
        .unwrap_or_default()
}

fn value_compatible(
    planned: &Value,
    actual: &Value,
    path: &mut Vec<PathStep>,
    errors: &mut Vec<ObjectError>,
) {
    if planned.ty().is_dynamic() {
        return;
    }
    if !super::test_conformance(actual.ty(), planned.ty()).is_empty() {
        errors.push(ObjectError::new(
            path,
            format!(
                "wrong final value type: {}",
                mismatch_message(actual.ty(), planned.ty())
            ),
        ));
        return;
    }
    if !planned.is_known() {
        // Only the type and the refinements of the placeholder bind the
        // final value.
        if planned.range().includes(actual).as_bool() == Some(false) {
            errors.push(ObjectError::new(
                path,
                format!(
                    "final value {} does not conform to planning placeholder {}",
                    go(actual),
                    go(planned)
                ),
            ));
        }
        return;
    }
    if actual.is_null() {
        if !planned.is_null() {
            errors.push(ObjectError::new(
                path,
                format!("was {}, but now null", go(planned)),
            ));
        }
        return;
    }
    if planned.is_null() {
        errors.push(ObjectError::new(
            path,
            format!("was null, but now {}", go(actual)),
        ));
        return;
    }
    if !actual.is_known() {
        errors.push(ObjectError::new(path, "was known, but now unknown"));
        return;
    }
    let ty = planned.ty();
    if ty.is_primitive() {
        if !equals_true(actual, planned) {
            errors.push(ObjectError::new(
                path,
                format!("was {}, but now {}", go(planned), go(actual)),
            ));
        }
    } else if ty.is_list() || ty.is_map() || ty.is_tuple() {
        for (k, planned_v) in elements(planned) {
            if !has_index(actual, &k) {
                errors.push(ObjectError::new(
                    path,
                    format!("element {} has vanished", index_str(&k)),
                ));
                continue;
            }
            let actual_v = index(actual, &k);
            path.push(PathStep::Index(k));
            value_compatible(&planned_v, &actual_v, path, errors);
            path.pop();
        }
        for (k, _) in elements(actual) {
            if !has_index(planned, &k) {
                errors.push(ObjectError::new(
                    path,
                    format!("new element {} has appeared", index_str(&k)),
                ));
            }
        }
    } else if let Some(object) = ty.object_type() {
        for (name, aty) in &object.attributes {
            let planned_v = attr(planned, name, aty);
            let actual_v = attr(actual, name, aty);
            path.push(PathStep::Attr(name.clone()));
            value_compatible(&planned_v, &actual_v, path, errors);
            path.pop();
        }
    } else if ty.is_set() {
        let base: Vec<PathStep> = path.clone();
        errors.extend(set_values_compatible(planned, actual, path, |p, a| {
            let mut element_path = base.clone();
            element_path.push(PathStep::Index(a.clone()));
            let mut found = Vec::new();
            value_compatible(p, a, &mut element_path, &mut found);
            found.is_empty()
        }));
        let (planned_l, actual_l) = (length_int(planned), length_int(actual));
        if planned_l < actual_l {
            errors.push(ObjectError::new(
                path,
                format!("length changed from {planned_l} to {actual_l}"),
            ));
        }
    }
}

fn index_str(key: &Value) -> String {
    match (key.as_number(), key.as_str()) {
        (Some(n), _) => n.text('f', -1),
        (_, Some(s)) => quote(s),
        _ => go(key),
    }
}

/// OpenTofu's `assertSetValuesCompatible`: every element of each set must
/// correlate (by `correlates`) with at least one of the other.
fn set_values_compatible(
    planned: &Value,
    actual: &Value,
    path: &[PathStep],
    mut correlates: impl FnMut(&Value, &Value) -> bool,
) -> Vec<ObjectError> {
    let a_items = planned.as_elements().unwrap_or_default();
    let b_items = actual.as_elements().unwrap_or_default();
    let mut a_eq = vec![false; a_items.len()];
    let mut b_eq = vec![false; b_items.len()];
    for (ai, av) in a_items.iter().enumerate() {
        for (bi, bv) in b_items.iter().enumerate() {
            if correlates(av, bv) {
                a_eq[ai] = true;
                b_eq[bi] = true;
            }
        }
    }
    let mut errors = Vec::new();
    for (i, eq) in a_eq.iter().enumerate() {
        if !eq {
            errors.push(ObjectError::new(
                path,
                format!(
                    "planned set element {} does not correlate with any element in actual",
                    go(&a_items[i])
                ),
            ));
        }
    }
    // One perspective is enough; the other would repeat the problem.
    if !errors.is_empty() {
        return errors;
    }
    for (i, eq) in b_eq.iter().enumerate() {
        if !eq {
            errors.push(ObjectError::new(
                path,
                format!(
                    "actual set element {} does not correlate with any element in plan",
                    go(&b_items[i])
                ),
            ));
        }
    }
    errors
}
