//! Terraform's human rendering of a state: what `terraform show` prints
//! without a plan file, and (for a state holding one instance) what
//! `terraform state show` prints. Each object is rendered as an unchanged
//! diff of itself with every child shown and no action symbols, which is
//! how Terraform does it, so the layout (alignment, nested blocks,
//! `(sensitive value)`) is the plan renderer's.

use super::change::{Change, Matcher};
use super::color::Colorize;
use super::differ;
use super::renderers::{Diff, Opts};
use super::{RenderOptions, SchemaLookup};
use crate::jsonval::{self, SchemaNode, J};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use terrace_addrs::{AbsResource, ModuleInstance, ResourceMode};
use terrace_states::{DeposedKey, ObjectState, ObjectStatus, State};
use terrace_syntax::PRODUCT;

/// Renders `state` as `terraform show` does (ending with a newline), or
/// says why an object cannot be decoded with its schema (Terraform then
/// reports "Failed to marshal state to json"). An empty state renders as
/// Terraform's "The state file is empty" line.
pub fn render_state(
    state: &State,
    schemas: &dyn SchemaLookup,
    opts: &RenderOptions,
) -> Result<String, String> {
    let colorize = Colorize {
        enabled: opts.color,
    };
    let tree = ModuleTree::of(state);
    if state.outputs.is_empty() && state.resources.is_empty() {
        return Ok("The state file is empty. No resources are represented.\n".to_string());
    }
    let mut diff_opts = Opts::new(colorize);
    diff_opts.show_unchanged_children = true;
    diff_opts.hide_diff_action_symbols = true;

    let mut out = String::new();
    render_module(
        &mut out,
        state,
        &tree,
        &ModuleInstance::root(),
        schemas,
        &diff_opts,
        true,
    )?;

    if !state.outputs.is_empty() {
        out.push_str("\n\nOutputs:\n\n");
        // terraform's text for a state shows every empty string in a root
        // output, however deep, as null (its plans and `output` show "").
        let output_opts = Opts {
            empty_string_as_null: true,
            ..diff_opts
        };
        for (name, output) in &state.outputs {
            let (plain, _) = output.value.unmark_deep();
            let value = jsonval::from_value(&plain).unwrap_or(J::Null);
            let change = unchanged(value, J::Bool(output.sensitive));
            let diff = differ::compute_diff_for_type(&change, plain.ty());
            let _ = writeln!(out, "{name} = {}", diff.render(0, &output_opts));
        }
    }
    Ok(out)
}

/// The module instances of a state as jsonstate nests them: every
/// ancestor of a module holding resources is a node, children sorted by
/// their address text.
struct ModuleTree {
    children: BTreeMap<String, BTreeSet<(String, ModuleInstance)>>,
}

impl ModuleTree {
    fn of(state: &State) -> ModuleTree {
        let mut children: BTreeMap<String, BTreeSet<(String, ModuleInstance)>> = BTreeMap::new();
        for module in state.resources.keys().map(|a| &a.module) {
            let mut child = module.clone();
            while !child.is_root() {
                let parent = child.parent();
                children
                    .entry(parent.to_string())
                    .or_default()
                    .insert((child.to_string(), child.clone()));
                child = parent;
            }
        }
        ModuleTree { children }
    }
}

/// One module's objects then its children's. `first` is passed down by
/// value, as Terraform's renderer does, which decides where blank lines
/// go between modules.
fn render_module(
    out: &mut String,
    state: &State,
    tree: &ModuleTree,
    module: &ModuleInstance,
    schemas: &dyn SchemaLookup,
    opts: &Opts,
    mut first: bool,
) -> Result<(), String> {
    let objects = module_objects(state, module);
    if !objects.is_empty() && !first {
        out.push('\n');
    }
    for object in objects {
        if !first {
            out.push('\n');
        }
        first = false;
        render_object(out, state, &object, schemas, opts)?;
    }
    if let Some(children) = tree.children.get(&module.to_string()) {
        for (_, child) in children {
            render_module(out, state, tree, child, schemas, opts, first)?;
        }
    }
    Ok(())
}

struct StateObject<'a> {
    resource: &'a AbsResource,
    instance: terrace_addrs::AbsResourceInstance,
    deposed: Option<&'a DeposedKey>,
    object: &'a ObjectState,
}

/// The objects of one module in jsonstate's order: resources by address,
/// instances by key, the current object before deposed ones (by key).
fn module_objects<'a>(state: &'a State, module: &ModuleInstance) -> Vec<StateObject<'a>> {
    let mut out = Vec::new();
    for (addr, rs) in state.resources.iter().filter(|(a, _)| &a.module == module) {
        for (key, is) in &rs.instances {
            let instance = addr.instance(key.clone());
            if let Some(object) = &is.current {
                out.push(StateObject {
                    resource: addr,
                    instance: instance.clone(),
                    deposed: None,
                    object,
                });
            }
            for (dk, object) in &is.deposed {
                out.push(StateObject {
                    resource: addr,
                    instance: instance.clone(),
                    deposed: Some(dk),
                    object,
                });
            }
        }
    }
    out
}

