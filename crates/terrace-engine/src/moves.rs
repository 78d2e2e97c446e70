//! `moved` blocks and the moves Terraform implies (a resource gaining or
//! losing `count`): the prior state's objects are renamed before the plan
//! walk starts, chains are followed in order, and moves whose destination
//! is already taken are left alone and reported. After the walk the
//! statements are validated against what the configuration declared.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use terrace_addrs::{
    AbsResource, AbsResourceInstance, InstanceKey, Module, ModuleInstance, ModuleInstanceStep,
    Resource as ResourceAddr, ResourceMode,
};
use terrace_config::loader::Config;
use terrace_config::model::MoveEndpoint;
use terrace_states::model::{EachMode, ResourceState, State};
use terrace_syntax::PRODUCT;
use terrace_syntax::{Diagnostic, Diagnostics, SourceRange};

/// One endpoint relative to the module declaring the statement.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Ep {
    /// `whole`: every instance of the call (both endpoints unkeyed).
    Module { rel: ModuleInstance, whole: bool },
    /// `key: None`: the whole resource.
    Resource {
        rel: ModuleInstance,
        resource: ResourceAddr,
        key: Option<InstanceKey>,
    },
}

#[derive(Clone, Debug)]
pub(crate) struct MoveStatement {
    decl: Module,
    from: Ep,
    to: Ep,
    range: Option<SourceRange>,
    implied: bool,
}

/// An endpoint made absolute for one instance of the declaring module.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum AbsEp {
    Module(ModuleInstance, bool),
    Resource(AbsResource, Option<InstanceKey>),
}

impl fmt::Display for AbsEp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AbsEp::Module(m, _) => write!(f, "{m}"),
            AbsEp::Resource(r, None) => write!(f, "{r}"),
            AbsEp::Resource(r, Some(k)) => write!(f, "{}", r.instance(k.clone())),
        }
    }
}

impl AbsEp {
    fn nouns(&self) -> (&'static str, &'static str) {
        match self {
            AbsEp::Module(_, true) => ("module call", "call"),
            AbsEp::Module(_, false) => ("module instance", "instance"),
            AbsEp::Resource(_, None) => ("resource", "resource"),
            AbsEp::Resource(_, Some(_)) => ("resource instance", "instance"),
        }
    }
}

fn join(prefix: &[ModuleInstanceStep], rest: &[ModuleInstanceStep]) -> ModuleInstance {
    ModuleInstance::from_steps(prefix.iter().chain(rest).cloned())
}

impl Ep {
    fn absolute(&self, inst: &ModuleInstance) -> AbsEp {
        match self {
            Ep::Module { rel, whole } => AbsEp::Module(join(inst.steps(), rel.steps()), *whole),
            Ep::Resource { rel, resource, key } => AbsEp::Resource(
                resource.absolute(join(inst.steps(), rel.steps())),
                key.clone(),
            ),
        }
    }

    /// `self` (a "to") is where `other` (a "from") starts: a chain.
    fn chains_into(&self, other: &Ep) -> bool {
        match (self, other) {
            (Ep::Module { rel: a, .. }, Ep::Module { rel: b, .. }) => {
                a.steps().len() <= b.steps().len()
                    && a.steps()
                        .iter()
                        .zip(b.steps())
                        .all(|(x, y)| x.name == y.name)
            }
            (
                Ep::Resource {
                    rel: a,
                    resource: ra,
                    ..
                },
                Ep::Resource {
                    rel: b,
                    resource: rb,
                    ..
                },
            ) => a == b && ra == rb,
            (Ep::Module { rel: a, .. }, Ep::Resource { rel: b, .. }) => {
                a.steps().len() <= b.steps().len()
                    && a.steps()
                        .iter()
                        .zip(b.steps())
                        .all(|(x, y)| x.name == y.name)
            }
            _ => false,
        }
    }
}

fn module_path(c: &Config) -> Module {
    Module::from_names(c.path.iter().map(String::as_str))
}

