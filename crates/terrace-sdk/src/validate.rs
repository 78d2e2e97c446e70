//! Validation of configuration values against what the schema declares
//! beyond types (Terraform checks those): whole numbers, validators,
//! conflicting attributes, deprecations and timeouts. Every diagnostic
//! carries the path of the attribute it is about.

use crate::resource::TIMEOUTS_BLOCK;
use crate::schema::{Attr, BlockSpec};
use crate::values::get_attr;
use terrace_providers::{AttributePath, Diagnostic, Diagnostics, NestingMode};
use terrace_value::gostr::quote;
use terrace_value::Value;

/// The attribute path as the framework's messages name it: `length`,
/// `rule[0].port`.
fn path_text(path: &AttributePath) -> String {
    path.to_string().trim_start_matches('.').to_string()
}

/// Checks a configuration object against `spec`, adding to `diagnostics`.
pub(crate) fn validate_block(
    spec: &BlockSpec,
    value: &Value,
    path: &AttributePath,
    diagnostics: &mut Diagnostics,
) {
    if value.is_null() || !value.is_known() {
        return;
    }
    for (name, attr) in &spec.attributes {
        let attribute = get_attr(value, name);
        let step = path.clone().attribute(name);
        if attribute.is_null() {
            continue;
        }
        if let Some(message) = &attr.deprecation {
            diagnostics.push(
                Diagnostic::warning("Attribute Deprecated", message.clone())
                    .with_attribute(step.clone()),
            );
        }
        for other in &attr.conflicts_with {
            let other_value = get_attr(value, other);
            // Reported once, from the first of the pair in name order.
            if !other_value.is_null() && (name < other || !conflict_declared(spec, other, name)) {
                diagnostics.push(
                    Diagnostic::error(
                        "Invalid Attribute Combination",
                        format!(
                            "Attribute {} cannot be specified when {} is specified",
                            quote(&path_text(&step)),
                            quote(&path_text(&path.clone().attribute(other)))
                        ),
                    )
                    .with_attribute(step.clone()),
                );
            }
        }
        if attribute.is_known() {
            validate_value(attr, &attribute, &step, diagnostics);
        }
    }
    for (name, nested) in &spec.blocks {
        let blocks = get_attr(value, name);
        let step = path.clone().attribute(name);
        if let Some(message) = &nested.block.deprecation {
            if !blocks.is_null() && blocks.known_length() != Some(0) {
                diagnostics.push(
                    Diagnostic::warning("Block Deprecated", message.clone())
                        .with_attribute(step.clone()),
                );
            }
        }
        if blocks.is_null() || !blocks.is_known() {
            continue;
        }
        if path.is_empty() && name == TIMEOUTS_BLOCK {
            validate_timeouts(&blocks, &step, diagnostics);
        }
        match nested.nesting {
            NestingMode::Single | NestingMode::Group => {
                validate_block(&nested.block, &blocks, &step, diagnostics)
            }
            NestingMode::List => {
                for (index, item) in blocks.as_elements().unwrap_or(&[]).iter().enumerate() {
                    let index = i64::try_from(index).unwrap_or(i64::MAX);
                    validate_block(&nested.block, item, &step.clone().index(index), diagnostics);
                }
            }
            // Set elements cannot be named by a path; the set is.
            NestingMode::Set => {
                for item in blocks.as_elements().unwrap_or(&[]) {
                    validate_block(&nested.block, item, &step, diagnostics);
                }
            }
            NestingMode::Map => {
                if let Some(entries) = blocks.as_attributes() {
                    for (key, item) in entries {
                        validate_block(
                            &nested.block,
                            item,
                            &step.clone().key(key.clone()),
                            diagnostics,
                        );
                    }
                }
            }
        }
    }
}

fn conflict_declared(spec: &BlockSpec, on: &str, other: &str) -> bool {
    spec.attributes
        .get(on)
        .is_some_and(|attr| attr.conflicts_with.iter().any(|name| name == other))
}

fn validate_value(attr: &Attr, value: &Value, path: &AttributePath, diagnostics: &mut Diagnostics) {
    if attr.integer {
        if let Some(number) = value.as_number() {
            if !number.is_integer() || number.to_i64().is_none() {
                diagnostics.push(
                    Diagnostic::error(
                        "Invalid Attribute Value",
                        format!(
                            "Attribute {} must be a whole number between {} and {}, got: {}",
                            path_text(path),
                            i64::MIN,
                            i64::MAX,
                            number.text('f', -1)
                        ),
                    )
                    .with_attribute(path.clone()),
                );
                return;
            }
        }
    }
    for validator in &attr.validators {
        if let Err(message) = validator.validate(value) {
            diagnostics.push(
                Diagnostic::error(
                    "Invalid Attribute Value",
                    format!("Attribute {} {message}", path_text(path)),
                )
                .with_attribute(path.clone()),
            );
        }
    }
}

