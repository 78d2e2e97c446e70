//! The resource attributes a plan's changes depend on (Terraform's
//! "relevant attributes"): starting from the references in every changed
//! resource instance's configuration and every changed root output, named
//! values (variables through their module call arguments, locals, module
//! outputs, `count`/`each` through the repetition expression) are followed
//! back to the resource attributes that feed them. A reference to a
//! resource attribute is followed into the expression that sets it.
//! `show -json` lists these, and the plan shows drift only where it
//! touches one of them.

use crate::model::{addr_mode, path_names, Model};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use terrace_addrs::{
    AbsResource, AbsResourceInstance, InstanceKey, ModuleInstance, Resource as ResourceAddr,
};
use terrace_config::body::{Body, BodySchema};
use terrace_config::expr::Expression;
use terrace_config::loader::Config;
use terrace_lang::references::{self as refs, parse_ref, Reference, Subject};
use terrace_plans::model::{Action, OutputChange, ResourceAttr, ResourceInstanceChange};
use terrace_providers::{AttributePath, Block, NestingMode, PathStep};
use terrace_syntax::ast::{SourceFile, Traversal, TraversalStep};

/// A reference with the place it is resolved in: a module instance, or
/// for `count.*`/`each.*` the resource whose repetition it means (the
/// repetition expression is the same for every instance, so the
/// reference leads to the same things from each).
#[derive(Clone)]
struct GlobalRef {
    module: ModuleInstance,
    repeated: Option<AbsResource>,
    reference: Reference,
    /// The file the reference is written in, for reading index keys.
    file: Arc<SourceFile>,
}

impl GlobalRef {
    fn new(
        module: &ModuleInstance,
        resource: Option<&AbsResourceInstance>,
        reference: Reference,
        file: &Arc<SourceFile>,
    ) -> GlobalRef {
        let repeated = match reference.subject {
            Subject::CountAttr(_) | Subject::ForEachAttr(_) => {
                resource.map(AbsResourceInstance::containing_resource)
            }
            _ => None,
        };
        GlobalRef {
            module: module.clone(),
            repeated,
            reference,
            file: file.clone(),
        }
    }

    /// Two references with the same key lead to the same things.
    fn key(&self) -> String {
        let container = match &self.repeated {
            Some(r) => r.to_string(),
            None => self.module.to_string(),
        };
        let kind = match self.reference.subject {
            Subject::Resource(_) => "resource",
            Subject::ResourceInstance { .. } => "instance",
            _ => "other",
        };
        format!("{container}|{kind}|{}", self.reference.display_string())
    }

    fn resource_instance(&self) -> Option<AbsResourceInstance> {
        let (res, key) = match &self.reference.subject {
            Subject::Resource(res) => (res, InstanceKey::None),
            Subject::ResourceInstance { resource, key } => (resource, addr_key(key)),
            _ => return None,
        };
        Some(
            ResourceAddr::new(
                addr_mode(res.mode),
                res.type_name.as_str(),
                res.name.as_str(),
            )
            .absolute(self.module.clone())
            .instance(key),
        )
    }

    /// The referenced attribute path; `None` when an index key is neither
    /// a string nor a whole number.
    fn attribute_path(&self) -> Option<AttributePath> {
        let mut steps = Vec::new();
        for step in &self.reference.remaining {
            steps.push(match step {
                TraversalStep::Attr { name, .. } => PathStep::Attribute(name.clone()),
                TraversalStep::Index { key, .. } => {
                    let value = literal_key(key, &self.file)?;
                    if let Some(s) = value.as_str() {
                        PathStep::Key(s.to_string())
                    } else {
                        PathStep::Index(value.as_number()?.to_i64()?)
                    }
                }
            });
        }
        Some(AttributePath(steps))
    }
}

fn addr_key(key: &refs::InstanceKey) -> InstanceKey {
    match key {
        refs::InstanceKey::None => InstanceKey::None,
        refs::InstanceKey::Int(i) => InstanceKey::Int(*i),
        refs::InstanceKey::String(s) => InstanceKey::string(s),
    }
}

fn literal_key(key: &terrace_syntax::ast::Expr, file: &SourceFile) -> Option<terrace_value::Value> {
    let scope = terrace_lang::scope::MapScope::constant();
    let (v, d) = terrace_lang::eval::evaluate(key, file, &scope);
    (!terrace_syntax::diagnostic::has_errors(&d) && v.is_known() && !v.is_null()).then_some(v)
}

fn expression_refs(
    module: &ModuleInstance,
    resource: Option<&AbsResourceInstance>,
    e: &Expression,
) -> Vec<GlobalRef> {
    crate::graph::expr_refs(e)
        .into_iter()
        .map(|r| GlobalRef::new(module, resource, r, e.file()))
        .collect()
}

fn body_refs(
    module: &ModuleInstance,
    resource: &AbsResourceInstance,
    body: &Body,
    block: &Block,
) -> Vec<GlobalRef> {
    traversal_refs(
        module,
        resource,
        &terrace_config::hcldec::body_references(body, block),
    )
}