/// The explicit statements of every module, in declaration order.
pub(crate) fn find_statements(config: &Config) -> Vec<MoveStatement> {
    let mut out = Vec::new();
    config.deep_each(&mut |c| {
        for m in &c.module.moved {
            let (Some(from), Some(to)) = (&m.from, &m.to) else {
                continue;
            };
            let (from, to) = match (from, to) {
                (MoveEndpoint::Module(f), MoveEndpoint::Module(t)) => {
                    let unkeyed = |m: &ModuleInstance| {
                        m.steps().last().is_some_and(|s| s.key == InstanceKey::None)
                    };
                    let whole = unkeyed(f) && unkeyed(t);
                    (
                        Ep::Module {
                            rel: f.clone(),
                            whole,
                        },
                        Ep::Module {
                            rel: t.clone(),
                            whole,
                        },
                    )
                }
                (MoveEndpoint::Resource(f), MoveEndpoint::Resource(t)) => {
                    let whole =
                        f.resource.key == InstanceKey::None && t.resource.key == InstanceKey::None;
                    let key = |a: &AbsResourceInstance| (!whole).then(|| a.resource.key.clone());
                    (
                        Ep::Resource {
                            rel: f.module.clone(),
                            resource: f.resource.resource.clone(),
                            key: key(f),
                        },
                        Ep::Resource {
                            rel: t.module.clone(),
                            resource: t.resource.resource.clone(),
                            key: key(t),
                        },
                    )
                }
                _ => continue,
            };
            out.push(MoveStatement {
                decl: module_path(c),
                from,
                to,
                range: Some(m.decl_range.clone()),
                implied: false,
            });
        }
    });
    out
}

/// Terraform's implied moves: `a` to `a[0]` when `count` was added, and
/// back when it was removed, unless an explicit statement covers it.
pub(crate) fn implied_statements(
    config: &Config,
    state: &State,
    explicit: &[MoveStatement],
) -> Vec<MoveStatement> {
    let mut out = Vec::new();
    let named: HashSet<(Module, ResourceAddr)> = explicit
        .iter()
        .flat_map(|s| [&s.from, &s.to])
        .filter_map(|e| match e {
            Ep::Resource { rel, resource, .. } if rel.is_root() => {
                Some((Module::root(), resource.clone()))
            }
            _ => None,
        })
        .collect();
    // Every configured resource is matched against the state; indexing the
    // state's resources by resource address once keeps that linear in the
    // number of resources instead of their product.
    let mut state_by_resource: HashMap<(Module, &ResourceAddr), Vec<&ResourceState>> =
        HashMap::new();
    for (address, resource_state) in &state.resources {
        state_by_resource
            .entry((address.module.module(), &address.resource))
            .or_default()
            .push(resource_state);
    }
    config.deep_each(&mut |c| {
        let decl = module_path(c);
        for r in c.module.managed_resources.values() {
            let resource =
                ResourceAddr::new(ResourceMode::Managed, r.type_name.as_str(), r.name.as_str());
            if r.for_each.is_some() || named.contains(&(decl.clone(), resource.clone())) {
                continue;
            }
            let (from, to) = if r.count.is_some() {
                (InstanceKey::None, InstanceKey::Int(0))
            } else {
                (InstanceKey::Int(0), InstanceKey::None)
            };
            let applies = state_by_resource
                .get(&(decl.clone(), &resource))
                .is_some_and(|found| {
                    found.iter().any(|rs| {
                        rs.instances.contains_key(&from) && !rs.instances.contains_key(&to)
                    })
                });
            if applies {
                let ep = |key: InstanceKey| Ep::Resource {
                    rel: ModuleInstance::root(),
                    resource: resource.clone(),
                    key: Some(key),
                };
                out.push(MoveStatement {
                    decl: decl.clone(),
                    from: ep(from),
                    to: ep(to),
                    range: None,
                    implied: true,
                });
            }
        }
    });
    out
}

/// Statements in the order chains need (a statement runs after those whose
/// destination it starts from); `Err` holds the statements on a cycle.
fn ordered(stmts: &[MoveStatement]) -> Result<Vec<usize>, Vec<usize>> {
    let n = stmts.len();
    let mut deps: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (a, sa) in stmts.iter().enumerate() {
        for (b, sb) in stmts.iter().enumerate() {
            if a != b && sa.decl == sb.decl && sb.to.chains_into(&sa.from) {
                deps[a].push(b);
            }
        }
    }
    let mut indeg: Vec<usize> = deps.iter().map(Vec::len).collect();
    let mut ready: Vec<usize> = (0..n).filter(|i| indeg[*i] == 0).collect();
    ready.reverse();
    let mut out = Vec::with_capacity(n);
    while let Some(i) = ready.pop() {
        out.push(i);
        for (j, d) in deps.iter().enumerate() {
            if d.contains(&i) {
                indeg[j] -= 1;
                if indeg[j] == 0 {
                    ready.push(j);
                }
            }
        }
    }
    if out.len() == n {
        Ok(out)
    } else {
        Err((0..n).filter(|i| !out.contains(i)).collect())
    }
}

