//! OpenTofu's `objchange.AssertPlanValid`: a provider may change only
//! attributes that are computed and null in the configuration, or return
//! the prior value for an attribute it considers equivalent to the
//! configured one. Everything else is a provider bug, reported with
//! OpenTofu's wording (written for provider developers).

use super::gostring::value_go_string as go;
use super::walk::{attr, elements, has_index, index, unrefined_equal, value_map};
use super::ObjectError;
use crate::schema::{
    Attribute, AttributeType, Block, NestedAttributes, NestingMode, ObjectNesting,
};
use std::collections::BTreeMap;
use terrace_value::convert::PathStep;
use terrace_value::gostr::quote;
use terrace_value::{Type, Value};

/// Checks that `planned` (a provider's planned new state) is a valid plan
/// to get from `prior` to `config`. All three have the schema's implied
/// type and no marks.
pub fn assert_plan_valid(
    schema: &Block,
    prior: &Value,
    config: &Value,
    planned: &Value,
) -> Vec<ObjectError> {
    let mut errors = Vec::new();
    plan_valid(schema, prior, config, planned, &mut Vec::new(), &mut errors);
    errors
}

const NESTED_BLOCK_UNKNOWN: &str = "element representing nested block must not be unknown itself; set nested attribute values to unknown instead";

fn plan_valid(
    schema: &Block,
    prior: &Value,
    config: &Value,
    planned: &Value,
    path: &mut Vec<PathStep>,
    errors: &mut Vec<ObjectError>,
) {
    if planned.is_null() && !config.is_null() {
        errors.push(ObjectError::new(
            path,
            "planned for absence but config wants existence",
        ));
        return;
    }
    if config.is_null() && !planned.is_null() {
        errors.push(ObjectError::new(
            path,
            "planned for existence but config wants absence",
        ));
        return;
    }
    if planned.is_null() {
        return;
    }
    planned_attrs_valid(&schema.attributes, prior, config, planned, path, errors);

    for (name, block_s) in &schema.block_types {
        if schema.attributes.contains_key(name) {
            continue;
        }
        path.push(PathStep::Attr(name.clone()));
        let block_ty = block_s.block.implied_type();
        let planned_v = attr(planned, name, &Type::Dynamic);
        let config_v = attr(config, name, &Type::Dynamic);
        let prior_v = attr(prior, name, &Type::Dynamic);
        nested_block_valid(
            block_s.nesting,
            &block_s.block,
            &block_ty,
            &prior_v,
            config_v,
            &planned_v,
            path,
            errors,
        );
        path.pop();
    }
}