fn traversal_refs(
    module: &ModuleInstance,
    resource: &AbsResourceInstance,
    traversals: &[(Traversal, Arc<SourceFile>)],
) -> Vec<GlobalRef> {
    traversals
        .iter()
        .filter_map(|(t, file)| {
            parse_ref(t, file)
                .0
                .map(|r| GlobalRef::new(module, Some(resource), r, file))
        })
        .collect()
}

struct Analyzer<'m, 'a> {
    root: &'a Config,
    model: &'m Model<'a>,
}

impl Analyzer<'_, '_> {
    fn module_config(&self, m: &ModuleInstance) -> Option<&Config> {
        self.root.descendant(&path_names(&m.module()))
    }

    /// What a reference leads to one step back.
    fn meta_references(&self, r: &GlobalRef) -> Vec<GlobalRef> {
        let module = &r.module;
        match &r.reference.subject {
            Subject::InputVariable(name) => {
                let Some((caller, call)) = module.call() else {
                    return Vec::new();
                };
                let Some(mc) = self
                    .module_config(&caller)
                    .and_then(|c| c.module.module_calls.get(call.name.as_ref()))
                else {
                    return Vec::new();
                };
                let (content, _, _) = mc
                    .config
                    .partial_content(&BodySchema::new().attr(name.as_str()));
                content
                    .attribute(name)
                    .map(|a| expression_refs(&caller, None, &a.expr))
                    .unwrap_or_default()
            }
            Subject::LocalValue(name) => self
                .module_config(module)
                .and_then(|c| c.module.locals.get(name))
                .map(|l| expression_refs(module, None, &l.expr))
                .unwrap_or_default(),
            Subject::ModuleCallInstanceOutput { call, key, name } => {
                self.output_refs(&module.child(call.as_str(), addr_key(key)), name)
            }
            Subject::ModuleCall(call) => self.call_refs(module, call, &refs::InstanceKey::None),
            Subject::ModuleCallInstance { call, key } => self.call_refs(module, call, key),
            Subject::CountAttr(_) | Subject::ForEachAttr(_) => {
                let Some(resource) = &r.repeated else {
                    return Vec::new();
                };
                let cr = resource.config();
                let Some(rc) = self.model.resources.get(&cr).and_then(|i| i.config) else {
                    return Vec::new();
                };
                rc.for_each
                    .iter()
                    .chain(rc.count.iter())
                    .flat_map(|e| expression_refs(&resource.module, None, e))
                    .collect()
            }
            Subject::Resource(_) | Subject::ResourceInstance { .. } => {
                match r.resource_instance() {
                    Some(instance) => {
                        self.resource_refs(&instance, &r.reference.remaining, Some(&r.file))
                    }
                    None => Vec::new(),
                }
            }
            _ => Vec::new(),
        }
    }

    fn output_refs(&self, callee: &ModuleInstance, name: &str) -> Vec<GlobalRef> {
        self.module_config(callee)
            .and_then(|c| c.module.outputs.get(name))
            .and_then(|o| o.expr.as_ref())
            .map(|e| expression_refs(callee, None, e))
            .unwrap_or_default()
    }

    fn call_refs(
        &self,
        caller: &ModuleInstance,
        call: &str,
        key: &refs::InstanceKey,
    ) -> Vec<GlobalRef> {
        let callee = caller.child(call, addr_key(key));
        let names: Vec<String> = self
            .module_config(&callee)
            .map(|c| c.module.outputs.keys().cloned().collect())
            .unwrap_or_default();
        names
            .iter()
            .flat_map(|n| self.output_refs(&callee, n))
            .collect()
    }

    /// The references in what sets the attribute `remaining` names (the
    /// whole body when it names none), following the schema through
    /// nested blocks as Terraform's reference analysis does: a step into a
    /// repeated nested block keeps the whole body in view.
    fn resource_refs(
        &self,
        instance: &AbsResourceInstance,
        remaining: &[TraversalStep],
        file: Option<&SourceFile>,
    ) -> Vec<GlobalRef> {
        let Some(info) = self.model.resources.get(&instance.config_resource()) else {
            return Vec::new();
        };
        let (Some(rc), Some(schema)) = (info.config, &info.schema) else {
            return Vec::new();
        };
        if remaining.is_empty() {
            // The whole body: its references are found once per resource.
            let traversals = info.config_references().map(|refs| refs.all());
            return traversal_refs(&instance.module, instance, traversals.unwrap_or_default());
        }
        let mut bodies: Vec<Body> = vec![rc.config.clone()];
        let mut exprs: Vec<Expression> = Vec::new();
        let mut block: Option<&Block> = Some(&schema.block);
        for step in remaining {
            if bodies.is_empty() {
                return Vec::new();
            }
            let Some(current) = block else { break };
            let name = match step {
                TraversalStep::Attr { name, .. } => name.clone(),
                TraversalStep::Index { key, .. } => {
                    match file
                        .and_then(|f| literal_key(key, f))
                        .and_then(|v| index_name(&v))
                    {
                        Some(n) => n,
                        None => {
                            bodies.clear();
                            continue;
                        }
                    }
                }
            };
            if current.attributes.contains_key(&name) {
                for body in &bodies {
                    let (content, _, _) = body.partial_content(&BodySchema::new().attr(&name));
                    if let Some(a) = content.attribute(&name) {
                        exprs.push(a.expr.clone());
                    }
                }
                bodies.clear();
                block = None;
                break;
            }
            match current.block_types.get(&name) {
                Some(nested)
                    if matches!(nested.nesting, NestingMode::Single | NestingMode::Group) =>
                {
                    let (inner_bodies, inner_exprs) = single_blocks(&bodies, &name);
                    bodies = inner_bodies;
                    exprs.extend(inner_exprs);
                    block = Some(&nested.block);
                }
                // Repeated blocks leave the selection as it was.
                Some(nested)
                    if matches!(
                        nested.nesting,
                        NestingMode::List | NestingMode::Set | NestingMode::Map
                    ) => {}
                _ => {
                    bodies.clear();
                    block = None;
                    break;
                }
            }
        }
        if bodies.is_empty() && exprs.is_empty() {
            return Vec::new();
        }
        let mut out: Vec<GlobalRef> = exprs
            .iter()
            .flat_map(|e| expression_refs(&instance.module, Some(instance), e))
            .collect();
        if let Some(block) = block {
            for body in &bodies {
                out.extend(body_refs(&instance.module, instance, body, block));
            }
        }
        out
    }
}