fn render_object(
    out: &mut String,
    state: &State,
    so: &StateObject<'_>,
    schemas: &dyn SchemaLookup,
    opts: &Opts,
) -> Result<(), String> {
    let r = &so.resource.resource;
    let provider = state
        .resources
        .get(so.resource)
        .map(|rs| rs.provider.provider.clone())
        .ok_or_else(|| format!("no resource {} in the state", so.resource))?;
    let keyword = match r.mode {
        ResourceMode::Managed => "resource",
        ResourceMode::Data => "data",
        ResourceMode::Ephemeral => {
            return Err(format!(
                "ephemeral resource {:?} detected in the current state. This is an error in \
                 {PRODUCT}",
                r.to_string()
            ))
        }
    };
    let schema = schemas
        .resource_schema(&provider, r.mode, &r.type_name)
        .ok_or_else(|| {
            format!(
                "no schema found for {} (in provider {provider})",
                so.resource
            )
        })?;
    if so.deposed.is_none() && i64::try_from(so.object.schema_version).ok() != Some(schema.version)
    {
        return Err(format!(
            "schema version {} for {} in state does not match version {} from the provider",
            so.object.schema_version, so.resource, schema.version
        ));
    }
    let value = so
        .object
        .decode(&schema.implied_type())
        .map_err(|e| e.to_string())?;
    let sensitive = jsonval::sensitive_as_bool(&value, &SchemaNode::Block(&schema.block));
    let (plain, _) = value.unmark_deep();
    let json = jsonval::from_value(&plain).unwrap_or(J::Null);
    let diff: Diff = differ::compute_diff_for_block(&unchanged(json, sensitive), &schema.block);

    match (so.deposed, so.object.status) {
        (Some(dk), _) => {
            let _ = write!(out, "# {}: (deposed object {dk})", so.instance);
        }
        (None, ObjectStatus::Tainted) => {
            let _ = write!(out, "# {}: (tainted)", so.instance);
        }
        (None, ObjectStatus::Ready) => {
            let _ = write!(out, "# {}:", so.instance);
        }
    }
    out.push('\n');
    let _ = write!(
        out,
        "{keyword} {} {} {}",
        jsonval::quote(&r.type_name),
        jsonval::quote(&r.name),
        diff.render(0, opts)
    );
    out.push('\n');
    Ok(())
}

