//! The validate walk: every block evaluated once per static module with
//! unknown input variables and unknown `count.index`/`each.*`, every body
//! decoded against its schema and sent to one unconfigured instance of
//! its provider configuration.

use crate::common::{visit_local, visit_output, visit_variable};
use crate::graph::{self, GraphKind, Node};
use crate::marks::unmark;
use crate::model;
use crate::providers::{convert_diags, provider_keys, InBody};
use crate::scope::Env;
use crate::values::{Repetition, Values};
use crate::Context;
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use terrace_addrs::{AbsProviderConfig, Module, ResourceMode};
use terrace_config::body::{Body, BodySchema};
use terrace_config::expr::Expression;
use terrace_config::model::StaticTraversal;
use terrace_lang::references::parse_ref;
use terrace_lang::scope::{Lookup, Scope};
use terrace_providers::{
    ClientCapabilities, Provider, ValidateDataResourceConfigRequest,
    ValidateEphemeralResourceConfigRequest, ValidateProviderConfigRequest,
    ValidateResourceConfigRequest,
};
use terrace_syntax::diagnostic::has_errors;
use terrace_syntax::{Diagnostics, PRODUCT};
use terrace_value::{Marks, Type, Value};

fn unknown_rep(count: Option<&Expression>, for_each: Option<&Expression>) -> Repetition {
    if count.is_some() {
        Repetition {
            count_index: Some(Value::unknown(Type::Number)),
            ..Repetition::default()
        }
    } else if for_each.is_some() {
        Repetition {
            count_index: None,
            each_key: Some(Value::unknown(Type::String)),
            each_value: Some(Value::dynamic()),
        }
    } else {
        Repetition::default()
    }
}

pub(crate) fn validate(ctx: &Context) -> Diagnostics {
    // As Terraform: provisioners that cannot run stop validation early.
    let pd = crate::provisioners::check_types(&ctx.config);
    if has_errors(&pd) {
        return pd;
    }
    let (model, mut diags) = model::build(ctx, None);
    // A resource type its provider does not have leaves that resource
    // without a schema, and the walk goes on without it: every other
    // problem is still reported, as terraform reports them.
    let unknown_types = |d: &terrace_syntax::Diagnostic| {
        d.is_error()
            && matches!(
                d.summary.as_str(),
                "Invalid resource type" | "Invalid data source"
            )
    };
    if diags.iter().any(|d| d.is_error() && !unknown_types(d)) {
        return diags;
    }
    let (graph, gd) = graph::build(&model, GraphKind::Plan);
    let graph_failed = has_errors(&gd);
    diags.extend(gd);
    if graph_failed {
        return diags;
    }
    let env = Env {
        ctx,
        model,
        values: Values::new(),
        now: String::new(),
        applying: false,
        validating: true,
        functions: Default::default(),
        checks: Default::default(),
        resource_conditions_warn: false,
    };
    let mut unconfigured: HashMap<AbsProviderConfig, Arc<dyn Provider>> = HashMap::new();
    for i in order(&graph) {
        match &graph.nodes[i] {
            Node::Variable(m, n) => {
                if !m.is_root() {
                    diags.extend(visit_variable(&env, m, n).1);
                }
            }
            Node::Local(m, n) => diags.extend(visit_local(&env, m, n).1),
            Node::Output(m, n) => diags.extend(visit_output(&env, m, n).1),
            Node::ModuleCall(m, n) => module_call(&env, m, n, &mut diags),
            Node::Provider(p) => {
                if let Some(info) = env.model.providers.get(p) {
                    match ctx.providers.start(&p.provider) {
                        Ok(inst) => {
                            validate_provider(&env, info, inst.as_ref(), &mut diags);
                            unconfigured.insert(p.clone(), inst);
                        }
                        Err(d) => diags.extend(d),
                    }
                }
            }
            Node::Resource(r) => {
                let Some(info) = env.model.resources.get(r) else {
                    continue;
                };
                let (Some(rc), Some(cfg), Some(schema)) = (info.config, info.module, &info.schema)
                else {
                    continue;
                };
                let mut value = validation_resource_value(rc, &info.ty);
                if r.resource.mode == ResourceMode::Ephemeral {
                    value = value.mark(Marks::EPHEMERAL);
                }
                env.values
                    .set_resource(&r.module.unkeyed_instance(), &info.local_key(), value);
                let rep = unknown_rep(rc.count.as_ref(), rc.for_each.as_ref());
                let scope = env.scope(cfg, r.module.unkeyed_instance(), Repetition::default());
                diags.extend(crate::expand::validate_repetition(
                    &scope,
                    rc.count.as_ref(),
                    rc.for_each.as_ref(),
                ));
                diags.extend(depends_on_problems(&scope, &rc.depends_on));
                // Its body is generated from the imported object while
                // planning; there is nothing written to check yet.
                if rc.generated_for_import {
                    continue;
                }
                if let Some(managed) = &rc.managed {
                    let mut pscope = env.scope(cfg, r.module.unkeyed_instance(), rep.clone());
                    pscope.self_value = Some(Value::unknown(info.ty.clone()));
                    for p in &managed.provisioners {
                        diags.extend(crate::provisioners::validate(p, &pscope));
                    }
                }
                let scope = env.scope(cfg, r.module.unkeyed_instance(), rep);
                let (value, d) = crate::common::decode_config(&rc.config, &schema.block, &scope);
                let failed = has_errors(&d);
                diags.extend(d);
                if failed {
                    continue;
                }
                if let Some(managed) = &rc.managed {
                    ignore_changes_problems(rc, managed, &schema.block, &mut diags);
                }
                // An ephemeral value where it would be stored is refused
                // here already, as terraform's validate refuses it.
                if matches!(r.resource.mode, ResourceMode::Managed | ResourceMode::Data) {
                    let address = r.to_string();
                    let refused = crate::common::ephemeral_values_persisted(
                        &value,
                        &schema.block,
                        InBody::new(&rc.config, &address, &info.provider.provider),
                    );
                    if has_errors(&refused) {
                        diags.extend(refused);
                        continue;
                    }
                }
                let Some(p) = unconfigured.get(&info.provider) else {
                    continue;
                };
                let (value, _) = unmark(&value);
                let type_name = r.resource.type_name.to_string();
                let pd = match r.resource.mode {
                    ResourceMode::Data => {
                        p.validate_data_resource_config(ValidateDataResourceConfigRequest {
                            type_name,
                            config: value,
                        })
                        .diagnostics
                    }
                    ResourceMode::Ephemeral => {
                        p.validate_ephemeral_resource_config(
                            ValidateEphemeralResourceConfigRequest {
                                type_name,
                                config: value,
                            },
                        )
                        .diagnostics
                    }
                    _ => {
                        p.validate_resource_config(ValidateResourceConfigRequest {
                            type_name,
                            config: value,
                            client_capabilities: ClientCapabilities::default(),
                        })
                        .diagnostics
                    }
                };
                let address = r.to_string();
                diags.extend(convert_diags(
                    pd,
                    Some(InBody::new(&rc.config, &address, &info.provider.provider)),
                ));
            }
            Node::Destroy(_) | Node::EphemeralClose(_) => {}
            Node::Check(m, n) => {
                let (_, d) =
                    crate::common::visit_check(&env, m, n, crate::common::CheckPhase::Validate);
                diags.extend(d);
            }
        }
    }
    for (config, instance) in unconfigured {
        ctx.providers.release(&config.provider, instance);
    }
    diags
}

