//! The configuration-level dependency graph: one node per variable,
//! local, output, module call, resource block and provider configuration
//! (and, for apply, a destroy node per managed resource the plan deletes
//! from), with an edge wherever one needs the other first. Edges come from
//! the references in every expression of a block, from `depends_on`, from
//! provider bindings and from module nesting (everything in a module waits
//! for its call to expand).

use crate::model::{module_path, Model};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt;
use terrace_addrs::{AbsProviderConfig, ConfigResource, Module, Resource as ResourceAddr};
use terrace_config::expr::Expression;
use terrace_config::loader::Config;
use terrace_config::model::StaticTraversal;
use terrace_lang::references::{parse_ref, references, Reference, Subject};
use terrace_syntax::{Diagnostic, Diagnostics};

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Node {
    Variable(Module, String),
    Local(Module, String),
    Output(Module, String),
    /// A call declared in the given module.
    ModuleCall(Module, String),
    /// Plan: everything about the resource. Apply: its creates, updates
    /// and reads.
    Resource(ConfigResource),
    /// Apply only, managed resources only: the resource's deletes.
    Destroy(ConfigResource),
    Provider(AbsProviderConfig),
    /// A `check` block declared in the given module.
    Check(Module, String),
    /// An ephemeral resource's instances closed, after everything that
    /// uses their values (directly or through other nodes) is done.
    EphemeralClose(ConfigResource),
}

fn prefixed(f: &mut fmt::Formatter<'_>, m: &Module) -> fmt::Result {
    if m.is_root() {
        Ok(())
    } else {
        write!(f, "{m}.")
    }
}

/// Terraform's vertex names, as cycle errors show them.
impl fmt::Display for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Node::Variable(m, n) => {
                prefixed(f, m)?;
                write!(f, "var.{n} (expand)")
            }
            Node::Local(m, n) => {
                prefixed(f, m)?;
                write!(f, "local.{n} (expand)")
            }
            Node::Output(m, n) => {
                prefixed(f, m)?;
                write!(f, "output.{n} (expand)")
            }
            Node::ModuleCall(m, n) => {
                prefixed(f, m)?;
                write!(f, "module.{n} (expand)")
            }
            Node::Resource(r) => write!(f, "{r}"),
            Node::Destroy(r) => write!(f, "{r} (destroy)"),
            Node::EphemeralClose(r) => write!(f, "{r} (close)"),
            Node::Provider(p) => write!(f, "{p}"),
            Node::Check(m, n) => {
                prefixed(f, m)?;
                write!(f, "check.{n} (expand)")
            }
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum GraphKind<'w> {
    Plan,
    /// Applying a plan that deletes what `DeleteWork` says.
    Apply(&'w DeleteWork),
}

/// What an applied plan deletes, by resource: only those resources get a
/// destroy node, so deletes order only against what is really deleted.
#[derive(Debug, Default)]
pub(crate) struct DeleteWork {
    /// Resources with an object to delete (or to forget).
    pub deleting: HashSet<ConfigResource>,
    /// Resources replaced destroy-then-create: creates after deletes.
    pub delete_first: HashSet<ConfigResource>,
    /// Resources replaced create-then-destroy: deletes after creates.
    pub create_first: HashSet<ConfigResource>,
}

impl DeleteWork {
    pub fn of_changes(changes: &[terrace_plans::model::ResourceInstanceChange]) -> DeleteWork {
        use terrace_plans::model::Action;
        let mut work = DeleteWork::default();
        for c in changes {
            let r = c.addr.config_resource();
            if !has_destroy_node(&r) {
                continue;
            }
            let deletes = c.deposed.is_some()
                || matches!(
                    c.action,
                    Action::Delete
                        | Action::DeleteThenCreate
                        | Action::CreateThenDelete
                        | Action::Forget
                );
            if !deletes {
                continue;
            }
            work.deleting.insert(r.clone());
            if c.deposed.is_none() {
                match c.action {
                    Action::DeleteThenCreate => {
                        work.delete_first.insert(r);
                    }
                    Action::CreateThenDelete => {
                        work.create_first.insert(r);
                    }
                    _ => {}
                }
            }
        }
        work
    }
}

