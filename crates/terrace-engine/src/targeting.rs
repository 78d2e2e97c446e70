//! `-target` and `-exclude`, as OpenTofu's `TargetingTransformer` applies
//! them: a target selects its resources (and module contents) together
//! with everything they depend on; an exclude drops its resources and
//! everything that depends on them. A destroy plan turns both around, as
//! its graph runs the other way: a target's dependents are destroyed with
//! it, an exclude keeps its dependencies. Root outputs are kept only when every
//! resource they depend on is kept (and they depend on at least one), so a
//! targeted run leaves the other outputs as they were.

use crate::graph::{Graph, Node};
use std::collections::{BTreeSet, HashMap, HashSet};
use terrace_addrs::{AbsResourceInstance, ConfigResource, Target, Targetable};
use terrace_states::State;

pub(crate) struct Targeting {
    targets: Vec<Targetable>,
    excludes: Vec<Targetable>,
    /// Resource blocks kept at the configuration level.
    kept: HashSet<ConfigResource>,
    /// Targets mode: resources kept only because a target needs them (all
    /// their instances are kept): what a target depends on, or in a
    /// destroy plan what depends on a target, since it must go first.
    deps: HashSet<ConfigResource>,
    /// Root outputs kept.
    outputs: HashSet<String>,
}

/// A target narrowed to the configuration level (an instance selects its
/// whole resource block there).
fn config_level(t: &Targetable) -> Targetable {
    match t {
        Targetable::AbsResourceInstance(a) => {
            Targetable::ConfigResource(a.containing_resource().config())
        }
        Targetable::AbsResource(a) => Targetable::ConfigResource(a.config()),
        Targetable::ModuleInstance(m) => Targetable::Module(m.module()),
        other => other.clone(),
    }
}

impl Targeting {
    /// The targeting of a plan; `destroying` is the prior state of a
    /// destroy plan. A destroy plan reverses what a target brings along: a
    /// targeted object's dependents are destroyed with it, and an
    /// excluded object's dependencies stay with it.
    pub fn new(
        graph: &Graph,
        targets: &[Target],
        excludes: &[Target],
        destroying: Option<&State>,
    ) -> Targeting {
        let targets: Vec<Targetable> = targets.iter().map(|t| t.subject.clone()).collect();
        let excludes: Vec<Targetable> = if targets.is_empty() {
            excludes.iter().map(|t| t.subject.clone()).collect()
        } else {
            Vec::new()
        };
        let mut out = Targeting {
            targets,
            excludes,
            kept: HashSet::new(),
            deps: HashSet::new(),
            outputs: HashSet::new(),
        };
        if !out.active() {
            return out;
        }
        let resources: Vec<&ConfigResource> = graph
            .nodes
            .iter()
            .filter_map(|n| match n {
                Node::Resource(r) => Some(r),
                _ => None,
            })
            .collect();
        let reversed;
        let depends: &HashMap<ConfigResource, Vec<ConfigResource>> = match destroying {
            Some(state) => {
                reversed = dependents(graph, state);
                &reversed
            }
            None => &graph.resource_deps,
        };
        let selects = |list: &[Targetable], r: &ConfigResource| {
            let t = Targetable::ConfigResource(r.clone());
            list.iter().any(|x| config_level(x).target_contains(&t))
        };
        if !out.targets.is_empty() {
            for r in &resources {
                if selects(&out.targets, r) {
                    out.kept.insert((*r).clone());
                    if let Some(ds) = depends.get(*r) {
                        out.deps.extend(ds.iter().cloned());
                    }
                }
            }
            out.kept.extend(out.deps.iter().cloned());
        } else {
            let mut dropped: HashSet<ConfigResource> = HashSet::new();
            for r in &resources {
                let t = Targetable::ConfigResource((*r).clone());
                if out.excludes.iter().any(|x| x.target_contains(&t)) {
                    dropped.insert((*r).clone());
                }
            }
            // Whatever depends on an excluded resource (or on an excluded
            // instance's resource) goes too.
            for r in &resources {
                let Some(ds) = depends.get(*r) else {
                    continue;
                };
                let mine = Targetable::ConfigResource((*r).clone());
                let hit = ds.iter().any(|d| {
                    selects(&out.excludes, d)
                        && !out
                            .excludes
                            .iter()
                            .any(|x| config_level(x).target_contains(&mine))
                });
                if hit {
                    dropped.insert((*r).clone());
                }
            }
            for r in resources {
                if !dropped.contains(r) {
                    out.kept.insert(r.clone());
                }
            }
        }
        for (i, n) in graph.nodes.iter().enumerate() {
            if let Node::Output(m, name) = n {
                if m.is_root() {
                    let anc = resource_ancestors(graph, i);
                    if !anc.is_empty() && anc.iter().all(|r| out.kept.contains(r)) {
                        out.outputs.insert(name.clone());
                    }
                }
            }
        }
        out
    }