fn validate_timeouts(block: &Value, path: &AttributePath, diagnostics: &mut Diagnostics) {
    let Some(attributes) = block.as_attributes() else {
        return;
    };
    for (name, value) in attributes {
        let Some(text) = value.as_str() else {
            continue;
        };
        if let Err(message) = crate::timeouts::parse_duration(text) {
            diagnostics.push(
                Diagnostic::error(
                    "Invalid timeout",
                    format!(
                        "The {name} timeout {} is not a duration ({message}). Write a number \
                         with a unit, such as \"30s\", \"10m\" or \"1h30m\".",
                        quote(text)
                    ),
                )
                .with_attribute(path.clone().attribute(name)),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::NestedBlockSpec;
    use crate::validators::int_at_least;
    use terrace_value::Type;

    fn spec() -> BlockSpec {
        BlockSpec::new()
            .attr("length", Attr::int64().required().validate(int_at_least(1)))
            .attr("a", Attr::string().optional().conflicts_with(&["b"]))
            .attr("b", Attr::string().optional().conflicts_with(&["a"]))
            .attr("old", Attr::string().optional().deprecated("Use new."))
            .block(
                "rule",
                NestedBlockSpec::list(
                    BlockSpec::new()
                        .attr("port", Attr::int64().required().validate(int_at_least(1))),
                ),
            )
            .block(
                TIMEOUTS_BLOCK,
                NestedBlockSpec::single(BlockSpec::new().attr("create", Attr::string().optional())),
            )
    }

    fn config(entries: Vec<(&str, Value)>) -> Value {
        let ty = spec().implied_type();
        let mut attributes = crate::values::attributes_of(&Value::null(ty.clone()), &ty);
        for (name, value) in entries {
            attributes.insert(name.to_string(), value);
        }
        Value::object(attributes)
    }

    fn run(value: Value) -> Vec<(String, String, String)> {
        let mut diagnostics = Diagnostics::new();
        validate_block(&spec(), &value, &AttributePath::root(), &mut diagnostics);
        diagnostics
            .iter()
            .map(|d| {
                (
                    d.attribute
                        .as_ref()
                        .map(ToString::to_string)
                        .unwrap_or_default(),
                    d.summary.clone(),
                    d.detail.clone(),
                )
            })
            .collect()
    }

    #[test]
    fn diagnostics_name_the_attribute() {
        let port_rule =
            |port: Value| Value::object([("port".to_string(), port)].into_iter().collect());
        let rule_ty = Type::object([("port".to_string(), Type::Number)]);
        let timeouts = Value::object(
            [("create".to_string(), Value::string("10 minutes"))]
                .into_iter()
                .collect(),
        );
        let found = run(config(vec![
            (
                "length",
                Value::number(terrace_value::Number::parse("1.5").unwrap()),
            ),
            ("a", Value::string("x")),
            ("b", Value::string("y")),
            ("old", Value::string("z")),
            (
                "rule",
                Value::list(
                    rule_ty,
                    vec![port_rule(Value::int(80)), port_rule(Value::int(0))],
                ),
            ),
            (TIMEOUTS_BLOCK, timeouts),
        ]));
        let paths: Vec<&str> = found.iter().map(|(p, _, _)| p.as_str()).collect();
        assert_eq!(
            paths,
            vec![".a", ".length", ".old", ".rule[1].port", ".timeouts.create"]
        );
        assert_eq!(
            found[0].2,
            "Attribute \"a\" cannot be specified when \"b\" is specified"
        );
        assert!(found[1]
            .2
            .starts_with("Attribute length must be a whole number"));
        assert_eq!(found[2].1, "Attribute Deprecated");
        assert_eq!(
            found[3].2,
            "Attribute rule[1].port value must be at least 1, got: 0"
        );
        assert!(found[4].2.contains("\"10 minutes\""), "{}", found[4].2);
    }

    #[test]
    fn unknown_values_wait_for_apply() {
        let found = run(config(vec![("length", Value::unknown(Type::Number))]));
        assert!(found.is_empty());
        let found = run(config(vec![("length", Value::int(4))]));
        assert!(found.is_empty());
    }
}