#[allow(clippy::too_many_arguments)]
fn nested_block_valid(
    nesting: NestingMode,
    block: &Block,
    block_ty: &Type,
    prior_v: &Value,
    mut config_v: Value,
    planned_v: &Value,
    path: &mut Vec<PathStep>,
    errors: &mut Vec<ObjectError>,
) {
    if planned_v.raw_equals(&config_v) {
        return;
    }
    if !config_v.is_known() {
        // Only a dynamic block with an unknown for_each is unknown, and the
        // provider may not change that.
        errors.push(ObjectError::new(
            path,
            format!("planned value {} for unknown dynamic block", go(planned_v)),
        ));
        return;
    }
    if !planned_v.is_known() {
        errors.push(ObjectError::new(
            path,
            "attribute representing nested block must not be unknown itself; set nested attribute values to unknown instead",
        ));
        return;
    }
    let null_prior = || Value::null(block_ty.clone());
    match nesting {
        NestingMode::Single | NestingMode::Group => {
            plan_valid(block, prior_v, &config_v, planned_v, path, errors);
        }
        NestingMode::List => {
            if planned_v.is_null() {
                errors.push(ObjectError::new(
                    path,
                    "attribute representing a list of nested blocks must be empty to indicate no blocks, not null",
                ));
                return;
            }
            if config_v.is_null() {
                // A legacy provider's null, put back by ignore_changes:
                // compare as no blocks.
                config_v = match config_v.ty().element_type() {
                    Some(ety) => Value::list(ety.clone(), Vec::new()),
                    None => Value::empty_tuple(),
                };
            }
            let planned_l = planned_v.length_int().unwrap_or(0);
            let config_l = config_v.length_int().unwrap_or(0);
            if planned_l != config_l {
                errors.push(ObjectError::new(
                    path,
                    format!("block count in plan ({planned_l}) disagrees with count in config ({config_l})"),
                ));
                return;
            }
            for (idx, planned_ev) in elements(planned_v) {
                path.push(PathStep::Index(idx.clone()));
                if !planned_ev.is_known() {
                    errors.push(ObjectError::new(path, NESTED_BLOCK_UNKNOWN));
                } else if has_index(&config_v, &idx) {
                    let config_ev = index(&config_v, &idx);
                    let prior_ev = if !prior_v.is_null() && has_index(prior_v, &idx) {
                        index(prior_v, &idx)
                    } else {
                        null_prior()
                    };
                    plan_valid(block, &prior_ev, &config_ev, &planned_ev, path, errors);
                }
                path.pop();
            }
        }
        NestingMode::Map => {
            if planned_v.is_null() {
                errors.push(ObjectError::new(
                    path,
                    "attribute representing a map of nested blocks must be empty to indicate no blocks, not null",
                ));
                return;
            }
            if let Some(planned_o) = planned_v.ty().object_type() {
                let config_keys: Vec<String> = config_v
                    .ty()
                    .object_type()
                    .map(|o| o.attributes.keys().cloned().collect())
                    .unwrap_or_default();
                for k in planned_o.attributes.keys() {
                    if !config_keys.contains(k) {
                        errors.push(ObjectError::new(
                            path,
                            format!("block key {} from plan is not present in config", quote(k)),
                        ));
                        continue;
                    }
                    path.push(PathStep::Attr(k.clone()));
                    let planned_ev = attr(planned_v, k, block_ty);
                    if !planned_ev.is_known() {
                        errors.push(ObjectError::new(path, NESTED_BLOCK_UNKNOWN));
                    } else {
                        let config_ev = attr(&config_v, k, block_ty);
                        let prior_ev =
                            if !prior_v.is_null() && prior_v.ty().attribute_type(k).is_some() {
                                attr(prior_v, k, block_ty)
                            } else {
                                null_prior()
                            };
                        plan_valid(block, &prior_ev, &config_ev, &planned_ev, path, errors);
                    }
                    path.pop();
                }
                for k in &config_keys {
                    if !planned_o.attributes.contains_key(k) {
                        errors.push(ObjectError::new(
                            path,
                            format!("block key {} from config is not present in plan", quote(k)),
                        ));
                    }
                }
            } else {
                let planned_l = planned_v.length_int().unwrap_or(0);
                let config_l = config_v.length_int().unwrap_or(0);
                if planned_l != config_l {
                    errors.push(ObjectError::new(
                        path,
                        format!("block count in plan ({planned_l}) disagrees with count in config ({config_l})"),
                    ));
                    return;
                }
                for (idx, planned_ev) in elements(planned_v) {
                    path.push(PathStep::Index(idx.clone()));
                    let key = idx.as_str().unwrap_or_default().to_string();
                    if !planned_ev.is_known() {
                        errors.push(ObjectError::new(path, NESTED_BLOCK_UNKNOWN));
                    } else if !has_index(&config_v, &idx) {
                        errors.push(ObjectError::new(
                            path,
                            format!(
                                "block key {} from plan is not present in config",
                                quote(&key)
                            ),
                        ));
                    } else {
                        let config_ev = index(&config_v, &idx);
                        let prior_ev = if !prior_v.is_null() && has_index(prior_v, &idx) {
                            index(prior_v, &idx)
                        } else {
                            null_prior()
                        };
                        plan_valid(block, &prior_ev, &config_ev, &planned_ev, path, errors);
                    }
                    path.pop();
                }
                for (idx, _) in elements(&config_v) {
                    if !has_index(planned_v, &idx) {
                        errors.push(ObjectError::new(
                            path,
                            format!(
                                "block key {} from config is not present in plan",
                                quote(idx.as_str().unwrap_or_default())
                            ),
                        ));
                    }
                }
            }
        }
        NestingMode::Set => {
            if planned_v.is_null() {
                errors.push(ObjectError::new(
                    path,
                    "attribute representing a set of nested blocks must be empty to indicate no blocks, not null",
                ));
                return;
            }
            // Set elements have no identity to correlate them by, so only
            // the shape can be checked.
            for (idx, planned_ev) in elements(planned_v) {
                if !planned_ev.is_known() {
                    path.push(PathStep::Index(idx));
                    errors.push(ObjectError::new(path, NESTED_BLOCK_UNKNOWN));
                    path.pop();
                }
            }
        }
    }
}

fn planned_attrs_valid(
    attributes: &BTreeMap<String, Attribute>,
    prior: &Value,
    config: &Value,
    planned: &Value,
    path: &mut Vec<PathStep>,
    errors: &mut Vec<ObjectError>,
) {
    for (name, attribute) in attributes {
        let implied = attribute.implied_type();
        let planned_v = attr(planned, name, &implied);
        let config_v = attr(config, name, &implied);
        let prior_v = if prior.is_null() {
            Value::null(implied.clone())
        } else {
            attr(prior, name, &implied)
        };
        path.push(PathStep::Attr(name.clone()));
        planned_value_valid(attribute, &prior_v, &config_v, &planned_v, path, errors);
        path.pop();
    }
}