/// terraform's check of `ignore_changes`: each entry names an argument or
/// nested block of the resource type; one the provider alone decides
/// (computed, not optional) is warned about, since it has no configured
/// value to keep. Once an error is found, as in terraform, no more
/// warnings are given.
fn ignore_changes_problems(
    rc: &terrace_config::model::Resource,
    managed: &terrace_config::model::ManagedResource,
    block: &terrace_providers::schema::Block,
    diags: &mut Diagnostics,
) {
    for entry in &managed.ignore_changes {
        let name = entry.traversal.root.as_str();
        let attr = block.attributes.get(name);
        if attr.is_none() && !block.block_types.contains_key(name) {
            let names = block.attributes.keys().chain(block.block_types.keys());
            let suggestion = terrace_lang::eval::suggest_name(name, names.map(String::as_str))
                .map(|s| format!(" Did you mean {s:?}?"))
                .unwrap_or_default();
            diags.push(
                terrace_syntax::Diagnostic::error(
                    "Unsupported attribute",
                    format!("This object has no argument, nested block, or exported attribute named {name:?}.{suggestion}"),
                )
                .with_subject(entry.file.range(entry.traversal.root_span)),
            );
            continue;
        }
        if has_errors(diags) || !entry.traversal.steps.is_empty() {
            continue;
        }
        if attr.is_some_and(|a| a.computed && !a.optional) {
            diags.push(
                terrace_syntax::Diagnostic::warning(
                    "Redundant ignore_changes element",
                    format!("Adding an attribute name to ignore_changes tells {PRODUCT} to ignore future changes to the argument in configuration after the object has been created, retaining the value originally configured.\n\nThe attribute {name} is decided by the provider alone and therefore there can be no configured value to compare with. Including this attribute in ignore_changes has no effect. Remove the attribute from ignore_changes to quiet this warning."),
                )
                .with_subject(rc.type_range.clone()),
            );
        }
    }
}

