//! `internal_validate`: the checks a provider's own tests should run, so
//! that a schema Terraform would reject, or that cannot behave as declared
//! (a default on a required attribute, an attribute that can change but
//! neither updates nor replaces, a state version without its upgrader),
//! is caught before any user sees it.

use crate::resource::{DataSourceSpec, ProviderSpec, ResourceSpec, TIMEOUTS_BLOCK};
use crate::schema::{Attr, BlockSpec, NestedBlockSpec};
use std::fmt;
use terrace_providers::NestingMode;
use terrace_value::convert::convert;

/// Every problem found, one sentence each, naming where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InternalValidateError {
    pub problems: Vec<String>,
}

impl fmt::Display for InternalValidateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} problem(s) in the provider:", self.problems.len())?;
        for problem in &self.problems {
            write!(f, "\n- {problem}")?;
        }
        Ok(())
    }
}

impl std::error::Error for InternalValidateError {}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Provider,
    Resource,
    DataSource,
}

const RESERVED_PROVIDER: &[&str] = &["alias", "version"];
const RESERVED_RESOURCE: &[&str] = &[
    "connection",
    "count",
    "depends_on",
    "for_each",
    "lifecycle",
    "provider",
    "provisioner",
];
const RESERVED_DATA_SOURCE: &[&str] = &["count", "depends_on", "for_each", "lifecycle", "provider"];

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        && !name.as_bytes()[0].is_ascii_digit()
}