/// A value that is the same before and after, as the state renderer
/// feeds every object and output to the differ.
fn unchanged(value: J, sensitive: J) -> Change {
    Change {
        before_explicit: false,
        after_explicit: false,
        before: value.clone(),
        after: value,
        unknown: J::Bool(false),
        before_sensitive: sensitive.clone(),
        after_sensitive: sensitive,
        replace_paths: Matcher::empty(false),
        relevant: Matcher::Always,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use terrace_addrs::Provider;
    use terrace_providers::{Attribute, Block, Schema};
    use terrace_value::Type;

    /// `terraform_data`'s schema, as the built-in provider declares it.
    fn terraform_data() -> Arc<Schema> {
        let mut block = Block::default();
        let mut id = Attribute::new(Type::String);
        id.computed = true;
        block.attributes.insert("id".into(), id);
        for name in ["input", "triggers_replace"] {
            let mut a = Attribute::new(Type::Dynamic);
            a.optional = true;
            block.attributes.insert(name.into(), a);
        }
        let mut output = Attribute::new(Type::Dynamic);
        output.computed = true;
        block.attributes.insert("output".into(), output);
        Arc::new(Schema { version: 0, block })
    }

    fn lookup(_: &Provider, mode: ResourceMode, ty: &str) -> Option<Arc<Schema>> {
        (mode == ResourceMode::Managed && ty == "terraform_data").then(terraform_data)
    }

    fn instance(module: Option<&str>, name: &str, key: &str, attrs: &str, extra: &str) -> String {
        let module = module
            .map(|m| format!("\"module\": \"{m}\","))
            .unwrap_or_default();
        format!(
            r#"{{{module} "mode": "managed", "type": "terraform_data", "name": "{name}",
              "provider": "provider[\"terraform.io/builtin/terraform\"]",
              "instances": [{{ {key} "schema_version": 0, "attributes": {attrs},
                               "sensitive_attributes": [] {extra} }}]}}"#
        )
    }

    fn state(resources: &[String], outputs: &str) -> State {
        let text = format!(
            r#"{{"version": 4, "terraform_version": "1.11.4", "serial": 1,
                "lineage": "b22d6c49-e101-5309-eb2b-128ae9483097",
                "outputs": {outputs}, "resources": [{}], "check_results": null}}"#,
            resources.join(",")
        );
        match terrace_states::statefile::read(text.as_bytes()) {
            Ok((state, _)) => state,
            Err(diags) => panic!("fixture state: {diags:?}"),
        }
    }

    const A: &str = r#"{"id": "2ff24ea1", "input": {"value": "hello", "type": "string"},
        "output": {"value": "hello", "type": "string"}, "triggers_replace": null}"#;

    // Expected texts are what Terraform 1.11.4 printed for the same
    // objects (`terraform show -no-color`, `terraform state show`).
    #[test]
    fn renders_as_terraform_show_does() {
        let nested = r#"{"id": "af21", "input": {"value": {"list": [1, "x"], "n": 0},
            "type": ["object", {"list": ["tuple", ["number", "string"]], "n": "number"}]},
            "output": null, "triggers_replace": null}"#;
        let sensitive = r#"{"id": "e918", "input": {"value": "secret", "type": "string"},
            "output": {"value": "secret", "type": "string"}, "triggers_replace": null}"#;
        let cases: Vec<(&str, State, &str)> = vec![
            (
                "one resource",
                state(&[instance(None, "a", "", A, "")], "{}"),
                "# terraform_data.a:\nresource \"terraform_data\" \"a\" {\n    id     = \"2ff24ea1\"\n    input  = \"hello\"\n    output = \"hello\"\n}\n",
            ),
            (
                "nested values, count key, tainted",
                state(
                    &[instance(None, "c", "\"index_key\": 0,", nested, ", \"status\": \"tainted\"")],
                    "{}",
                ),
                "# terraform_data.c[0]: (tainted)\nresource \"terraform_data\" \"c\" {\n    id    = \"af21\"\n    input = {\n        list = [\n            1,\n            \"x\",\n        ]\n        n    = 0\n    }\n}\n",
            ),
            (
                "sensitive attribute",
                state(
                    &[instance(
                        None,
                        "s",
                        "",
                        sensitive,
                        "",
                    )
                    .replace(
                        "\"sensitive_attributes\": []",
                        "\"sensitive_attributes\": [[{\"type\": \"get_attr\", \"value\": \"input\"}]]",
                    )],
                    "{}",
                ),
                "# terraform_data.s:\nresource \"terraform_data\" \"s\" {\n    id     = \"e918\"\n    input  = (sensitive value)\n    output = \"secret\"\n}\n",
            ),
            (
                "modules and outputs",
                state(
                    &[
                        instance(None, "a", "", A, ""),
                        instance(Some("module.m"), "a", "", A, ""),
                    ],
                    r#"{"s": {"value": "x", "type": "string", "sensitive": true},
                        "m": {"value": {"a": "x"}, "type": ["map", "string"]}}"#,
                ),
                "# terraform_data.a:\nresource \"terraform_data\" \"a\" {\n    id     = \"2ff24ea1\"\n    input  = \"hello\"\n    output = \"hello\"\n}\n\n\n# module.m.terraform_data.a:\nresource \"terraform_data\" \"a\" {\n    id     = \"2ff24ea1\"\n    input  = \"hello\"\n    output = \"hello\"\n}\n\n\nOutputs:\n\nm = {\n    \"a\" = \"x\"\n}\ns = (sensitive value)\n",
            ),
            (
                "only child modules: no blank line between them",
                state(
                    &[
                        instance(Some("module.a"), "a", "", A, ""),
                        instance(Some("module.b"), "a", "", A, ""),
                    ],
                    "{}",
                ),
                "# module.a.terraform_data.a:\nresource \"terraform_data\" \"a\" {\n    id     = \"2ff24ea1\"\n    input  = \"hello\"\n    output = \"hello\"\n}\n# module.b.terraform_data.a:\nresource \"terraform_data\" \"a\" {\n    id     = \"2ff24ea1\"\n    input  = \"hello\"\n    output = \"hello\"\n}\n",
            ),
            (
                "empty",
                state(&[], "{}"),
                "The state file is empty. No resources are represented.\n",
            ),
        ];
        for (name, state, want) in cases {
            let got = render_state(&state, &lookup, &RenderOptions::new(false))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(got, want, "{name}");
        }
    }

    #[test]
    fn a_missing_schema_is_an_error() {
        let mut s = state(&[instance(None, "a", "", A, "")], "{}");
        let none = |_: &Provider, _: ResourceMode, _: &str| -> Option<Arc<Schema>> { None };
        let err = render_state(&s, &none, &RenderOptions::new(false)).expect_err("no schema");
        assert!(
            err.starts_with("no schema found for terraform_data.a"),
            "{err}"
        );
        if let Some(rs) = s.resources.values_mut().next() {
            if let Some(obj) = rs
                .instances
                .values_mut()
                .next()
                .and_then(|i| std::sync::Arc::make_mut(i).current.as_mut())
            {
                obj.schema_version = 3;
            }
        }
        let err = render_state(&s, &lookup, &RenderOptions::new(false)).expect_err("version");
        assert!(err.contains("does not match version 0"), "{err}");
    }
}