/// What applying the statements did.
#[derive(Default)]
pub(crate) struct MoveResults {
    /// New address → address in the previous run's state.
    pub moved: HashMap<AbsResourceInstance, (AbsResourceInstance, bool)>,
    /// `(object, wanted)`: moves the state refused.
    pub blocked: Vec<(String, String)>,
}

impl MoveResults {
    pub fn prev_addr(&self, addr: &AbsResourceInstance) -> AbsResourceInstance {
        self.moved
            .get(addr)
            .map(|(a, _)| a.clone())
            .unwrap_or_else(|| addr.clone())
    }

    pub fn explicitly_moved(&self, addr: &AbsResourceInstance) -> bool {
        self.moved.get(addr).is_some_and(|(_, implied)| !implied)
    }

    fn record(&mut self, old: AbsResourceInstance, new: AbsResourceInstance, implied: bool) {
        let origin = match self.moved.remove(&old) {
            Some((o, _)) => o,
            None => old,
        };
        self.moved.insert(new, (origin, implied));
    }

    /// Terraform's warning about moves the state refused.
    pub fn blocked_warning(&self) -> Option<Diagnostic> {
        if self.blocked.is_empty() {
            return None;
        }
        let mut items = String::new();
        for (actual, wanted) in &self.blocked {
            items.push_str(&format!("\n  - {actual} could not move to {wanted}"));
        }
        Some(Diagnostic::warning(
            "Unresolved resource instance address changes",
            format!("{PRODUCT} tried to adjust resource instance addresses in the prior state based on change information recorded in the configuration, but some adjustments did not succeed due to existing objects already at the intended addresses:{items}\n\n{PRODUCT} has planned to destroy these objects. If {PRODUCT}'s proposed changes aren't appropriate, you must first resolve the conflicts using the \"{PRODUCT} state\" subcommands and then create a new plan."),
        ))
    }
}

/// The part of `mi` below an instance of `decl`, and that instance's steps.
fn split<'m>(
    mi: &'m ModuleInstance,
    decl: &Module,
) -> Option<(&'m [ModuleInstanceStep], &'m [ModuleInstanceStep])> {
    let names = decl.names();
    let steps = mi.steps();
    if steps.len() < names.len() || steps.iter().zip(names).any(|(s, n)| &s.name != n) {
        return None;
    }
    Some(steps.split_at(names.len()))
}

/// Where a module instance goes under a module statement, if it matches.
fn module_destination(mi: &ModuleInstance, s: &MoveStatement) -> Option<ModuleInstance> {
    let (Ep::Module { rel: from, whole }, Ep::Module { rel: to, .. }) = (&s.from, &s.to) else {
        return None;
    };
    let (prefix, rel) = split(mi, &s.decl)?;
    let f = from.steps();
    if rel.len() < f.len() {
        return None;
    }
    for (i, (a, b)) in f.iter().zip(rel).enumerate() {
        let last = i + 1 == f.len();
        if a.name != b.name || (a.key != b.key && !(last && *whole)) {
            return None;
        }
    }
    let mut dest: Vec<ModuleInstanceStep> = to.steps().to_vec();
    if *whole {
        if let Some(l) = dest.last_mut() {
            l.key = rel[f.len() - 1].key.clone();
        }
    }
    dest.extend(rel[f.len()..].iter().cloned());
    Some(join(prefix, &dest))
}

fn move_instance(state: &mut State, old: &AbsResourceInstance, new: &AbsResourceInstance) {
    let Some(rs) = state.resources.get(&old.containing_resource()) else {
        return;
    };
    let provider = rs.provider.clone();
    let Some(is) = state.remove_instance(old) else {
        return;
    };
    let rs = state
        .resources
        .entry(new.containing_resource())
        .or_insert_with(|| ResourceState {
            provider,
            each_mode: EachMode::for_key(&new.resource.key),
            instances: BTreeMap::new(),
        });
    rs.each_mode = EachMode::for_key(&new.resource.key);
    rs.instances
        .insert(new.resource.key.clone(), std::sync::Arc::new(is));
}

