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
use terrace_config::body::Body;
use terrace_config::expr::Expression;
use terrace_providers::{
    ClientCapabilities, Provider, ValidateDataResourceConfigRequest,
    ValidateEphemeralResourceConfigRequest, ValidateProviderConfigRequest,
    ValidateResourceConfigRequest,
};
use terrace_syntax::diagnostic::has_errors;
use terrace_syntax::Diagnostics;
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