pub(crate) struct Graph {
    pub nodes: Vec<Node>,
    pub index: HashMap<Node, usize>,
    /// `deps[i]`: the nodes `i` waits for.
    pub deps: Vec<BTreeSet<usize>>,
    /// For each resource node, the resources it depends on, directly or
    /// through other nodes (what the state records as `dependencies`).
    pub resource_deps: HashMap<ConfigResource, Vec<ConfigResource>>,
    /// Resources replaced create-before-destroy: those that ask for it and,
    /// as Terraform forces it, everything they depend on.
    pub cbd: std::collections::HashSet<ConfigResource>,
    /// For each data resource, the managed resources whose pending changes
    /// make it wait for apply to be read.
    pub data_read_deps: HashMap<ConfigResource, Vec<ConfigResource>>,
}

impl Graph {
    fn add(&mut self, node: Node) -> usize {
        if let Some(i) = self.index.get(&node) {
            return *i;
        }
        let i = self.nodes.len();
        self.index.insert(node.clone(), i);
        self.nodes.push(node);
        self.deps.push(BTreeSet::new());
        i
    }

    fn edge(&mut self, from: usize, to: &Node) {
        if let Some(t) = self.index.get(to).copied() {
            if t != from {
                self.deps[from].insert(t);
            }
        }
    }

    pub fn dependents(&self) -> Vec<Vec<usize>> {
        let mut out = vec![Vec::new(); self.nodes.len()];
        for (i, ds) in self.deps.iter().enumerate() {
            for d in ds {
                out[*d].push(i);
            }
        }
        out
    }
}

pub(crate) fn expr_refs(e: &Expression) -> Vec<Reference> {
    let (expr, _) = e.evaluable();
    references(expr, e.file()).0
}

/// The references a provider-schema body holds (hcldec's traversals read
/// as Terraform references).
fn body_refs(
    body: &terrace_config::body::Body,
    block: &terrace_providers::Block,
) -> Vec<Reference> {
    terrace_config::hcldec::body_references(body, block)
        .into_iter()
        .filter_map(|(t, file)| parse_ref(&t, &file).0)
        .collect()
}

fn traversal_ref(t: &StaticTraversal) -> Option<Reference> {
    parse_ref(&t.traversal, &t.file).0
}

/// The nodes a reference written in module `c` needs.
fn ref_nodes(model: &Model, c: &Config, m: &Module, r: &Reference, out: &mut Vec<Node>) {
    match &r.subject {
        Subject::InputVariable(n) => out.push(Node::Variable(m.clone(), n.clone())),
        Subject::LocalValue(n) => out.push(Node::Local(m.clone(), n.clone())),
        Subject::ModuleCall(call) | Subject::ModuleCallInstance { call, .. } => {
            out.push(Node::ModuleCall(m.clone(), call.clone()));
            if let Some(child) = c.children.get(call) {
                let cm = m.child(call.as_str());
                for o in child.module.outputs.keys() {
                    out.push(Node::Output(cm.clone(), o.clone()));
                }
                // The whole module (a `depends_on` entry, or the module
                // object as a value) is ready only when all of it is.
                out.extend(
                    model
                        .resources
                        .iter()
                        .filter(|(r, i)| {
                            i.config.is_some() && r.module.names().starts_with(cm.names())
                        })
                        .map(|(r, _)| Node::Resource(r.clone())),
                );
            }
        }
        Subject::ModuleCallInstanceOutput { call, name, .. } => {
            out.push(Node::ModuleCall(m.clone(), call.clone()));
            if let Some(child) = c.children.get(call) {
                let cm = m.child(call.as_str());
                if child.module.outputs.contains_key(name) {
                    out.push(Node::Output(cm, name.clone()));
                } else {
                    for o in child.module.outputs.keys() {
                        out.push(Node::Output(cm.clone(), o.clone()));
                    }
                }
            }
        }
        Subject::Resource(res) | Subject::ResourceInstance { resource: res, .. } => {
            let addr = ResourceAddr::new(
                crate::model::addr_mode(res.mode),
                res.type_name.as_str(),
                res.name.as_str(),
            )
            .in_module(m.clone());
            if model
                .resources
                .get(&addr)
                .is_some_and(|i| i.config.is_some())
            {
                out.push(Node::Resource(addr));
            }
        }
        _ => {}
    }
}