impl<C> ProviderSpec<C> {
    /// Checks the whole provider: its configuration schema, every resource
    /// type, data source and function.
    pub fn internal_validate(&self) -> Result<(), InternalValidateError> {
        let mut problems = Vec::new();
        check_block(
            &self.schema,
            "provider",
            Kind::Provider,
            true,
            &mut problems,
        );
        for (name, resource) in &self.resources {
            check_resource(name, resource, &mut problems);
        }
        for (name, data_source) in &self.data_sources {
            check_data_source(name, data_source, &mut problems);
        }
        for (name, function) in &self.functions {
            if !valid_name(name) {
                problems.push(format!(
                    "function {name:?}: names are lower-case letters, digits and underscores"
                ));
            }
            let mut seen = std::collections::BTreeSet::new();
            for parameter in function
                .spec
                .parameters
                .iter()
                .chain(function.spec.variadic_parameter.iter())
            {
                if parameter.name.is_empty() {
                    problems.push(format!("function {name:?}: a parameter has no name"));
                } else if !seen.insert(parameter.name.as_str()) {
                    problems.push(format!(
                        "function {name:?}: parameter {:?} is declared twice",
                        parameter.name
                    ));
                }
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(InternalValidateError { problems })
        }
    }
}

fn check_resource<C>(name: &str, resource: &ResourceSpec<C>, problems: &mut Vec<String>) {
    let at = format!("resource {name}");
    if !valid_name(name) {
        problems.push(format!(
            "{at}: type names are lower-case letters, digits and underscores"
        ));
    }
    if (resource.schema.blocks.contains_key(TIMEOUTS_BLOCK)
        || resource.schema.attributes.contains_key(TIMEOUTS_BLOCK))
        && resource.timeouts.is_some()
    {
        problems.push(format!(
            "{at}: declares timeouts and has its own \"{TIMEOUTS_BLOCK}\" too"
        ));
    }
    check_block(&resource.schema, &at, Kind::Resource, true, problems);
    if let Some(id) = resource.schema.attributes.get("id") {
        if id.ty != terrace_value::Type::String || !id.computed {
            problems.push(format!("{at}: \"id\" must be a computed string"));
        }
    }
    for (operation, present) in [
        ("Create", resource.create.is_some()),
        ("Read", resource.read.is_some()),
        ("Delete", resource.delete.is_some()),
    ] {
        if !present {
            problems.push(format!("{at}: {operation} must be implemented"));
        }
    }
    let updatable = updatable_attributes(&resource.schema);
    match (&resource.update, updatable.is_empty()) {
        (None, false) => problems.push(format!(
            "{at}: no Update defined, must set ForceNew on: [{}]",
            updatable.join(", ")
        )),
        (Some(_), true) if resource.schema.has_configurable() => problems.push(format!(
            "{at}: all fields are ForceNew or computed-only, Update is superfluous"
        )),
        _ => {}
    }
    if let Some(timeouts) = &resource.timeouts {
        for (operation, declared, implemented) in [
            (
                "create",
                timeouts.create.is_some(),
                resource.create.is_some(),
            ),
            ("read", timeouts.read.is_some(), resource.read.is_some()),
            (
                "update",
                timeouts.update.is_some(),
                resource.update.is_some(),
            ),
            (
                "delete",
                timeouts.delete.is_some(),
                resource.delete.is_some(),
            ),
        ] {
            if declared && !implemented {
                problems.push(format!(
                    "{at}: a {operation} timeout is declared but there is no {operation}"
                ));
            }
        }
    }
    if resource.version < 0 {
        problems.push(format!("{at}: the schema version cannot be negative"));
    }
    for from in 0..resource.version.max(0) {
        if !resource.upgraders.contains_key(&from) {
            problems.push(format!(
                "{at}: schema version {} has no state upgrader from version {from}",
                resource.version
            ));
        }
    }
    for from in resource.upgraders.keys() {
        if *from < 0 || *from >= resource.version {
            problems.push(format!(
                "{at}: a state upgrader from version {from} does not lead to a version up to the \
                 current one ({})",
                resource.version
            ));
        }
    }
}

fn check_data_source<C>(name: &str, data_source: &DataSourceSpec<C>, problems: &mut Vec<String>) {
    let at = format!("data source {name}");
    if !valid_name(name) {
        problems.push(format!(
            "{at}: type names are lower-case letters, digits and underscores"
        ));
    }
    check_block(&data_source.schema, &at, Kind::DataSource, true, problems);
    if data_source.read.is_none() {
        problems.push(format!("{at}: Read must be implemented"));
    }
    if let Some(timeouts) = &data_source.timeouts {
        if timeouts.create.is_some() || timeouts.update.is_some() || timeouts.delete.is_some() {
            problems.push(format!(
                "{at}: only a read timeout applies to a data source"
            ));
        }
    }
}

/// Attributes (and nested blocks) that users can change and that do not
/// force a replacement: what an Update would have to handle.
fn updatable_attributes(spec: &BlockSpec) -> Vec<String> {
    let mut names: Vec<String> = spec
        .attributes
        .iter()
        .filter(|(_, attr)| (attr.required || attr.optional) && !attr.force_new)
        .map(|(name, _)| name.clone())
        .collect();
    for (name, nested) in &spec.blocks {
        if !nested.force_new && !nested_replaces(nested) {
            names.push(name.clone());
        }
    }
    names
}

fn nested_replaces(nested: &NestedBlockSpec) -> bool {
    nested.force_new
        || (nested.block.has_configurable() && updatable_attributes(&nested.block).is_empty())
}

fn check_block(spec: &BlockSpec, at: &str, kind: Kind, top: bool, problems: &mut Vec<String>) {
    let reserved: &[&str] = match kind {
        Kind::Provider => RESERVED_PROVIDER,
        Kind::Resource => RESERVED_RESOURCE,
        Kind::DataSource => RESERVED_DATA_SOURCE,
    };
    for (name, attr) in &spec.attributes {
        let here = format!("{at}: attribute {name:?}");
        if !valid_name(name) {
            problems.push(format!(
                "{here}: names are lower-case letters, digits and underscores"
            ));
        }
        if top && reserved.contains(&name.as_str()) {
            problems.push(format!("{here}: the name is reserved by Terraform"));
        }
        if spec.blocks.contains_key(name) {
            problems.push(format!("{here}: a nested block has the same name"));
        }
        check_attr(spec, name, attr, &here, kind, problems);
    }
    for (name, nested) in &spec.blocks {
        let here = format!("{at}: block {name:?}");
        if !valid_name(name) {
            problems.push(format!(
                "{here}: names are lower-case letters, digits and underscores"
            ));
        }
        if top && reserved.contains(&name.as_str()) {
            problems.push(format!("{here}: the name is reserved by Terraform"));
        }
        if nested.min_items < 0 || nested.max_items < 0 {
            problems.push(format!(
                "{here}: min_items and max_items cannot be negative"
            ));
        }
        if nested.max_items > 0 && nested.min_items > nested.max_items {
            problems.push(format!(
                "{here}: min_items ({}) is greater than max_items ({})",
                nested.min_items, nested.max_items
            ));
        }
        if matches!(nested.nesting, NestingMode::Single | NestingMode::Group)
            && (nested.max_items > 1 || nested.min_items > 1)
        {
            problems.push(format!(
                "{here}: a single block cannot have more than one item"
            ));
        }
        if nested.force_new && kind != Kind::Resource {
            problems.push(format!(
                "{here}: only resource blocks can force a replacement"
            ));
        }
        check_block(&nested.block, &here, kind, false, problems);
    }
}

fn check_attr(
    spec: &BlockSpec,
    name: &str,
    attr: &Attr,
    here: &str,
    kind: Kind,
    problems: &mut Vec<String>,
) {
    let mut flag_problem = |text: &str| problems.push(format!("{here}: {text}"));
    if attr.required && attr.optional {
        flag_problem("Required and Optional cannot both be set");
    }
    if attr.required && attr.computed {
        flag_problem("Required and Computed cannot both be set");
    }
    if !attr.required && !attr.optional && !attr.computed {
        flag_problem("one of Required, Optional or Computed must be set");
    }
    if let Some(default) = &attr.default {
        if !(attr.optional && attr.computed) {
            flag_problem(
                "a Default needs Optional and Computed: Terraform accepts a planned value \
                 other than the configuration's only for computed attributes",
            );
        }
        if let Err(e) = convert(default, &attr.ty) {
            flag_problem(&format!(
                "the Default does not fit the type {}: {}",
                attr.ty.type_string(),
                e.message
            ));
        }
    }
    let computed_only = attr.is_computed_only();
    if computed_only {
        if !attr.validators.is_empty() {
            flag_problem(
                "validators are for configuration, and a computed-only attribute has none",
            );
        }
        if attr.force_new {
            flag_problem("a computed-only attribute cannot force a replacement");
        }
        if !attr.conflicts_with.is_empty() {
            flag_problem("a computed-only attribute cannot conflict with others");
        }
        if attr.deprecation.is_some() && attr.write_only {
            flag_problem("a computed-only attribute cannot be write-only");
        }
    }
    if attr.force_new && kind != Kind::Resource {
        flag_problem("only resource attributes can force a replacement");
    }
    if attr.write_only {
        if attr.computed {
            flag_problem("a write-only attribute cannot be computed");
        }
        if attr.force_new {
            flag_problem("a write-only attribute cannot force a replacement: it is never stored");
        }
        if kind != Kind::Resource {
            flag_problem("only resource attributes can be write-only");
        }
    }
    for other in &attr.conflicts_with {
        if other == name {
            flag_problem("it conflicts with itself");
        } else {
            match spec.attributes.get(other) {
                None => flag_problem(&format!(
                    "ConflictsWith names {other:?}, which does not exist"
                )),
                Some(other_attr) if other_attr.required => flag_problem(&format!(
                    "ConflictsWith names {other:?}, which is required and so always set"
                )),
                Some(_) => {}
            }
        }
    }
    if attr.required && !attr.conflicts_with.is_empty() {
        flag_problem("a required attribute cannot conflict with others");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource::{Function, Timeouts};
    use crate::validators::int_at_least;
    use std::time::Duration;
    use terrace_providers::{FunctionParameter, FunctionSpec, StringKind};
    use terrace_value::{Type, Value};

    fn good_resource() -> ResourceSpec<()> {
        ResourceSpec::new(
            BlockSpec::new()
                .attr("id", Attr::string().computed())
                .attr("name", Attr::string().required().force_new())
                .attr(
                    "size",
                    Attr::number().optional().computed().default(Value::int(1)),
                ),
        )
        .create(|_, _, _| Ok(()))
        .read(|_, _, _| Ok(()))
        .update(|_, _, _| Ok(()))
        .delete(|_, _, _| Ok(()))
    }

    fn provider(resource: ResourceSpec<()>) -> ProviderSpec<()> {
        ProviderSpec::new(BlockSpec::new(), |_, _| Ok(())).resource("thing_a", resource)
    }

    fn problems(spec: ProviderSpec<()>) -> Vec<String> {
        spec.internal_validate()
            .err()
            .map(|e| e.problems)
            .unwrap_or_default()
    }

    #[test]
    fn a_consistent_provider_passes() {
        assert_eq!(problems(provider(good_resource())), Vec::<String>::new());
    }

    #[test]
    fn inconsistent_schemas_are_caught() {
        let cases: Vec<(ResourceSpec<()>, &str)> = vec![
            (
                ResourceSpec::new(
                    BlockSpec::new().attr("x", Attr::string().required().optional().force_new()),
                ),
                "Required and Optional cannot both be set",
            ),
            (good_resource().version(0).check(|_| Ok(())), ""),
            (
                ResourceSpec::new(BlockSpec::new().attr("x", Attr::string().force_new())),
                "one of Required, Optional or Computed must be set",
            ),
            (
                ResourceSpec::new(
                    BlockSpec::new().attr(
                        "x",
                        Attr::string()
                            .required()
                            .default(Value::string("d"))
                            .force_new(),
                    ),
                ),
                "a Default needs Optional and Computed",
            ),
            (
                ResourceSpec::new(
                    BlockSpec::new().attr(
                        "x",
                        Attr::number()
                            .optional()
                            .computed()
                            .default(Value::string("no"))
                            .force_new(),
                    ),
                ),
                "the Default does not fit the type number",
            ),
            (
                ResourceSpec::new(
                    BlockSpec::new().attr("x", Attr::number().computed().validate(int_at_least(1))),
                ),
                "validators are for configuration",
            ),
            (
                ResourceSpec::new(
                    BlockSpec::new().attr("count", Attr::number().optional().force_new()),
                ),
                "the name is reserved by Terraform",
            ),
            (
                ResourceSpec::new(
                    BlockSpec::new().attr("Name", Attr::string().optional().force_new()),
                ),
                "names are lower-case letters",
            ),
            (
                ResourceSpec::new(BlockSpec::new().attr("x", Attr::string().optional())),
                "no Update defined, must set ForceNew on: [x]",
            ),
            (
                ResourceSpec::new(
                    BlockSpec::new().attr("x", Attr::string().optional().force_new()),
                )
                .update(|_, _, _| Ok(())),
                "Update is superfluous",
            ),
            (
                good_resource().version(2).upgrader(0, Ok),
                "schema version 2 has no state upgrader from version 1",
            ),
            (
                good_resource().upgrader(3, Ok),
                "a state upgrader from version 3",
            ),
            (
                ResourceSpec::new(BlockSpec::new().attr(
                    "x",
                    Attr::string().optional().conflicts_with(&["y"]).force_new(),
                )),
                "ConflictsWith names \"y\", which does not exist",
            ),
            (
                ResourceSpec::new(
                    BlockSpec::new().block(
                        "b",
                        NestedBlockSpec::single(
                            BlockSpec::new().attr("x", Attr::string().optional()),
                        )
                        .max_items(2)
                        .force_new(),
                    ),
                ),
                "a single block cannot have more than one item",
            ),
            (
                ResourceSpec::new(BlockSpec::new().attr("id", Attr::number().computed())),
                "\"id\" must be a computed string",
            ),
            (
                ResourceSpec::new(
                    BlockSpec::new().attr("x", Attr::string().optional().force_new()),
                )
                .timeouts(Timeouts {
                    update: Some(Duration::from_secs(1)),
                    ..Timeouts::default()
                }),
                "a update timeout is declared but there is no update",
            ),
        ];
        for (resource, want) in cases {
            let found = problems(provider(resource));
            if want.is_empty() {
                assert!(found.is_empty(), "{found:?}");
            } else {
                assert!(
                    found.iter().any(|p| p.contains(want)),
                    "wanted {want:?} in {found:?}"
                );
            }
        }
    }

    #[test]
    fn provider_data_sources_and_functions_are_checked() {
        let spec = ProviderSpec::<()>::new(
            BlockSpec::new().attr("alias", Attr::string().optional()),
            |_, _| Ok(()),
        )
        .data_source(
            "thing_d",
            DataSourceSpec::new(BlockSpec::new().attr("x", Attr::string().optional().force_new())),
        )
        .function(
            "f",
            Function::new(
                FunctionSpec {
                    parameters: vec![
                        FunctionParameter {
                            name: "a".into(),
                            ty: Type::String,
                            allow_null_value: false,
                            allow_unknown_values: false,
                            description: String::new(),
                            description_kind: StringKind::Plain,
                        };
                        2
                    ],
                    variadic_parameter: None,
                    return_type: Type::String,
                    summary: String::new(),
                    description: String::new(),
                    description_kind: StringKind::Plain,
                    deprecation_message: String::new(),
                },
                |_| Ok(Value::string("")),
            ),
        );
        let found = problems(spec);
        let wanted = [
            "provider: attribute \"alias\": the name is reserved by Terraform",
            "data source thing_d: attribute \"x\": only resource attributes can force a replacement",
            "data source thing_d: Read must be implemented",
            "function \"f\": parameter \"a\" is declared twice",
        ];
        for want in wanted {
            assert!(
                found.iter().any(|p| p == want),
                "wanted {want:?} in {found:?}"
            );
        }
    }
}