/// Applies the statements to `state` (invalid ones are skipped here and
/// reported by [`validate`]).
pub(crate) fn apply_moves(stmts: &[MoveStatement], state: &mut State) -> MoveResults {
    let mut res = MoveResults::default();
    let Ok(order) = ordered(stmts) else {
        return res;
    };
    for i in order {
        let s = &stmts[i];
        let addrs: Vec<AbsResource> = state.resources.keys().cloned().collect();
        match (&s.from, &s.to) {
            (Ep::Module { .. }, _) => {
                let mut moving: Vec<(AbsResource, ModuleInstance)> = Vec::new();
                let mut blocked: HashSet<ModuleInstance> = HashSet::new();
                for a in &addrs {
                    if let Some(dest) = module_destination(&a.module, s) {
                        let taken = state.resources.keys().any(|o| o.module == dest);
                        if taken {
                            if blocked.insert(a.module.clone()) {
                                res.blocked.push((a.module.to_string(), dest.to_string()));
                            }
                        } else {
                            moving.push((a.clone(), dest));
                        }
                    }
                }
                for (a, dest) in moving {
                    let Some(rs) = state.resources.remove(&a) else {
                        continue;
                    };
                    let na = a.resource.absolute(dest);
                    for k in rs.instances.keys() {
                        res.record(a.instance(k.clone()), na.instance(k.clone()), s.implied);
                    }
                    state.resources.insert(na, rs);
                }
            }
            (
                Ep::Resource {
                    rel: frel,
                    resource: fres,
                    key: fkey,
                },
                Ep::Resource {
                    rel: trel,
                    resource: tres,
                    key: tkey,
                },
            ) => {
                for a in &addrs {
                    if &a.resource != fres {
                        continue;
                    }
                    let Some((prefix, rel)) = split(&a.module, &s.decl) else {
                        continue;
                    };
                    if rel != frel.steps() {
                        continue;
                    }
                    let dest = tres.absolute(join(prefix, trel.steps()));
                    match (fkey, tkey) {
                        (Some(fk), Some(tk)) => {
                            let old = a.instance(fk.clone());
                            if state.instance(&old).is_none() {
                                continue;
                            }
                            let new = dest.instance(tk.clone());
                            if state.instance(&new).is_some() {
                                res.blocked.push((old.to_string(), new.to_string()));
                                continue;
                            }
                            move_instance(state, &old, &new);
                            res.record(old, new, s.implied);
                        }
                        _ => {
                            if state.resources.contains_key(&dest) {
                                res.blocked.push((a.to_string(), dest.to_string()));
                                continue;
                            }
                            let Some(rs) = state.resources.remove(a) else {
                                continue;
                            };
                            for k in rs.instances.keys() {
                                res.record(a.instance(k.clone()), dest.instance(k.clone()), false);
                            }
                            state.resources.insert(dest.clone(), rs);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    res
}

/// What the plan declared, for [`validate`].
pub(crate) trait Declared {
    /// The instances of a static module (none when it has none).
    fn module_instances(&self, m: &Module) -> Vec<ModuleInstance>;
    /// Whether the configuration declares the endpoint now.
    fn declares(&self, ep: &AbsEpRef<'_>) -> bool;
    /// Where the configuration declares it: for an instance, the
    /// `for_each` or `count` expression that makes it (else the block),
    /// for a resource or a module call, the block.
    fn declared_at(&self, ep: &AbsEpRef<'_>) -> Option<SourceRange>;
}

/// A view of an absolute endpoint for [`Declared::declares`].
pub(crate) enum AbsEpRef<'a> {
    ModuleInstance(&'a ModuleInstance),
    ModuleCall(&'a ModuleInstance),
    Resource(&'a AbsResource),
    Instance(AbsResourceInstance),
}

fn start(r: &Option<SourceRange>) -> String {
    match r {
        Some(r) => format!("{}:{}", r.filename, r.start.line),
        None => String::new(),
    }
}

fn with_range(d: Diagnostic, r: &Option<SourceRange>) -> Diagnostic {
    match r {
        Some(r) => d.with_subject(r.clone()),
        None => d,
    }
}

/// OpenTofu's `ValidateMoves`: redundant statements, objects still
/// declared at their old address, ambiguous sources and destinations,
/// cycles.
pub(crate) fn validate(stmts: &[MoveStatement], declared: &dyn Declared) -> Diagnostics {
    let mut diags = Diagnostics::new();
    let mut froms: HashMap<AbsEp, (AbsEp, Option<SourceRange>)> = HashMap::new();
    let mut tos: HashMap<AbsEp, (AbsEp, Option<SourceRange>)> = HashMap::new();
    for s in stmts.iter().filter(|s| !s.implied) {
        for inst in declared.module_instances(&s.decl) {
            let from = s.from.absolute(&inst);
            let to = s.to.absolute(&inst);
            if from == to {
                diags.push(with_range(
                    Diagnostic::error(
                        "Redundant move statement",
                        format!("This statement declares a move from {from} to the same address, which is the same as not declaring this move at all."),
                    ),
                    &s.range,
                ));
                continue;
            }
            let (noun, short) = from.nouns();
            let endpoint = match &from {
                AbsEp::Module(m, true) => AbsEpRef::ModuleCall(m),
                AbsEp::Module(m, false) => AbsEpRef::ModuleInstance(m),
                AbsEp::Resource(r, None) => AbsEpRef::Resource(r),
                AbsEp::Resource(r, Some(k)) => AbsEpRef::Instance(r.instance(k.clone())),
            };
            if declared.declares(&endpoint) {
                let at = declared
                    .declared_at(&endpoint)
                    .map(|r| format!(" at {}:{},{}", r.filename, r.start.line, r.start.column))
                    .unwrap_or_default();
                diags.push(with_range(
                    Diagnostic::error(
                        "Moved object still exists",
                        format!("This statement declares a move from {from}, but that {noun} is still declared{at}.\n\nChange your configuration so that this {short} will be declared as {to} instead."),
                    ),
                    &s.range,
                ));
            }
            match froms.get(&from) {
                Some((other, at)) if other != &to => diags.push(with_range(
                    Diagnostic::error(
                        "Ambiguous move statements",
                        format!("A statement at {} declared that {from} moved to {other}, but this statement instead declares that it moved to {to}.\n\nEach {noun} can move to only one destination {short}.", start(at)),
                    ),
                    &s.range,
                )),
                Some(_) => {}
                None => {
                    froms.insert(from.clone(), (to.clone(), s.range.clone()));
                }
            }
            match tos.get(&to) {
                Some((other, at)) if other != &from => diags.push(with_range(
                    Diagnostic::error(
                        "Ambiguous move statements",
                        format!("A statement at {} declared that {other} moved to {to}, but this statement instead declares that {from} moved there.\n\nEach {noun} can have moved from only one source {short}.", start(at)),
                    ),
                    &s.range,
                )),
                Some(_) => {}
                None => {
                    tos.insert(to.clone(), (from.clone(), s.range.clone()));
                }
            }
        }
    }
    if diags.is_empty() {
        if let Err(cycle) = ordered(stmts) {
            let mut lines: Vec<String> = cycle
                .iter()
                .map(|i| {
                    let s = &stmts[i.to_owned()];
                    let root = ModuleInstance::root();
                    format!(
                        "\n  - {}: {} → {}",
                        start(&s.range),
                        s.from.absolute(&root),
                        s.to.absolute(&root)
                    )
                })
                .collect();
            lines.sort();
            diags.push(Diagnostic::error(
                "Cyclic dependency in move statements",
                format!("The following chained move statements form a cycle, and so there is no final location to move objects to:{}\n\nA chain of move statements must end with an address that doesn't appear in any other statements, and which typically also refers to an object still declared in the configuration.", lines.concat()),
            ));
        }
    }
    diags
}

#[cfg(test)]
mod tests {
    use super::*;
    use terrace_addrs::AbsProviderConfig;
    use terrace_states::model::ObjectState;

    fn res(s: &str) -> Ep {
        let a = AbsResourceInstance::parse_str(s).expect("addr");
        let key = if s.ends_with(']') {
            Some(a.resource.key.clone())
        } else {
            None
        };
        Ep::Resource {
            rel: a.module,
            resource: a.resource.resource,
            key,
        }
    }

    fn module(s: &str, whole: bool) -> Ep {
        Ep::Module {
            rel: ModuleInstance::parse_str(s).expect("module"),
            whole,
        }
    }

    fn stmt(from: Ep, to: Ep) -> MoveStatement {
        MoveStatement {
            decl: Module::root(),
            from,
            to,
            range: None,
            implied: false,
        }
    }

    fn state(addrs: &[&str]) -> State {
        let mut st = State::new_with_lineage("t");
        let p = AbsProviderConfig::parse_str("provider[\"registry.terraform.io/hashicorp/fake\"]")
            .expect("provider");
        for a in addrs {
            let a = AbsResourceInstance::parse_str(a).expect("addr");
            let obj =
                ObjectState::from_value(&terrace_value::Value::empty_object(), 0).expect("obj");
            st.set_current(&a, p.clone(), InstanceKey::None, Some(obj));
        }
        st
    }

    fn addrs(st: &State) -> Vec<String> {
        st.all_instances().map(|(a, _, _)| a.to_string()).collect()
    }

    #[test]
    fn statements_move_state_objects() {
        type Case<'a> = (
            &'a str,
            Vec<MoveStatement>,
            &'a [&'a str],
            &'a [&'a str],
            usize,
        );
        let cases: Vec<Case> = vec![
            (
                "rename",
                vec![stmt(res("t.a"), res("t.b"))],
                &["t.a[0]", "t.a[1]"],
                &["t.b[0]", "t.b[1]"],
                0,
            ),
            (
                "chain in any order",
                vec![stmt(res("t.b"), res("t.c")), stmt(res("t.a"), res("t.b"))],
                &["t.a"],
                &["t.c"],
                0,
            ),
            (
                "instance",
                vec![stmt(res("t.a[0]"), res("t.a[\"x\"]"))],
                &["t.a[0]", "t.a[1]"],
                &["t.a[1]", "t.a[\"x\"]"],
                0,
            ),
            (
                "blocked",
                vec![stmt(res("t.a"), res("t.b"))],
                &["t.a", "t.b"],
                &["t.a", "t.b"],
                1,
            ),
            (
                "module call keeps keys",
                vec![stmt(module("module.m", true), module("module.n", true))],
                &["module.m[0].t.a", "module.m[1].t.a", "t.z"],
                &["module.n[0].t.a", "module.n[1].t.a", "t.z"],
                0,
            ),
            (
                "module instance",
                vec![stmt(
                    module("module.m", false),
                    module("module.m[\"k\"]", false),
                )],
                &["module.m.module.c.t.a"],
                &["module.m[\"k\"].module.c.t.a"],
                0,
            ),
            (
                "resource into module",
                vec![stmt(res("t.a"), res("module.m.t.a"))],
                &["t.a"],
                &["module.m.t.a"],
                0,
            ),
        ];
        for (name, stmts, before, after, blocked) in cases {
            let mut st = state(before);
            let r = apply_moves(&stmts, &mut st);
            let mut got = addrs(&st);
            got.sort();
            let mut want: Vec<String> = after.iter().map(|s| s.to_string()).collect();
            want.sort();
            assert_eq!(got, want, "{name}");
            assert_eq!(r.blocked.len(), blocked, "{name}");
        }
        let mut st = state(&["t.a"]);
        let r = apply_moves(
            &[stmt(res("t.b"), res("t.c")), stmt(res("t.a"), res("t.b"))],
            &mut st,
        );
        let c = AbsResourceInstance::parse_str("t.c").expect("addr");
        assert_eq!(r.prev_addr(&c).to_string(), "t.a");
        assert!(r.explicitly_moved(&c));
    }

    struct Decl(Vec<String>);
    impl Declared for Decl {
        fn module_instances(&self, _: &Module) -> Vec<ModuleInstance> {
            vec![ModuleInstance::root()]
        }
        fn declares(&self, ep: &AbsEpRef<'_>) -> bool {
            let s = match ep {
                AbsEpRef::Resource(r) => r.to_string(),
                AbsEpRef::Instance(i) => i.to_string(),
                AbsEpRef::ModuleCall(m) | AbsEpRef::ModuleInstance(m) => m.to_string(),
            };
            self.0.contains(&s)
        }
        fn declared_at(&self, _: &AbsEpRef<'_>) -> Option<SourceRange> {
            None
        }
    }

    #[test]
    fn validation_errors() {
        let decl = Decl(vec!["t.a".into()]);
        let cases: Vec<(Vec<MoveStatement>, &[&str])> = vec![
            (vec![stmt(res("t.x"), res("t.y"))], &[]),
            (
                vec![stmt(res("t.a"), res("t.b"))],
                &["Moved object still exists"],
            ),
            (
                vec![stmt(res("t.x"), res("t.x"))],
                &["Redundant move statement"],
            ),
            (
                vec![stmt(res("t.x"), res("t.y")), stmt(res("t.x"), res("t.z"))],
                &["Ambiguous move statements"],
            ),
            (
                vec![stmt(res("t.x"), res("t.y")), stmt(res("t.y"), res("t.x"))],
                &["Cyclic dependency in move statements"],
            ),
        ];
        for (stmts, want) in cases {
            let got: Vec<String> = validate(&stmts, &decl)
                .into_iter()
                .map(|d| d.summary)
                .collect();
            assert_eq!(got, want);
        }
    }
}