/// Builds the graph of `model`; a cycle is an error naming its nodes.
pub(crate) fn build(model: &Model, kind: GraphKind<'_>) -> (Graph, Diagnostics) {
    let mut g = Graph {
        nodes: Vec::new(),
        index: HashMap::new(),
        deps: Vec::new(),
        resource_deps: HashMap::new(),
        cbd: std::collections::HashSet::new(),
        data_read_deps: HashMap::new(),
    };
    let root: &Config = &model.ctx.config;
    let mut configs: Vec<&Config> = Vec::new();
    root.deep_each(&mut |c| configs.push(c));

    // Nodes first, so edges can find them.
    for c in &configs {
        let m = module_path(c);
        for n in c.module.variables.keys() {
            g.add(Node::Variable(m.clone(), n.clone()));
        }
        for n in c.module.locals.keys() {
            g.add(Node::Local(m.clone(), n.clone()));
        }
        for n in c.module.outputs.keys() {
            g.add(Node::Output(m.clone(), n.clone()));
        }
        for n in c.module.module_calls.keys() {
            if c.children.contains_key(n) {
                g.add(Node::ModuleCall(m.clone(), n.clone()));
            }
        }
        for n in c.module.checks.keys() {
            g.add(Node::Check(m.clone(), n.clone()));
        }
    }
    for addr in model.providers.keys() {
        g.add(Node::Provider(addr.clone()));
    }
    for addr in model.resources.keys() {
        g.add(Node::Resource(addr.clone()));
        if let GraphKind::Apply(work) = kind {
            if work.deleting.contains(addr) {
                g.add(Node::Destroy(addr.clone()));
            }
        }
    }

    let mut wanted: Vec<(usize, Node)> = Vec::new();
    let refs_into = |wanted: &mut Vec<(usize, Node)>,
                     from: usize,
                     c: &Config,
                     m: &Module,
                     refs: Vec<Reference>| {
        let mut out = Vec::new();
        for r in &refs {
            ref_nodes(model, c, m, r, &mut out);
        }
        for n in out {
            wanted.push((from, n));
        }
    };

    for c in &configs {
        let m = module_path(c);
        let call_node = m
            .call()
            .map(|(parent, call)| Node::ModuleCall(parent, call.name.to_string()));
        let in_module = |g: &Graph, n: &Node| g.index.get(n).copied();
        let parent_cfg = if c.path.is_empty() {
            None
        } else {
            root.descendant(&c.path[..c.path.len() - 1])
        };
        let call_args: HashMap<String, Expression> = match (parent_cfg, c.path.last()) {
            (Some(p), Some(name)) => p
                .module
                .module_calls
                .get(name)
                .map(|mc| {
                    mc.config
                        .just_attributes()
                        .0
                        .into_iter()
                        .map(|a| (a.name, a.expr))
                        .collect()
                })
                .unwrap_or_default(),
            _ => HashMap::new(),
        };
        for (n, v) in &c.module.variables {
            let Some(i) = in_module(&g, &Node::Variable(m.clone(), n.clone())) else {
                continue;
            };
            if let (Some(p), Some(e)) = (parent_cfg, call_args.get(n)) {
                refs_into(&mut wanted, i, p, &m.parent(), expr_refs(e));
            }
            let mut refs = Vec::new();
            for rule in &v.validations {
                refs.extend(rule.condition.iter().flat_map(expr_refs));
                refs.extend(rule.error_message.iter().flat_map(expr_refs));
            }
            refs_into(&mut wanted, i, c, &m, refs);
        }
        for (n, l) in &c.module.locals {
            let Some(i) = in_module(&g, &Node::Local(m.clone(), n.clone())) else {
                continue;
            };
            refs_into(&mut wanted, i, c, &m, expr_refs(&l.expr));
        }
        for (n, o) in &c.module.outputs {
            let Some(i) = in_module(&g, &Node::Output(m.clone(), n.clone())) else {
                continue;
            };
            let mut refs: Vec<Reference> = o.expr.iter().flat_map(expr_refs).collect();
            refs.extend(o.depends_on.iter().filter_map(traversal_ref));
            for p in &o.preconditions {
                refs.extend(p.condition.iter().flat_map(expr_refs));
                refs.extend(p.error_message.iter().flat_map(expr_refs));
            }
            refs_into(&mut wanted, i, c, &m, refs);
        }
        for (n, mc) in &c.module.module_calls {
            let Some(i) = in_module(&g, &Node::ModuleCall(m.clone(), n.clone())) else {
                continue;
            };
            let mut refs: Vec<Reference> = mc.count.iter().flat_map(expr_refs).collect();
            refs.extend(mc.for_each.iter().flat_map(expr_refs));
            refs.extend(mc.depends_on.iter().filter_map(traversal_ref));
            refs_into(&mut wanted, i, c, &m, refs);
        }
        for (n, ck) in &c.module.checks {
            let Some(i) = in_module(&g, &Node::Check(m.clone(), n.clone())) else {
                continue;
            };
            let mut refs = Vec::new();
            for rule in &ck.asserts {
                refs.extend(rule.condition.iter().flat_map(expr_refs));
                refs.extend(rule.error_message.iter().flat_map(expr_refs));
            }
            refs_into(&mut wanted, i, c, &m, refs);
            if let Some(d) = &ck.data_resource {
                let addr = crate::model::resource_addr(c, d);
                wanted.push((i, Node::Resource(addr)));
            }
        }
        // Everything in a child module waits for its call to expand, but
        // deletes: they act on planned changes alone, and are ordered only
        // against other resources and their provider, as OpenTofu's
        // destroyers are (else a module whose expansion depends on another
        // module's resources closes a cycle through their deletes).
        if let Some(call) = &call_node {
            let ids: Vec<usize> = g
                .nodes
                .iter()
                .enumerate()
                .filter(|(_, n)| !matches!(n, Node::Destroy(_)))
                .filter(|(_, n)| node_module(n) == Some(&m))
                .map(|(i, _)| i)
                .collect();
            for i in ids {
                wanted.push((i, call.clone()));
            }
        }
    }

    for (addr, p) in &model.providers {
        let Some(i) = g.index.get(&Node::Provider(addr.clone())).copied() else {
            continue;
        };
        if let (Some(block), Some(c), Some(schema)) = (p.config, p.module, &p.schema) {
            let refs = body_refs(&block.config, &schema.provider.block);
            refs_into(&mut wanted, i, c, &addr.module, refs);
        }
        // A `for_each` evaluated during the walk waits for what it refers
        // to; one decided at load time adds only edges to nodes already
        // done.
        if let (Some(block), Some(c)) = (p.config, p.module) {
            if let Some(for_each) = &block.for_each {
                refs_into(&mut wanted, i, c, &addr.module, expr_refs(for_each));
            }
        }
        if let Some((parent, call)) = addr.module.call() {
            wanted.push((i, Node::ModuleCall(parent, call.name.to_string())));
        }
    }

    for (addr, info) in &model.resources {
        let Some(i) = g.index.get(&Node::Resource(addr.clone())).copied() else {
            continue;
        };
        wanted.push((i, Node::Provider(info.provider.clone())));
        if let (Some(r), Some(c)) = (info.config, info.module) {
            let mut refs: Vec<Reference> = r.count.iter().flat_map(expr_refs).collect();
            refs.extend(r.for_each.iter().flat_map(expr_refs));
            refs.extend(r.depends_on.iter().filter_map(traversal_ref));
            refs.extend(r.triggers_replacement.iter().flat_map(expr_refs));
            for cr in r.preconditions.iter().chain(&r.postconditions) {
                refs.extend(cr.condition.iter().flat_map(expr_refs));
                refs.extend(cr.error_message.iter().flat_map(expr_refs));
            }
            if let Some(schema) = &info.schema {
                refs.extend(body_refs(&r.config, &schema.block));
            }
            let provisioner = crate::provisioners::local_exec_schema();
            for p in
                crate::provisioners::of_resource(r, terrace_config::model::ProvisionerWhen::Create)
            {
                refs.extend(body_refs(&p.config, &provisioner));
            }
            // `self` in postconditions and provisioners is not a dependency.
            refs.retain(|r| r.subject != Subject::SelfObject);
            refs_into(&mut wanted, i, c, &addr.module, refs);
            for imp in &root.module.imports {
                if imp.static_to.as_ref() != Some(addr) {
                    continue;
                }
                let mut irefs: Vec<Reference> = imp.id.iter().flat_map(expr_refs).collect();
                irefs.extend(imp.for_each.iter().flat_map(expr_refs));
                irefs.extend(imp.to.iter().flat_map(expr_refs));
                irefs.retain(|r| {
                    !matches!(&r.subject, Subject::Resource(x) | Subject::ResourceInstance { resource: x, .. }
                        if x.type_name == addr.resource.type_name.as_ref() && x.name == addr.resource.name.as_ref())
                });
                refs_into(&mut wanted, i, root, &Module::root(), irefs);
            }
            if let Some((km, e)) = &info.key_expr {
                if let Some(kc) = root.descendant(&crate::model::path_names(km)) {
                    refs_into(&mut wanted, i, kc, km, expr_refs(e));
                }
            }
        }
    }

    for (from, to) in wanted {
        g.edge(from, &to);
    }

    let mut diags = Diagnostics::new();
    if let Some(d) = cycles(&g) {
        diags.extend(d);
        return (g, diags);
    }
    let reach = resource_reach(&g);
    g.resource_deps = resource_dependencies(&g, &reach);
    g.data_read_deps = data_read_dependencies(model, &g, &reach);
    for (addr, info) in &model.resources {
        let wants = info
            .config
            .and_then(|c| c.managed.as_ref())
            .is_some_and(|m| m.create_before_destroy);
        if wants {
            g.cbd.insert(addr.clone());
            if let Some(deps) = g.resource_deps.get(addr) {
                g.cbd.extend(
                    deps.iter()
                        .filter(|d| d.resource.mode == terrace_addrs::ResourceMode::Managed)
                        .cloned(),
                );
            }
        }
    }

    if let GraphKind::Apply(work) = kind {
        add_destroy_edges(model, &mut g, work);
        if let Some(d) = cycles(&g) {
            diags.extend(d);
            return (g, diags);
        }
    }
    add_ephemeral_close_nodes(&mut g);
    (g, diags)
}