/// An index key as the attribute or block name it could select.
fn index_name(v: &terrace_value::Value) -> Option<String> {
    if let Some(s) = v.as_str() {
        return Some(s.to_string());
    }
    v.as_number().map(|n| n.text('f', -1))
}

/// The bodies of the blocks of type `name` (a `dynamic` block's `content`,
/// whose `for_each` and `labels` are expressions of their own).
fn single_blocks(bodies: &[Body], name: &str) -> (Vec<Body>, Vec<Expression>) {
    let schema = BodySchema::new()
        .block(name)
        .labeled_block("dynamic", &["type"]);
    let mut out_bodies = Vec::new();
    let mut out_exprs = Vec::new();
    for body in bodies {
        let (content, _, _) = body.partial_content(&schema);
        for b in content.blocks {
            if b.block_type != "dynamic" {
                out_bodies.push(b.body);
                continue;
            }
            if b.labels.first().map(String::as_str) != Some(name) {
                continue;
            }
            let inner = BodySchema::new()
                .attr("for_each")
                .attr("labels")
                .block("content");
            let (parts, _, _) = b.body.partial_content(&inner);
            out_exprs.extend(parts.attributes.into_iter().map(|a| a.expr));
            if let Some(c) = parts.blocks.into_iter().last() {
                out_bodies.push(c.body);
            }
        }
    }
    (out_bodies, out_exprs)
}

/// The relevant attributes of a plan with these changes (and these
/// non-null outputs of called module instances), sorted by resource
/// address (then path, so the order is stable).
pub(crate) fn relevant_attributes(
    root: &Config,
    model: &Model<'_>,
    changes: &[ResourceInstanceChange],
    outputs: &[OutputChange],
    module_outputs: &[(ModuleInstance, String)],
) -> Vec<ResourceAttr> {
    let analyzer = Analyzer { root, model };
    let mut start: Vec<GlobalRef> = Vec::new();
    // Every instance of a resource in one module instance starts from the
    // same references: one of them stands for all.
    let mut started: HashSet<(&ModuleInstance, &ResourceAddr)> = HashSet::new();
    for c in changes {
        if c.action == Action::NoOp || !started.insert((&c.addr.module, &c.addr.resource.resource))
        {
            continue;
        }
        start.extend(analyzer.resource_refs(&c.addr, &[], None));
    }
    let root_instance = ModuleInstance::root();
    for o in outputs {
        if o.action == Action::NoOp {
            continue;
        }
        start.extend(analyzer.output_refs(&root_instance, &o.name));
    }
    // Outputs of called modules are planned too, each as a new value
    // unless it is null.
    for (module, name) in module_outputs {
        start.extend(analyzer.output_refs(module, name));
    }

    let mut found: HashMap<String, GlobalRef> = HashMap::new();
    let mut visited: HashSet<String> = HashSet::new();
    let mut pending: Vec<GlobalRef> = Vec::new();
    for r in start {
        if r.resource_instance().is_some() {
            found.insert(r.key(), r.clone());
        }
        pending.push(r);
    }
    while let Some(r) = pending.pop() {
        if !visited.insert(r.key()) {
            continue;
        }
        for next in analyzer.meta_references(&r) {
            if next.resource_instance().is_some() {
                found.insert(next.key(), next.clone());
            }
            if !visited.contains(&next.key()) {
                pending.push(next);
            }
        }
    }

    let mut out: Vec<ResourceAttr> = found
        .values()
        .filter_map(|r| {
            Some(ResourceAttr {
                resource: r.resource_instance()?,
                attr: r.attribute_path()?,
            })
        })
        .collect();
    out.sort_by(|a, b| {
        a.resource
            .cmp(&b.resource)
            .then_with(|| format!("{:?}", a.attr).cmp(&format!("{:?}", b.attr)))
    });
    out.dedup();
    out
}