    pub fn active(&self) -> bool {
        !self.targets.is_empty() || !self.excludes.is_empty()
    }

    /// Whether the plan covers this instance.
    pub fn instance(&self, addr: &AbsResourceInstance) -> bool {
        if !self.active() {
            return true;
        }
        let t = Targetable::AbsResourceInstance(addr.clone());
        let abs = Targetable::AbsResource(addr.containing_resource());
        let hit = |x: &Targetable| x.target_contains(&t) || x.target_contains(&abs);
        if !self.targets.is_empty() {
            return self.targets.iter().any(hit) || self.deps.contains(&addr.config_resource());
        }
        if self.excludes.iter().any(hit) {
            return false;
        }
        self.kept.contains(&addr.config_resource())
    }

    /// Whether a root output is planned and saved.
    pub fn output(&self, name: &str) -> bool {
        !self.active() || self.outputs.contains(name)
    }
}

/// For each resource, the resources that depend on it, directly or not:
/// the configuration's dependencies reversed, and those each object in
/// the state recorded when it was applied (a resource no longer
/// configured is known only from those).
fn dependents(graph: &Graph, state: &State) -> HashMap<ConfigResource, Vec<ConfigResource>> {
    let mut direct: HashMap<ConfigResource, BTreeSet<ConfigResource>> = HashMap::new();
    for (r, ds) in &graph.resource_deps {
        for d in ds {
            direct.entry(d.clone()).or_default().insert(r.clone());
        }
    }
    for (addr, rs) in &state.resources {
        let r = addr.config();
        for is in rs.instances.values() {
            for obj in is.current.iter().chain(is.deposed.values()) {
                for d in &obj.dependencies {
                    direct.entry(d.clone()).or_default().insert(r.clone());
                }
            }
        }
    }
    // Both sources list dependencies transitively; their union may not
    // be, so close it.
    let mut out = HashMap::new();
    for start in direct.keys() {
        let mut seen: BTreeSet<ConfigResource> = BTreeSet::new();
        let mut stack: Vec<&ConfigResource> = vec![start];
        while let Some(r) = stack.pop() {
            for d in direct.get(r).into_iter().flatten() {
                if d != start && seen.insert(d.clone()) {
                    stack.push(d);
                }
            }
        }
        out.insert(start.clone(), seen.into_iter().collect());
    }
    out
}

/// Every resource a node depends on, directly or through other nodes.
fn resource_ancestors(g: &Graph, start: usize) -> BTreeSet<ConfigResource> {
    let mut seen = vec![false; g.nodes.len()];
    let mut stack = vec![start];
    let mut out = BTreeSet::new();
    while let Some(i) = stack.pop() {
        for &d in &g.deps[i] {
            if seen[d] {
                continue;
            }
            seen[d] = true;
            if let Node::Resource(r) = &g.nodes[d] {
                out.insert(r.clone());
            }
            stack.push(d);
        }
    }
    out
}