/// A close node for each ephemeral resource, waiting for the resource and
/// for every node that depends on it, directly or through others: a
/// credential an ephemeral resource hands out must stay valid until the
/// last provider, resource or output using it is done. Nothing waits for a
/// close node, so it cannot close a cycle.
fn add_ephemeral_close_nodes(g: &mut Graph) {
    let ephemeral: Vec<(usize, ConfigResource)> = g
        .nodes
        .iter()
        .enumerate()
        .filter_map(|(i, n)| match n {
            Node::Resource(r) if r.resource.mode == terrace_addrs::ResourceMode::Ephemeral => {
                Some((i, r.clone()))
            }
            _ => None,
        })
        .collect();
    if ephemeral.is_empty() {
        return;
    }
    let dependents = g.dependents();
    for (start, addr) in ephemeral {
        let mut users: BTreeSet<usize> = BTreeSet::from([start]);
        let mut queue = vec![start];
        while let Some(i) = queue.pop() {
            for &d in &dependents[i] {
                if users.insert(d) {
                    queue.push(d);
                }
            }
        }
        let close = g.add(Node::EphemeralClose(addr));
        g.deps[close] = users;
    }
}

/// Only managed resources delete anything: data sources are just read
/// (and dropped from the state), so they get no destroy node, and so no
/// ordering against deletes that could close a cycle through a
/// `create_before_destroy` resource reading them.
pub(crate) fn has_destroy_node(addr: &ConfigResource) -> bool {
    addr.resource.mode == terrace_addrs::ResourceMode::Managed
}