fn planned_value_valid(
    attribute: &Attribute,
    prior_v: &Value,
    config_v: &Value,
    planned_v: &Value,
    path: &mut Vec<PathStep>,
    errors: &mut Vec<ObjectError>,
) {
    if unrefined_equal(planned_v, config_v) {
        return;
    }
    // The provider returned the prior value unchanged: it considers the
    // configured value equivalent.
    if unrefined_equal(planned_v, prior_v) && !prior_v.is_null() && !config_v.is_null() {
        return;
    }
    if attribute.computed && (!attribute.optional || config_v.is_null()) {
        return;
    }
    if config_v.is_null() && !planned_v.is_null() {
        let message = if attribute.sensitive {
            "sensitive planned value for a non-computed attribute".to_string()
        } else {
            format!(
                "planned value {} for a non-computed attribute",
                go(planned_v)
            )
        };
        errors.push(ObjectError::new(path, message));
        return;
    }
    if !config_v.is_null() && planned_v.is_null() && attribute.write_only {
        return;
    }
    if let AttributeType::Nested(nested) = &attribute.ty {
        planned_object_valid(nested, prior_v, config_v, planned_v, path, errors);
        return;
    }
    let message = match (prior_v.is_null(), attribute.sensitive) {
        (true, true) => "sensitive planned value does not match config value".to_string(),
        (true, false) => format!(
            "planned value {} does not match config value {}",
            go(planned_v),
            go(config_v)
        ),
        (false, true) => {
            "sensitive planned value does not match config value nor prior value".to_string()
        }
        (false, false) => format!(
            "planned value {} does not match config value {} nor prior value {}",
            go(planned_v),
            go(config_v),
            go(prior_v)
        ),
    };
    errors.push(ObjectError::new(path, message));
}

fn planned_object_valid(
    schema: &NestedAttributes,
    prior: &Value,
    config: &Value,
    planned: &Value,
    path: &mut Vec<PathStep>,
    errors: &mut Vec<ObjectError>,
) {
    if planned.is_null() && !config.is_null() {
        errors.push(ObjectError::new(
            path,
            "planned for absence but config wants existence",
        ));
        return;
    }
    if config.is_null() && !planned.is_null() {
        errors.push(ObjectError::new(
            path,
            "planned for existence but config wants absence",
        ));
        return;
    }
    if !config.is_null() && !planned.is_known() {
        errors.push(ObjectError::new(
            path,
            "planned unknown for configured value",
        ));
        return;
    }
    if planned.is_null() {
        return;
    }
    let object_ty = schema.implied_type();
    let null_prior = || Value::null(object_ty.clone());
    let count_mismatch = |planned_l: &Value, config_l: &Value| {
        format!(
            "count in plan ({}) disagrees with count in config ({})",
            go(planned_l),
            go(config_l)
        )
    };
    match schema.nesting {
        ObjectNesting::Single => {
            planned_attrs_valid(&schema.attributes, prior, config, planned, path, errors);
        }
        ObjectNesting::List => {
            let (planned_l, config_l) = (length(planned), length(config));
            if !planned_l.is_known() && !config_l.is_known() {
                return;
            }
            if planned_l.equals(&config_l).as_bool() != Some(true) {
                errors.push(ObjectError::new(
                    path,
                    count_mismatch(&planned_l, &config_l),
                ));
                return;
            }
            for (idx, planned_ev) in elements(planned) {
                if !has_index(config, &idx) {
                    continue;
                }
                path.push(PathStep::Index(idx.clone()));
                let config_ev = index(config, &idx);
                let prior_ev = if !prior.is_null() && has_index(prior, &idx) {
                    index(prior, &idx)
                } else {
                    null_prior()
                };
                planned_attrs_valid(
                    &schema.attributes,
                    &prior_ev,
                    &config_ev,
                    &planned_ev,
                    path,
                    errors,
                );
                path.pop();
            }
        }
        ObjectNesting::Map => {
            let (planned_l, config_l) = (length(planned), length(config));
            if !planned_l.is_known() && !config_l.is_known() {
                return;
            }
            if planned_l.equals(&config_l).as_bool() != Some(true) {
                errors.push(ObjectError::new(
                    path,
                    count_mismatch(&planned_l, &config_l),
                ));
                return;
            }
            let planned_vals = value_map(planned);
            let config_vals = value_map(config);
            let prior_vals = value_map(prior);
            for (k, planned_ev) in &planned_vals {
                let Some(config_ev) = config_vals.get(k) else {
                    errors.push(ObjectError::new(
                        path,
                        format!("map key {} from plan is not present in config", quote(k)),
                    ));
                    continue;
                };
                // OpenTofu steps into map elements with attribute steps.
                path.push(PathStep::Attr(k.clone()));
                let prior_ev = prior_vals.get(k).cloned().unwrap_or_else(null_prior);
                planned_attrs_valid(
                    &schema.attributes,
                    &prior_ev,
                    config_ev,
                    planned_ev,
                    path,
                    errors,
                );
                path.pop();
            }
            for k in config_vals.keys() {
                if !planned_vals.contains_key(k) {
                    errors.push(ObjectError::new(
                        path,
                        format!("map key {} from config is not present in plan", quote(k)),
                    ));
                }
            }
        }
        ObjectNesting::Set => {
            let (planned_l, config_l) = (length(planned), length(config));
            if planned_l.range().includes(&config_l).as_bool() == Some(false) {
                errors.push(ObjectError::new(
                    path,
                    count_mismatch(&planned_l, &config_l),
                ));
            }
        }
    }
}

/// cty's `Length`, an unknown number where it cannot be taken.
fn length(value: &Value) -> Value {
    value
        .length()
        .unwrap_or_else(|_| Value::unknown(Type::Number))
}