/// terraform's check of a resource's `depends_on`: each entry names a whole
/// object (not an attribute of one) that is declared.
fn depends_on_problems(scope: &dyn Scope, depends_on: &[StaticTraversal]) -> Diagnostics {
    let mut diags = Diagnostics::new();
    for entry in depends_on {
        let (reference, d) = parse_ref(&entry.traversal, &entry.file);
        diags.extend(d);
        let Some(reference) = reference else {
            continue;
        };
        if let (Some(first), Some(last)) = (reference.remaining.first(), reference.remaining.last())
        {
            diags.push(
                terrace_syntax::Diagnostic::error(
                    "Invalid depends_on reference",
                    "References in depends_on must be to a whole object (resource, etc), not to an attribute of an object.",
                )
                .with_subject(entry.file.range(first.span().to(last.span()))),
            );
        }
        if has_errors(&diags) {
            continue;
        }
        // Looking the object up reports one that is not declared.
        if let Lookup::Failed(d) = scope.lookup(&entry.traversal, &entry.file) {
            diags.extend(d);
        }
    }
    diags
}

/// What references to a resource see while validating: nothing is
/// expanded, so a repeated resource is wholly unknown and a single one an
/// unknown object of its type. Its schema's sensitive attributes are not
/// marked yet, as in terraform's validation: a root output exposing one is
/// found when planning, where the rest of the plan can still be shown.
fn validation_resource_value(rc: &terrace_config::model::Resource, ty: &Type) -> Value {
    if rc.count.is_some() || rc.for_each.is_some() {
        return Value::dynamic();
    }
    Value::unknown(ty.clone())
}

fn module_call(env: &Env<'_>, m: &Module, name: &str, diags: &mut Diagnostics) {
    let root: &terrace_config::loader::Config = &env.ctx.config;
    let Some(cfg) = root.descendant(&model::path_names(m)) else {
        return;
    };
    let Some(mc) = cfg.module.module_calls.get(name) else {
        return;
    };
    let scope = env.scope(cfg, m.unkeyed_instance(), Repetition::default());
    diags.extend(crate::expand::validate_repetition(
        &scope,
        mc.count.as_ref(),
        mc.for_each.as_ref(),
    ));
    // Every argument must be a variable the called module declares.
    if let Some(child) = cfg.children.get(name) {
        let schema = child
            .module
            .variables
            .keys()
            .fold(BodySchema::new(), |schema, v| schema.attr(v));
        let (_, problems) = mc.config.content(&schema);
        diags.extend(
            problems
                .into_iter()
                .filter(|d| d.summary == "Unsupported argument"),
        );
    }
    let child = m
        .unkeyed_instance()
        .child(name, terrace_addrs::InstanceKey::None);
    env.values.set_module_rep(
        child.clone(),
        unknown_rep(mc.count.as_ref(), mc.for_each.as_ref()),
    );
    env.values.set_module_instances(m.child(name), vec![child]);
}

fn validate_provider(
    env: &Env<'_>,
    info: &model::ProviderInfo<'_>,
    p: &dyn Provider,
    diags: &mut Diagnostics,
) {
    let Some(schema) = &info.schema else { return };
    let empty = Body::empty();
    let body = info.config.map(|c| &c.config).unwrap_or(&empty);
    let root: &terrace_config::loader::Config = &env.ctx.config;
    let cfg = info.module.unwrap_or(root);
    for (_, rep) in provider_keys(info) {
        let scope = env.scope(cfg, info.addr.module.unkeyed_instance(), rep);
        let (value, d) = crate::common::decode_config(body, &schema.provider.block, &scope);
        let failed = has_errors(&d);
        diags.extend(d);
        if failed {
            continue;
        }
        let (value, _) = unmark(&value);
        let resp = p.validate_provider_config(ValidateProviderConfigRequest { config: value });
        let address = info.addr.to_string();
        diags.extend(convert_diags(
            resp.diagnostics,
            Some(InBody::new(body, &address, &info.addr.provider)),
        ));
    }
}

fn order(g: &graph::Graph) -> Vec<usize> {
    let dependents = g.dependents();
    let mut indeg: Vec<usize> = g.deps.iter().map(BTreeSet::len).collect();
    let mut ready: Vec<usize> = (0..g.nodes.len()).filter(|i| indeg[*i] == 0).collect();
    ready.reverse();
    let mut out = Vec::new();
    while let Some(i) = ready.pop() {
        out.push(i);
        for &d in &dependents[i] {
            indeg[d] -= 1;
            if indeg[d] == 0 {
                ready.push(d);
            }
        }
    }
    out
}