fn node_module(n: &Node) -> Option<&Module> {
    match n {
        Node::Variable(m, _)
        | Node::Local(m, _)
        | Node::Output(m, _)
        | Node::ModuleCall(m, _)
        | Node::Check(m, _) => Some(m),
        Node::Resource(r) | Node::Destroy(r) | Node::EphemeralClose(r) => Some(&r.module),
        Node::Provider(_) => None,
    }
}

/// The resource nodes each node reaches through its dependencies.
fn resource_reach(g: &Graph) -> Vec<BTreeSet<usize>> {
    let order = topo_order(g);
    let mut reach: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); g.nodes.len()];
    for &i in &order {
        let mut set = BTreeSet::new();
        for &d in &g.deps[i] {
            if matches!(g.nodes[d], Node::Resource(_)) {
                set.insert(d);
            }
            set.extend(reach[d].iter().copied());
        }
        reach[i] = set;
    }
    reach
}

/// Every resource each resource node can reach through its dependencies
/// (OpenTofu's `AttachDependenciesTransformer` over ancestors).
fn resource_dependencies(
    g: &Graph,
    reach: &[BTreeSet<usize>],
) -> HashMap<ConfigResource, Vec<ConfigResource>> {
    // Each resource's address as text, made once: the lists are in the
    // order of those texts, and a resource is in the lists of everything
    // downstream of it.
    let names: Vec<Option<String>> = g
        .nodes
        .iter()
        .map(|n| match n {
            Node::Resource(r) => Some(r.to_string()),
            _ => None,
        })
        .collect();
    let mut out = HashMap::new();
    for (i, n) in g.nodes.iter().enumerate() {
        if let Node::Resource(r) = n {
            let mut deps: Vec<(&str, &ConfigResource)> = reach[i]
                .iter()
                .filter_map(|&d| match (&g.nodes[d], &names[d]) {
                    (Node::Resource(x), Some(name)) if x != r => Some((name.as_str(), x)),
                    _ => None,
                })
                .collect();
            deps.sort_by(|a, b| a.0.cmp(b.0));
            deps.dedup_by(|a, b| a.1 == b.1);
            out.insert(
                r.clone(),
                deps.into_iter().map(|(_, x)| x.clone()).collect(),
            );
        }
    }
    out
}

/// What a data resource's read waits on, as Terraform decides it: the
/// managed resources its configuration refers to directly, what its
/// `depends_on` entries name (a resource itself; for anything else, such
/// as a module or a local value, every resource behind it), and what the
/// `depends_on` of every module call around it names, with what those
/// depend on. A data resource with preconditions or postconditions waits
/// on everything it depends on, since an upstream change may be what makes
/// a condition hold. Other data resources never count: reading them
/// changes nothing.
fn data_read_dependencies(
    model: &Model,
    g: &Graph,
    reach: &[BTreeSet<usize>],
) -> HashMap<ConfigResource, Vec<ConfigResource>> {
    let root: &Config = &model.ctx.config;
    let resource_at = |i: usize| match &g.nodes[i] {
        Node::Resource(r) => Some(r.clone()),
        _ => None,
    };
    // The resources a reference written in module `m` (of config `c`)
    // stands for, with everything behind them when `behind_resources`.
    let targets = |c: &Config,
                   m: &Module,
                   r: &Reference,
                   behind_resources: bool,
                   out: &mut BTreeSet<ConfigResource>| {
        let names_resource = matches!(
            r.subject,
            Subject::Resource(_) | Subject::ResourceInstance { .. }
        );
        let mut nodes = Vec::new();
        ref_nodes(model, c, m, r, &mut nodes);
        for n in nodes {
            let Some(&i) = g.index.get(&n) else { continue };
            if let Node::Resource(res) = &n {
                out.insert(res.clone());
            }
            if behind_resources || !names_resource {
                out.extend(reach[i].iter().filter_map(|&d| resource_at(d)));
            }
        }
    };
    let mut result = HashMap::new();
    for (addr, info) in &model.resources {
        if addr.resource.mode != terrace_addrs::ResourceMode::Data {
            continue;
        }
        let (Some(r), Some(c)) = (info.config, info.module) else {
            continue;
        };
        let mut deps: BTreeSet<ConfigResource> = BTreeSet::new();
        if !r.preconditions.is_empty() || !r.postconditions.is_empty() {
            deps.extend(g.resource_deps.get(addr).cloned().unwrap_or_default());
        } else {
            for reference in r.depends_on.iter().filter_map(traversal_ref) {
                targets(c, &addr.module, &reference, false, &mut deps);
            }
            let mut refs: Vec<Reference> = r.count.iter().flat_map(expr_refs).collect();
            refs.extend(r.for_each.iter().flat_map(expr_refs));
            if let Some(schema) = &info.schema {
                refs.extend(body_refs(&r.config, &schema.block));
            }
            for reference in &refs {
                let (Subject::Resource(res) | Subject::ResourceInstance { resource: res, .. }) =
                    &reference.subject
                else {
                    continue;
                };
                if res.mode == terrace_lang::references::ResourceMode::Managed {
                    targets(c, &addr.module, reference, false, &mut deps);
                }
            }
            let mut inner = addr.module.clone();
            while let Some((parent, call)) = inner.call() {
                let mc = root
                    .descendant(&crate::model::path_names(&parent))
                    .and_then(|pc| {
                        pc.module
                            .module_calls
                            .get(call.name.as_ref())
                            .map(|mc| (pc, mc))
                    });
                if let Some((pc, mc)) = mc {
                    for reference in mc.depends_on.iter().filter_map(traversal_ref) {
                        targets(pc, &parent, &reference, true, &mut deps);
                    }
                }
                inner = parent;
            }
        }
        deps.retain(|d| d.resource.mode != terrace_addrs::ResourceMode::Data && d != addr);
        result.insert(addr.clone(), deps.into_iter().collect());
    }
    result
}

/// Apply ordering between creates and deletes: a resource's deletes wait
/// for the deletes of everything depending on it, and a replacement's
/// create waits for its delete (or, replaced create-before-destroy, its
/// deposed objects are deleted after its creates and its dependents'
/// updates).
fn add_destroy_edges(model: &Model, g: &mut Graph, work: &DeleteWork) {
    let mut edges: Vec<(usize, usize)> = Vec::new();
    let forced = g.cbd.clone();
    let cbd = |r: &ConfigResource| forced.contains(r);
    for (r, deps) in &g.resource_deps {
        let (Some(&apply_r), Some(&destroy_r)) = (
            g.index.get(&Node::Resource(r.clone())),
            g.index.get(&Node::Destroy(r.clone())),
        ) else {
            continue;
        };
        if work.create_first.contains(r) {
            edges.push((destroy_r, apply_r));
        }
        if work.delete_first.contains(r) {
            edges.push((apply_r, destroy_r));
        }
        for d in deps {
            if let Some(&destroy_d) = g.index.get(&Node::Destroy(d.clone())) {
                edges.push((destroy_d, destroy_r));
                if cbd(d) {
                    edges.push((destroy_d, apply_r));
                }
            }
        }
    }
    for (addr, info) in &model.resources {
        let Some(&destroy_r) = g.index.get(&Node::Destroy(addr.clone())) else {
            continue;
        };
        if let Some(&p) = g.index.get(&Node::Provider(info.provider.clone())) {
            edges.push((destroy_r, p));
        }
    }
    for (a, b) in edges {
        if a != b {
            g.deps[a].insert(b);
        }
    }
}

/// Orphaned resources' recorded dependencies order their deletes too.
pub(crate) fn add_state_destroy_edges(
    g: &mut Graph,
    orphan: &ConfigResource,
    deps: &[ConfigResource],
) {
    let Some(&destroy_o) = g.index.get(&Node::Destroy(orphan.clone())) else {
        return;
    };
    for d in deps {
        if let Some(&destroy_d) = g.index.get(&Node::Destroy(d.clone())) {
            if destroy_d != destroy_o {
                g.deps[destroy_d].insert(destroy_o);
            }
        }
    }
}

fn topo_order(g: &Graph) -> Vec<usize> {
    let n = g.nodes.len();
    let mut indeg: Vec<usize> = g.deps.iter().map(|d| d.len()).collect();
    let dependents = g.dependents();
    let mut ready: Vec<usize> = (0..n).filter(|i| indeg[*i] == 0).collect();
    let mut out = Vec::with_capacity(n);
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

/// Terraform's "Cycle: a, b" errors, one per strongly connected component
/// with more than one node.
pub(crate) fn cycles(g: &Graph) -> Option<Diagnostics> {
    if topo_order(g).len() == g.nodes.len() {
        return None;
    }
    let sccs = tarjan(g);
    let mut diags = Diagnostics::new();
    for scc in sccs {
        if scc.len() > 1 {
            let names: Vec<String> = scc.iter().map(|i| g.nodes[*i].to_string()).collect();
            diags.push(Diagnostic::error(
                format!("Cycle: {}", names.join(", ")),
                "",
            ));
        }
    }
    Some(diags)
}

fn tarjan(g: &Graph) -> Vec<Vec<usize>> {
    struct St {
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    let n = g.nodes.len();
    let mut st = St {
        index: vec![None; n],
        low: vec![0; n],
        on: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    let succ: Vec<Vec<usize>> = g.deps.iter().map(|d| d.iter().copied().collect()).collect();
    for start in 0..n {
        if st.index[start].is_some() {
            continue;
        }
        // Iterative DFS: (node, next successor position).
        let mut work: Vec<(usize, usize)> = vec![(start, 0)];
        while let Some(&mut (v, ref mut pos)) = work.last_mut() {
            if *pos == 0 && st.index[v].is_none() {
                st.index[v] = Some(st.next);
                st.low[v] = st.next;
                st.next += 1;
                st.stack.push(v);
                st.on[v] = true;
            }
            if *pos < succ[v].len() {
                let w = succ[v][*pos];
                *pos += 1;
                match st.index[w] {
                    None => work.push((w, 0)),
                    Some(wi) if st.on[w] => st.low[v] = st.low[v].min(wi),
                    _ => {}
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                st.low[parent] = st.low[parent].min(st.low[v]);
            }
            if Some(st.low[v]) == st.index[v] {
                let mut comp = Vec::new();
                while let Some(w) = st.stack.pop() {
                    st.on[w] = false;
                    comp.push(w);
                    if w == v {
                        break;
                    }
                }
                st.out.push(comp);
            }
        }
    }
    st.out
}

/// For `terraform graph`: each resource block with the resources it
/// depends on, found through locals, variables, outputs and module calls
/// (not through provider configurations), minus the dependencies another
/// of its dependencies already implies, as Terraform draws it.
pub(crate) fn resource_edges(g: &Graph) -> Vec<(ConfigResource, BTreeSet<ConfigResource>)> {
    let order = topo_order(g);
    // The nearest resources each node reaches.
    let mut front: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); g.nodes.len()];
    // Every resource each node reaches.
    let mut reach: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); g.nodes.len()];
    for &i in &order {
        if matches!(g.nodes[i], Node::Provider(_) | Node::Destroy(_)) {
            continue;
        }
        let mut f = BTreeSet::new();
        let mut r = BTreeSet::new();
        for &d in &g.deps[i] {
            match &g.nodes[d] {
                Node::Resource(_) => {
                    f.insert(d);
                    r.insert(d);
                    r.extend(reach[d].iter().copied());
                }
                Node::Provider(_) | Node::Destroy(_) => {}
                _ => {
                    f.extend(front[d].iter().copied());
                    r.extend(reach[d].iter().copied());
                }
            }
        }
        f.remove(&i);
        r.remove(&i);
        front[i] = f;
        reach[i] = r;
    }
    let mut out = Vec::new();
    for (i, n) in g.nodes.iter().enumerate() {
        let Node::Resource(addr) = n else { continue };
        let direct: BTreeSet<ConfigResource> = front[i]
            .iter()
            .filter(|d| !front[i].iter().any(|o| o != *d && reach[*o].contains(d)))
            .filter_map(|d| match &g.nodes[*d] {
                Node::Resource(x) => Some(x.clone()),
                _ => None,
            })
            .collect();
        out.push((addr.clone(), direct));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}
