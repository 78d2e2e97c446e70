//! The apply walk: the plan's changes carried out in dependency order
//! (creates and updates after what they reference, deletes before the
//! deletes of what they depend on), each result checked against the plan
//! and written into the new state at once, with `Hooks::object_changed`
//! so the CLI can journal it.

use crate::common::{
    as_warnings, check_container, check_resource_rules, decode_object, encode_object,
    expand_resource, ignore_changes, now_rfc3339, set_aggregates, traversal_path, value_id,
    visit_local, visit_module_call, visit_output, visit_variable, ResourceExpansion,
};
use crate::graph::{self, add_state_destroy_edges, cycles, Graph, GraphKind, Node};
use crate::marks::{apply_mark_paths, mark_schema_sensitive, unmark};
use crate::model::{self, ResourceInfo};
use crate::providers::{
    close_when_idle, convert_diags, instance_key_for, instance_not_present, typed,
    visit_provider_instances, InBody, Instances,
};
use crate::scope::Env;
use crate::values::{Repetition, Values};
use crate::walk::{self, Job, Visit, Walker};
use crate::{Context, Hooks};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;
use terrace_addrs::{
    AbsProviderConfig, AbsResource, AbsResourceInstance, ConfigResource, InstanceKey,
    ModuleInstance, ResourceMode,
};
use terrace_config::model::{ProvisionerWhen, Resource};
use terrace_plans::model::{Action, Plan, PlanMode, ResourceInstanceChange};
use terrace_providers::objchange::{assert_object_compatible, check_apply_result, proposed_new};
use terrace_providers::{
    ApplyResourceChangeRequest, ClientCapabilities, PlanResourceChangeRequest, Provider,
    ReadDataSourceRequest,
};
use terrace_states::model::{DeposedKey, ObjectState, ObjectStatus, OutputState, State};
use terrace_syntax::diagnostic::has_errors;
use terrace_syntax::PRODUCT;
use terrace_syntax::{Diagnostic, Diagnostics};
use terrace_value::Value;

type InstanceValues = Mutex<HashMap<ModuleInstance, HashMap<InstanceKey, Value>>>;

struct ApplyWalker<'e, 'a> {
    env: &'e Env<'a>,
    graph: &'e Graph,
    plan: &'e Plan,
    hooks: &'e dyn Hooks,
    instances: Instances,
    diags: Mutex<Diagnostics>,
    state: Mutex<State>,
    by_resource: HashMap<ConfigResource, Vec<&'e ResourceInstanceChange>>,
    /// Current objects deposed by create-before-destroy replacements,
    /// for the destroy node to delete.
    deposed_by_apply: Mutex<HashMap<AbsResourceInstance, DeposedKey>>,
    /// The instances whose import this apply has recorded: the import of
    /// a replaced object happens before its destroy, which may run before
    /// the create that would otherwise record it.
    imports_recorded: Mutex<HashSet<AbsResourceInstance>>,
    needed: HashSet<AbsProviderConfig>,
    provider_users: Mutex<HashMap<AbsProviderConfig, usize>>,
    providers_done: Mutex<HashSet<AbsProviderConfig>>,
    /// Ephemeral resource instances opened by this walk.
    ephemerals: crate::ephemeral::OpenEphemerals,
    /// Every managed resource the walk expanded, in each module instance,
    /// with its provider configuration: what a failed apply records even
    /// when it holds no instance (see [`record_visited_resources`]).
    visited: Mutex<Vec<(AbsResource, AbsProviderConfig)>>,
}

/// A failed (or interrupted) apply leaves in the state an entry for every
/// managed resource it reached, instances or none, as terraform does: it
/// removes entries without instances only when its walk completes. An
/// entry whose last instance this apply removed or failed to create is
/// gone, as terraform drops it when that instance's object goes.
fn record_visited_resources(
    state: &mut State,
    visited: Vec<(AbsResource, AbsProviderConfig)>,
    changes: &[ResourceInstanceChange],
) {
    let changed: HashSet<AbsResource> = changes
        .iter()
        .filter(|c| c.action != Action::NoOp)
        .map(|c| c.addr.containing_resource())
        .collect();
    for (addr, provider) in visited {
        if changed.contains(&addr) {
            continue;
        }
        state
            .resources
            .entry(addr)
            .or_insert_with(|| terrace_states::ResourceState {
                provider,
                each_mode: Default::default(),
                instances: Default::default(),
            });
    }
}

pub(crate) fn apply(ctx: &Context, plan: &Plan, hooks: &dyn Hooks) -> (State, Diagnostics) {
    let mut state = plan.prior_state.clone();
    if plan.errored {
        return (
            state,
            vec![Diagnostic::error(
                "Cannot apply incomplete plan",
                format!("{PRODUCT} encountered an error when generating this plan, so it cannot be applied."),
            )],
        );
    }
    let (model, mut diags) = model::build(ctx, Some(&plan.prior_state));
    if has_errors(&diags) {
        return (state, diags);
    }
    let deletes = graph::DeleteWork::of_changes(&plan.changes);
    let (mut graph, gdiags) = graph::build(&model, GraphKind::Apply(&deletes));
    diags.extend(gdiags);
    if has_errors(&diags) {
        return (state, diags);
    }
    for (addr, info) in &model.resources {
        if info.config.is_some() {
            continue;
        }
        let mut deps: Vec<ConfigResource> = Vec::new();
        for (abs, rs) in &plan.prior_state.resources {
            if &abs.config() != addr {
                continue;
            }
            for is in rs.instances.values() {
                for obj in is.current.iter().chain(is.deposed.values()) {
                    deps.extend(obj.dependencies.iter().cloned());
                }
            }
        }
        deps.sort_by_cached_key(|d| d.to_string());
        deps.dedup();
        add_state_destroy_edges(&mut graph, addr, &deps);
    }
    if let Some(d) = cycles(&graph) {
        diags.extend(d);
        return (state, diags);
    }
    let env = Env {
        ctx,
        model,
        values: Values::new(),
        now: if plan.timestamp.is_empty() {
            now_rfc3339()
        } else {
            plan.timestamp.clone()
        },
        applying: true,
        validating: false,
        functions: Default::default(),
        checks: if plan.mode == PlanMode::Destroy {
            crate::checks::CheckTracker::for_apply(&ctx.config, plan.checks.as_ref()).for_destroy()
        } else {
            crate::checks::CheckTracker::for_apply(&ctx.config, plan.checks.as_ref())
        },
        resource_conditions_warn: false,
    };
    let mut by_resource: HashMap<ConfigResource, Vec<&ResourceInstanceChange>> = HashMap::new();
    let mut needed = HashSet::new();
    for c in &plan.changes {
        by_resource
            .entry(c.addr.config_resource())
            .or_default()
            .push(c);
        // Forgetting only edits the state: no provider is needed for it.
        if !matches!(c.action, Action::NoOp | Action::Forget) {
            needed.insert(c.provider.config.clone());
        }
    }
    let mut users: HashMap<AbsProviderConfig, usize> = HashMap::new();
    for (addr, info) in &env.model.resources {
        let destroys = graph.index.contains_key(&Node::Destroy(addr.clone()));
        let closes = graph
            .index
            .contains_key(&Node::EphemeralClose(addr.clone()));
        *users.entry(info.provider.clone()).or_default() +=
            1 + usize::from(destroys) + usize::from(closes);
        // Ephemeral resources are opened again in every walk, so their
        // providers are configured even when the plan changes nothing of
        // theirs.
        if closes {
            needed.insert(info.provider.clone());
        }
    }
    let walker = ApplyWalker {
        env: &env,
        graph: &graph,
        plan,
        hooks,
        instances: Instances::default(),
        diags: Mutex::new(Diagnostics::new()),
        state: Mutex::new(state),
        by_resource,
        deposed_by_apply: Mutex::new(HashMap::new()),
        imports_recorded: Mutex::new(HashSet::new()),
        needed,
        provider_users: Mutex::new(users),
        providers_done: Mutex::new(HashSet::new()),
        ephemerals: Default::default(),
        visited: Mutex::new(Vec::new()),
    };
    let internal_errors = walk::run(&graph, ctx.workers(), &walker);
    diags.extend(walker.ephemerals.close_all(hooks));
    walker.instances.close_all();
    // Provider instances that could not be configured, and what was not
    // applied because of them: errors, after which everything else was.
    diags.extend(walker.instances.take_unavailable().1);
    // A panic caught by the walk may have poisoned these; what they hold
    // (every object recorded so far) is still the truth.
    diags.extend(std::mem::take(
        &mut *walker.diags.lock().unwrap_or_else(PoisonError::into_inner),
    ));
    diags.extend(internal_errors);
    state = std::mem::replace(
        &mut *walker.state.lock().unwrap_or_else(PoisonError::into_inner),
        State::new_with_lineage(String::new()),
    );
    let only: Option<HashSet<&str>> =
        (!plan.targets.is_empty() || !plan.excludes.is_empty()).then(|| {
            plan.output_changes
                .iter()
                .map(|o| o.name.as_str())
                .collect()
        });
    if has_errors(&diags) || hooks.stopping() {
        if plan.mode != PlanMode::Destroy {
            let visited = std::mem::take(
                &mut *walker
                    .visited
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner),
            );
            record_visited_resources(&mut state, visited, &plan.changes);
        }
    } else {
        // A walk that completed drops what holds no instance any more
        // (entries a failed apply, here or terraform's, left behind).
        state.resources.retain(|_, r| !r.instances.is_empty());
    }
    save_outputs(&env, plan.mode, &mut state, only.as_ref());
    // A refresh-only plan's apply evaluates nothing of its own: the
    // results are those the refresh found.
    state.check_results = if plan.mode == PlanMode::RefreshOnly {
        plan.checks.clone()
    } else {
        env.checks.results()
    };
    hooks.walk_finished(&crate::root_eval::WalkRoot { env: &env });
    if !plan.targets.is_empty() || !plan.excludes.is_empty() {
        let (opt, opts, provided) = if plan.excludes.is_empty() {
            ("the -target option", "the -target option is", "is provided")
        } else {
            (
                "the -target or the -exclude option",
                "the -target and -exclude options are",
                "are provided",
            )
        };
        diags.push(Diagnostic::warning(
            "Applied changes may be incomplete",
            format!("The plan was created with {opt} in effect, so some changes requested in the configuration may have been ignored and the output values may not be fully updated. Run the following command to verify that no other changes are pending:\n    {PRODUCT} plan\n\nNote that {opts} not suitable for routine use, and {provided} only for exceptional situations such as recovering from errors or mistakes, or when {PRODUCT} specifically suggests to use it as part of an error message."),
        ));
    }
    (state, diags)
}

/// Root outputs into the state; under `-target`/`-exclude` only those the
/// plan covered (`only`), the others keep their previous values.
fn save_outputs(env: &Env<'_>, mode: PlanMode, state: &mut State, only: Option<&HashSet<&str>>) {
    if mode == PlanMode::Destroy && only.is_none() {
        state.outputs.clear();
        return;
    }
    let root = ModuleInstance::root();
    let outputs = &env.ctx.config.module.outputs;
    if only.is_none() {
        state.outputs.retain(|name, _| outputs.contains_key(name));
    }
    for (name, decl) in outputs {
        if only.is_some_and(|o| !o.contains(name.as_str())) {
            continue;
        }
        if mode == PlanMode::Destroy {
            state.set_output(name.clone(), None);
            continue;
        }
        let Some(v) = env.values.output(&root, name) else {
            continue;
        };
        let (plain, marks) = v.unmark_deep();
        // A refresh-only apply saves an output not known yet with its
        // unknown parts null, as terraform saves it (`tostring(null)`).
        if !plain.is_wholly_known() && mode != PlanMode::RefreshOnly {
            continue;
        }
        if plain.is_null() {
            state.set_output(name.clone(), None);
            continue;
        }
        let plain = unknowns_as_null(&plain);
        state.set_output(
            name.clone(),
            Some(OutputState {
                value: plain,
                sensitive: decl.sensitive || marks.is_sensitive(),
            }),
        );
    }
}

fn store(acc: &InstanceValues, addr: &AbsResourceInstance, v: Value) {
    if let Ok(mut g) = acc.lock() {
        g.entry(addr.module.clone())
            .or_default()
            .insert(addr.resource.key.clone(), v);
    }
}

/// A result with unknowns left in it made storable: unknowns become nulls.
fn unknowns_as_null(v: &Value) -> Value {
    if !v.is_known() {
        return Value::null(v.ty().clone()).mark(v.marks());
    }
    if v.is_null() || v.is_wholly_known() {
        return v.clone();
    }
    let ty = v.ty();
    let out = if ty.is_object() {
        Value::object(
            v.as_attributes()
                .map(|a| {
                    a.iter()
                        .map(|(k, e)| (k.clone(), unknowns_as_null(e)))
                        .collect()
                })
                .unwrap_or_default(),
        )
    } else if ty.is_map() {
        let ety = ty
            .element_type()
            .cloned()
            .unwrap_or(terrace_value::Type::Dynamic);
        Value::map(
            ety,
            v.as_attributes()
                .map(|a| {
                    a.iter()
                        .map(|(k, e)| (k.clone(), unknowns_as_null(e)))
                        .collect()
                })
                .unwrap_or_default(),
        )
    } else if ty.is_list() || ty.is_set() {
        let ety = ty
            .element_type()
            .cloned()
            .unwrap_or(terrace_value::Type::Dynamic);
        let es: Vec<Value> = v
            .as_elements()
            .map(|e| e.iter().map(unknowns_as_null).collect())
            .unwrap_or_default();
        if ty.is_list() {
            Value::list(ety, es)
        } else {
            Value::set(ety, es)
        }
    } else if ty.is_tuple() {
        Value::tuple(
            v.as_elements()
                .map(|e| e.iter().map(unknowns_as_null).collect())
                .unwrap_or_default(),
        )
    } else {
        v.clone()
    };
    out.mark(v.marks())
}

impl<'e, 'a> ApplyWalker<'e, 'a> {
    fn report(&self, d: Diagnostics) {
        if d.is_empty() {
            return;
        }
        if let Ok(mut g) = self.diags.lock() {
            g.extend(d);
        }
    }

    fn set_object(
        &self,
        addr: &AbsResourceInstance,
        deposed: Option<&DeposedKey>,
        provider: &AbsProviderConfig,
        key: &InstanceKey,
        object: Option<ObjectState>,
    ) {
        {
            let Ok(mut st) = self.state.lock() else {
                return;
            };
            match deposed {
                Some(dk) => st.set_deposed(
                    addr,
                    dk.clone(),
                    provider.clone(),
                    key.clone(),
                    object.clone(),
                ),
                None => st.set_current(addr, provider.clone(), key.clone(), object.clone()),
            }
        }
        // Journaled after the state holds it, outside the state's lock
        // (writing the entry is most of the work, and under the lock it
        // made every worker wait for it). The order of one object's entries
        // is still the order of its changes: the graph never changes one
        // object on two threads at once. Whatever reads the journal onto a
        // state snapshot replays an entry the snapshot already holds as a
        // no-op.
        self.hooks
            .object_changed(addr, deposed, provider, key, object.as_ref());
    }

    fn visit_provider(&'e self, addr: &'e AbsProviderConfig) -> Visit<'e> {
        let Some(p) = self.env.model.providers.get(addr) else {
            return Visit::Done(true);
        };
        if !self.needed.contains(addr) {
            return Visit::Done(true);
        }
        if p.schema.is_none() {
            return Visit::Done(false);
        }
        visit_provider_instances(self.env, &self.instances, p, &self.diags)
    }

    fn visit_apply(&'e self, addr: &'e ConfigResource) -> Visit<'e> {
        let Some(info) = self.env.model.resources.get(addr) else {
            return Visit::Done(true);
        };
        let Some(r) = info.config else {
            return Visit::Done(true);
        };
        let (expansion, d) = expand_resource(self.env, info);
        if self.plan.mode != PlanMode::Destroy && !has_errors(&d) {
            crate::common::report_resource_objects(self.env, info, &expansion);
            if addr.resource.mode == ResourceMode::Managed {
                if let Ok(mut visited) = self.visited.lock() {
                    for (module, _, _) in &expansion {
                        visited.push((
                            addr.resource.absolute(module.clone()),
                            info.provider.clone(),
                        ));
                    }
                }
            }
        }
        // While destroying, the expansion only serves references (as in
        // the destroy plan): what it cannot know any more, such as a
        // `count` from objects already deleted, is no error.
        let ok = self.plan.mode == PlanMode::Destroy || !has_errors(&d);
        if self.plan.mode != PlanMode::Destroy {
            self.report(d);
        }
        let mut reps: HashMap<AbsResourceInstance, Repetition> = HashMap::new();
        for (mi, _, keys) in &expansion {
            for (k, rep) in keys {
                reps.insert(
                    addr.resource.absolute(mi.clone()).instance(k.clone()),
                    rep.clone(),
                );
            }
        }
        let acc: Arc<InstanceValues> = Arc::new(Mutex::new(HashMap::new()));
        let mut jobs: Vec<Job<'e>> = Vec::new();
        if addr.resource.mode == ResourceMode::Ephemeral {
            for (iaddr, rep) in reps.clone() {
                let acc = acc.clone();
                jobs.push(Box::new(move || {
                    self.open_ephemeral(info, r, &iaddr, &rep, &acc)
                }));
            }
        }
        for c in self.by_resource.get(addr).map(Vec::as_slice).unwrap_or(&[]) {
            let c: &'e ResourceInstanceChange = c;
            if c.deposed.is_some() || c.action == Action::Delete {
                continue;
            }
            if c.action == Action::NoOp {
                store(&acc, &c.addr, c.after.clone());
                if c.importing.is_some() {
                    jobs.push(Box::new(move || self.record_import(info, c)));
                } else {
                    self.record_provider_instance(c);
                }
                if r.preconditions.len() + r.postconditions.len() > 0 {
                    let rep = reps.get(&c.addr).cloned().unwrap_or_default();
                    jobs.push(Box::new(move || self.check_unchanged(info, c, rep)));
                }
                continue;
            }
            let rep = reps.get(&c.addr).cloned().unwrap_or_default();
            let acc = acc.clone();
            jobs.push(Box::new(move || self.apply_change(info, r, c, rep, &acc)));
        }
        let finish: Job<'e> = Box::new(move || {
            self.finish_values(info, &expansion, &acc);
            ok
        });
        Visit::Fanout { jobs, finish }
    }

    /// Aggregates for references: applied and planned values, and for
    /// instances the plan did not touch, their objects in the state.
    fn finish_values(
        &self,
        info: &ResourceInfo<'_>,
        expansion: &ResourceExpansion,
        acc: &InstanceValues,
    ) {
        let mut values = acc
            .lock()
            .map(|mut g| std::mem::take(&mut *g))
            .unwrap_or_default();
        if let Ok(st) = self.state.lock() {
            for (mi, _, keys) in expansion {
                let have = values.entry(mi.clone()).or_default();
                for (k, _) in keys {
                    if have.contains_key(k) {
                        continue;
                    }
                    let addr = info.addr.resource.absolute(mi.clone()).instance(k.clone());
                    if let Some(obj) = st.object(&addr) {
                        have.insert(k.clone(), decode_object(info, obj));
                    } else if self.plan.mode == PlanMode::RefreshOnly
                        && info.addr.resource.mode == ResourceMode::Managed
                    {
                        // Not created yet: not known, of its type, as the
                        // refresh-only plan saw it.
                        have.insert(k.clone(), Value::unknown(info.ty.clone()));
                    }
                }
            }
        }
        set_aggregates(self.env, info, expansion, &values);
    }

    fn visit_destroy(&'e self, addr: &'e ConfigResource) -> Visit<'e> {
        let Some(info) = self.env.model.resources.get(addr) else {
            return Visit::Done(true);
        };
        let mut jobs: Vec<Job<'e>> = Vec::new();
        for c in self.by_resource.get(addr).map(Vec::as_slice).unwrap_or(&[]) {
            let c: &'e ResourceInstanceChange = c;
            if c.action == Action::Forget {
                jobs.push(Box::new(move || {
                    self.set_object(
                        &c.addr,
                        c.deposed.as_ref(),
                        &c.provider.config,
                        &c.provider.key,
                        None,
                    );
                    true
                }));
                continue;
            }
            let wanted = c.deposed.is_some()
                || matches!(
                    c.action,
                    Action::Delete | Action::DeleteThenCreate | Action::CreateThenDelete
                );
            if wanted {
                jobs.push(Box::new(move || self.apply_delete(info, c)));
            }
        }
        Visit::Fanout {
            jobs,
            finish: Box::new(|| true),
        }
    }

    fn provider(&self, c: &ResourceInstanceChange) -> Result<Arc<dyn Provider>, Diagnostics> {
        if self.instances.is_unavailable(&c.provider) {
            self.instances.left_out(&c.addr, &c.provider, "applied");
            return Err(Diagnostics::new());
        }
        let provider = self.instances.get(&c.provider).ok_or_else(|| {
            vec![instance_not_present(
                &c.addr,
                c.deposed.as_ref(),
                &c.provider.config,
                &c.provider.key,
            )]
        })?;
        Ok(self.env.ctx.providers.for_resource(&c.addr, provider))
    }

    /// Opens an ephemeral resource instance again for this walk (a plan
    /// never holds its value).
    fn open_ephemeral(
        &self,
        info: &ResourceInfo<'_>,
        r: &Resource,
        addr: &AbsResourceInstance,
        rep: &Repetition,
        acc: &InstanceValues,
    ) -> bool {
        let key = match instance_key_for(self.env, info, addr, rep) {
            Ok(key) => key,
            Err(d) => {
                self.report(d);
                return false;
            }
        };
        let pinst = info.provider.instance(key.clone());
        if self.instances.is_unavailable(&pinst) {
            self.instances.left_out(addr, &pinst, "applied");
            store(acc, addr, Value::unknown(info.ty.clone()));
            return true;
        }
        let Some(provider) = self.instances.get(&pinst) else {
            self.report(vec![instance_not_present(addr, None, &info.provider, &key)]);
            return false;
        };
        let provider = self.env.ctx.providers.for_resource(addr, provider);
        match crate::ephemeral::open_instance(
            self.env,
            info,
            r,
            addr,
            rep,
            provider,
            self.hooks,
            &self.ephemerals,
        ) {
            Ok((value, warnings)) => {
                self.report(warnings);
                store(acc, addr, value);
                true
            }
            Err(d) => {
                self.report(d);
                false
            }
        }
    }

    fn apply_change(
        &self,
        info: &ResourceInfo<'_>,
        r: &Resource,
        c: &ResourceInstanceChange,
        rep: Repetition,
        acc: &InstanceValues,
    ) -> bool {
        // An import that comes with changes is recorded (and reported) as
        // an import first, as terraform applies it: the object is managed
        // even if the change after it fails.
        if c.importing.is_some() && !self.record_import_once(info, c) {
            return false;
        }
        tracing::debug!(address = %c.addr, action = ?c.action, "applying change");
        let provider = match self.provider(c) {
            Ok(p) => p,
            Err(d) => {
                self.report(d);
                return false;
            }
        };
        let result = match (c.action, c.addr.resource.resource.mode) {
            (Action::Read, ResourceMode::Data) => {
                self.apply_read(info, r, c, &rep, provider.as_ref())
            }
            (
                Action::Create
                | Action::Update
                | Action::DeleteThenCreate
                | Action::CreateThenDelete,
                _,
            ) => self.apply_managed(info, r, c, &rep, provider.as_ref()),
            _ => Ok(None),
        };
        match result {
            Ok(Some(v)) => {
                store(acc, &c.addr, v);
                true
            }
            Ok(None) => true,
            Err(d) => {
                self.report(d);
                false
            }
        }
    }

    fn apply_read(
        &self,
        info: &ResourceInfo<'_>,
        r: &Resource,
        c: &ResourceInstanceChange,
        rep: &Repetition,
        provider: &dyn Provider,
    ) -> Result<Option<Value>, Diagnostics> {
        let (Some(schema), Some(cfg_module)) = (&info.schema, info.module) else {
            return Ok(None);
        };
        let mut scope = self
            .env
            .scope(cfg_module, c.addr.module.clone(), rep.clone());
        let mut diags = Diagnostics::new();
        check_resource_rules(self.env, &scope, &c.addr, false, &mut diags);
        if has_errors(&diags) {
            return Err(diags);
        }
        let (config, d) = crate::common::decode_resource_config(info, r, &schema.block, &scope);
        diags.extend(d);
        if has_errors(&diags) {
            return Err(diags);
        }
        let (cfg_plain, cfg_marks) = unmark(&config);
        let start = Instant::now();
        self.hooks.apply_started(&c.addr, None, Action::Read, None);
        let resp = provider.read_data_source(ReadDataSourceRequest {
            type_name: c.addr.resource.resource.type_name.to_string(),
            config: cfg_plain,
            provider_meta: None,
            client_capabilities: ClientCapabilities::default(),
        });
        let address = c.addr.to_string();
        diags.extend(convert_diags(
            resp.diagnostics,
            Some(InBody::new(&r.config, &address, &info.provider.provider)),
        ));
        let value = typed(resp.state, &info.ty);
        let failed = has_errors(&diags) || value.is_null();
        let marked = apply_mark_paths(&mark_schema_sensitive(&schema.block, &value), &cfg_marks);
        self.hooks.apply_finished(
            &c.addr,
            None,
            Action::Read,
            value_id(&marked).as_deref(),
            start.elapsed(),
            !failed,
        );
        if let Some(check) = check_container(cfg_module, r) {
            crate::common::report_check_data_source(
                self.env,
                &c.addr.module,
                check,
                failed.then_some(&diags),
            );
        }
        if failed {
            if let Some(check) = check_container(cfg_module, r) {
                // Reported as warnings; the check's assertions are skipped.
                self.env.values.fail_check(&c.addr.module, check);
                self.report(as_warnings(diags));
                return Ok(None);
            }
            return Err(diags);
        }
        if check_container(cfg_module, r).is_some() {
            diags = as_warnings(diags);
        }
        self.report(diags);
        let obj = encode_object(&marked, &info.ty, schema.version)?;
        self.set_object(
            &c.addr,
            None,
            &c.provider.config,
            &c.provider.key,
            Some(obj),
        );
        if !r.postconditions.is_empty() {
            let mut post = Diagnostics::new();
            scope.self_value = Some(marked.clone());
            check_resource_rules(self.env, &scope, &c.addr, true, &mut post);
            if has_errors(&post) {
                return Err(post);
            }
            self.report(post);
        }
        Ok(Some(marked))
    }

    fn apply_managed(
        &self,
        info: &ResourceInfo<'_>,
        r: &Resource,
        c: &ResourceInstanceChange,
        rep: &Repetition,
        provider: &dyn Provider,
    ) -> Result<Option<Value>, Diagnostics> {
        let (Some(schema), Some(cfg_module)) = (&info.schema, info.module) else {
            return Ok(None);
        };
        let addr = &c.addr;
        let mut scope = self.env.scope(cfg_module, addr.module.clone(), rep.clone());
        let mut diags = Diagnostics::new();
        check_resource_rules(self.env, &scope, addr, false, &mut diags);
        if has_errors(&diags) {
            return Err(diags);
        }
        let (config, d) = crate::common::decode_resource_config(info, r, &schema.block, &scope);
        diags.extend(d);
        if has_errors(&diags) {
            return Err(diags);
        }
        let (cfg_plain, cfg_marks) = unmark(&config);
        let null = Value::null(info.ty.clone());
        let prior_plain = if c.action == Action::Update {
            unmark(&c.before).0
        } else {
            null.clone()
        };
        let managed = r.managed.clone().unwrap_or_default();
        let cfg_plain = if c.action == Action::Update && !managed.ignore_changes.is_empty() {
            let paths: Vec<_> = managed.ignore_changes.iter().map(traversal_path).collect();
            ignore_changes(&cfg_plain, &prior_plain, &paths)
        } else {
            cfg_plain
        };
        if c.action == Action::CreateThenDelete {
            let deposed = self.state.lock().ok().and_then(|mut st| {
                let obj = st.object(addr).cloned();
                st.depose_current(addr).ok().flatten().map(|k| (k, obj))
            });
            if let Some((key, obj)) = deposed {
                self.hooks.object_changed(
                    addr,
                    Some(&key),
                    &c.provider.config,
                    &c.provider.key,
                    obj.as_ref(),
                );
                self.hooks
                    .object_changed(addr, None, &c.provider.config, &c.provider.key, None);
                if let Ok(mut m) = self.deposed_by_apply.lock() {
                    m.insert(addr.clone(), key);
                }
            }
        }
        let provider_name = info.provider.provider.to_string();
        let proposed = proposed_new(&schema.block, &prior_plain, &cfg_plain);
        let resp = provider.plan_resource_change(PlanResourceChangeRequest {
            type_name: addr.resource.resource.type_name.to_string(),
            prior_state: prior_plain.clone(),
            proposed_new_state: proposed,
            config: cfg_plain.clone(),
            prior_private: c.private.clone(),
            provider_meta: None,
            client_capabilities: ClientCapabilities::default(),
        });
        let address = addr.to_string();
        diags.extend(convert_diags(
            resp.diagnostics,
            Some(InBody::new(&r.config, &address, &info.provider.provider)),
        ));
        if has_errors(&diags) {
            return Err(diags);
        }
        let planned = typed(resp.planned_state, &info.ty);
        if !resp.legacy_type_system {
            let before_plan = unmark(&c.after).0;
            for e in assert_object_compatible(&schema.block, &before_plan, &planned) {
                diags.push(Diagnostic::error(
                    "Provider produced inconsistent final plan",
                    format!("When expanding the plan for {addr} to include new values learned so far during apply, provider {provider_name:?} produced an invalid new value for {e}.\n\nThis is a bug in the provider, which should be reported in the provider's own issue tracker."),
                ));
            }
            if has_errors(&diags) {
                return Err(diags);
            }
        }
        if c.action == Action::Update && planned.raw_equals(&prior_plain) {
            // The values the plan did not know turned out to change
            // nothing: as terraform does, the update becomes a no-op, with
            // no call to the provider, no progress line and no count.
            return self.keep_unchanged(info, r, c, &mut scope, diags);
        }
        let start = Instant::now();
        let creating = c.action != Action::Update;
        // A replacement is reported as its two halves: the destroy half by
        // `apply_delete`, this create half as a create, so the UI prints
        // "Creating..." and counts one added object.
        let hook_action = if creating {
            Action::Create
        } else {
            Action::Update
        };
        let before_id = (!creating).then(|| value_id(&c.before)).flatten();
        self.hooks
            .apply_started(addr, None, hook_action, before_id.as_deref());
        let ar = provider.apply_resource_change(ApplyResourceChangeRequest {
            type_name: addr.resource.resource.type_name.to_string(),
            prior_state: prior_plain.clone(),
            planned_state: planned.clone(),
            config: cfg_plain,
            planned_private: resp.planned_private,
            provider_meta: None,
        });
        diags.extend(convert_diags(
            ar.diagnostics,
            Some(InBody::new(&r.config, &address, &info.provider.provider)),
        ));
        let mut new = typed(ar.new_state, &info.ty);
        let mut failed = has_errors(&diags);
        if !failed && !new.is_null() {
            let check = check_apply_result(
                &schema.block,
                &planned,
                &new,
                ar.legacy_type_system,
                &provider_name,
                &addr.to_string(),
            );
            diags.extend(convert_diags(check.diagnostics, None));
            if !new.is_wholly_known() {
                diags.push(Diagnostic::error(
                    "Provider returned invalid result object after apply",
                    format!("After the apply operation, the provider still indicated an unknown value for {addr}. All values must be known after apply, so this is always a bug in the provider and should be reported in the provider's own repository. {PRODUCT} will still save the other known object values in the state."),
                ));
                new = unknowns_as_null(&new);
            }
            failed = has_errors(&diags);
        }
        // Create-time provisioners run before the create is reported done,
        // so the UI keeps its "Still creating..." ticking through them.
        let provisioners = if creating && !failed && !new.is_null() {
            crate::provisioners::of_resource(r, ProvisionerWhen::Create)
        } else {
            Vec::new()
        };
        let marked = apply_mark_paths(&mark_schema_sensitive(&schema.block, &new), &cfg_marks);
        let id = value_id(&marked);
        // "... complete" is reported only once the result is recorded (and
        // so journaled): a process killed after the user saw it must not
        // lose the object.
        let finished = |ok: bool| {
            self.hooks
                .apply_finished(addr, None, hook_action, id.as_deref(), start.elapsed(), ok)
        };
        if new.is_null() {
            if failed && !creating {
                // The object was not changed.
                finished(false);
                return Err(diags);
            }
            self.set_object(addr, None, &c.provider.config, &c.provider.key, None);
            finished(!failed);
            return if failed { Err(diags) } else { Ok(Some(marked)) };
        }
        let mut obj = encode_object(&marked, &info.ty, schema.version).inspect_err(|_| {
            finished(false);
        })?;
        obj.private = (!ar.private.is_empty()).then_some(ar.private);
        obj.status = if failed && creating {
            ObjectStatus::Tainted
        } else {
            ObjectStatus::Ready
        };
        self.link_to_configuration(info, &mut obj);
        let provisioned = (!provisioners.is_empty()).then(|| obj.clone());
        self.set_object(addr, None, &c.provider.config, &c.provider.key, Some(obj));
        if provisioned.is_none() || failed {
            finished(!failed);
        }
        if failed {
            return Err(diags);
        }
        if let Some(mut obj) = provisioned {
            scope.self_value = Some(marked.clone());
            let pd = crate::provisioners::run(&provisioners, &scope, self.hooks, addr);
            let pfailed = has_errors(&pd);
            diags.extend(pd);
            if pfailed {
                // As Terraform: a half-provisioned object is replaced next time.
                obj.status = ObjectStatus::Tainted;
                self.set_object(addr, None, &c.provider.config, &c.provider.key, Some(obj));
            }
            finished(!pfailed);
            if pfailed {
                return Err(diags);
            }
        }
        if !r.postconditions.is_empty() {
            scope.self_value = Some(marked.clone());
            check_resource_rules(self.env, &scope, addr, true, &mut diags);
            if has_errors(&diags) {
                return Err(diags);
            }
        }
        self.report(diags);
        Ok(Some(marked))
    }

    /// What an applied object records of its resource's configuration now:
    /// the resources it depends on and whether it is replaced
    /// create-before-destroy.
    fn link_to_configuration(&self, info: &ResourceInfo<'_>, obj: &mut ObjectState) {
        obj.set_dependencies(
            self.graph
                .resource_deps
                .get(&info.addr)
                .cloned()
                .unwrap_or_default(),
        );
        obj.create_before_destroy = self.graph.cbd.contains(&info.addr);
    }

    /// An update that turned out to change nothing once the plan's unknown
    /// values were known: the object stays as it is, recording the
    /// configuration's dependencies now, and its postconditions are
    /// checked against it.
    fn keep_unchanged(
        &self,
        info: &ResourceInfo<'_>,
        r: &Resource,
        c: &ResourceInstanceChange,
        scope: &mut crate::scope::EvalScope<'_, '_>,
        mut diags: Diagnostics,
    ) -> Result<Option<Value>, Diagnostics> {
        let current = self
            .state
            .lock()
            .ok()
            .and_then(|st| st.object(&c.addr).cloned());
        if let Some(mut obj) = current {
            self.link_to_configuration(info, &mut obj);
            self.set_object(
                &c.addr,
                None,
                &c.provider.config,
                &c.provider.key,
                Some(obj),
            );
        }
        if !r.postconditions.is_empty() {
            scope.self_value = Some(c.before.clone());
            check_resource_rules(self.env, scope, &c.addr, true, &mut diags);
            if has_errors(&diags) {
                return Err(diags);
            }
        }
        self.report(diags);
        Ok(Some(c.before.clone()))
    }

    /// The conditions of an instance the plan leaves as it is: evaluated
    /// again, as for every instance the apply covers, so that the state
    /// records their outcome now.
    fn check_unchanged(
        &self,
        info: &ResourceInfo<'_>,
        c: &ResourceInstanceChange,
        rep: Repetition,
    ) -> bool {
        let (Some(r), Some(cfg_module)) = (info.config, info.module) else {
            return true;
        };
        if r.preconditions.is_empty() && r.postconditions.is_empty() {
            return true;
        }
        let mut diags = Diagnostics::new();
        let mut scope = self.env.scope(cfg_module, c.addr.module.clone(), rep);
        check_resource_rules(self.env, &scope, &c.addr, false, &mut diags);
        if !has_errors(&diags) {
            scope.self_value = Some(c.after.clone());
            check_resource_rules(self.env, &scope, &c.addr, true, &mut diags);
        }
        let ok = !has_errors(&diags);
        self.report(diags);
        ok
    }

    /// An unchanged object is recorded under the provider instance its
    /// configuration resolves to now (a renamed provider configuration, a
    /// changed instance key), as OpenTofu records it, so that the one it
    /// used before can be removed.
    fn record_provider_instance(&self, c: &ResourceInstanceChange) {
        let current = {
            let Ok(st) = self.state.lock() else {
                return;
            };
            match (st.provider_instance(&c.addr), st.object(&c.addr)) {
                (Some(p), Some(obj)) if p != c.provider => Some(obj.clone()),
                _ => None,
            }
        };
        if let Some(obj) = current {
            self.set_object(
                &c.addr,
                None,
                &c.provider.config,
                &c.provider.key,
                Some(obj),
            );
        }
    }

    /// [`ApplyWalker::record_import`] unless this apply has recorded that
    /// import already.
    fn record_import_once(&self, info: &ResourceInfo<'_>, c: &ResourceInstanceChange) -> bool {
        let first = self
            .imports_recorded
            .lock()
            .map(|mut done| done.insert(c.addr.clone()))
            .unwrap_or(true);
        !first || self.record_import(info, c)
    }

    /// An imported object goes into the state as it was read.
    fn record_import(&self, info: &ResourceInfo<'_>, c: &ResourceInstanceChange) -> bool {
        let import_id = c.importing.clone().unwrap_or_default();
        self.hooks.import_applying(&c.addr, &import_id);
        let version = info.schema.as_ref().map(|s| s.version).unwrap_or(0);
        let mut obj = match encode_object(&c.before, &info.ty, version) {
            Ok(o) => o,
            Err(d) => {
                self.report(d);
                return false;
            }
        };
        obj.private = (!c.private.is_empty()).then(|| c.private.clone());
        obj.set_dependencies(
            self.graph
                .resource_deps
                .get(&info.addr)
                .cloned()
                .unwrap_or_default(),
        );
        self.set_object(
            &c.addr,
            None,
            &c.provider.config,
            &c.provider.key,
            Some(obj),
        );
        self.hooks.import_applied(&c.addr, &import_id);
        true
    }

    fn apply_delete(&self, info: &ResourceInfo<'_>, c: &ResourceInstanceChange) -> bool {
        let addr = &c.addr;
        // An imported object that is replaced is imported first, then
        // destroyed, as terraform applies it: the object found is managed,
        // and so it is not left behind.
        if c.importing.is_some()
            && c.deposed.is_none()
            && c.action == Action::DeleteThenCreate
            && !self.record_import_once(info, c)
        {
            return false;
        }
        let deposed = match (&c.deposed, c.action) {
            (Some(k), _) => Some(k.clone()),
            (None, Action::CreateThenDelete) => {
                match self
                    .deposed_by_apply
                    .lock()
                    .ok()
                    .and_then(|m| m.get(addr).cloned())
                {
                    Some(k) => Some(k),
                    // The create failed before deposing anything.
                    None => return true,
                }
            }
            _ => None,
        };
        let provider = match self.provider(c) {
            Ok(p) => p,
            Err(d) => {
                self.report(d);
                return false;
            }
        };
        let prior = {
            let st = match self.state.lock() {
                Ok(s) => s,
                Err(_) => return false,
            };
            let obj = match &deposed {
                Some(k) => st.deposed_object(addr, k),
                None => st.object(addr),
            };
            match obj {
                Some(o) => (decode_object(info, o), o.status == ObjectStatus::Tainted),
                None => return true,
            }
        };
        let (prior, tainted) = prior;
        let prior_plain = unmark(&prior).0;
        let start = Instant::now();
        let id = value_id(&prior_plain);
        self.hooks
            .apply_started(addr, deposed.as_ref(), Action::Delete, id.as_deref());
        // Deposed and tainted objects get no destroy-time provisioners,
        // as in Terraform; a failing one keeps the object.
        if deposed.is_none() && !tainted {
            let pd = self.destroy_provisioners(info, addr, &prior);
            if has_errors(&pd) {
                self.hooks.apply_finished(
                    addr,
                    deposed.as_ref(),
                    Action::Delete,
                    id.as_deref(),
                    start.elapsed(),
                    false,
                );
                self.report(pd);
                return false;
            }
            self.report(pd);
        }
        let ar = provider.apply_resource_change(ApplyResourceChangeRequest {
            type_name: addr.resource.resource.type_name.to_string(),
            prior_state: prior_plain,
            planned_state: Value::null(info.ty.clone()),
            config: Value::null(info.ty.clone()),
            planned_private: if c.action == Action::Delete {
                c.private.clone()
            } else {
                Vec::new()
            },
            provider_meta: None,
        });
        let diags = convert_diags(ar.diagnostics, None);
        let failed = has_errors(&diags);
        if !failed {
            self.set_object(
                addr,
                deposed.as_ref(),
                &c.provider.config,
                &c.provider.key,
                None,
            );
        }
        self.hooks.apply_finished(
            addr,
            deposed.as_ref(),
            Action::Delete,
            id.as_deref(),
            start.elapsed(),
            !failed,
        );
        self.report(diags);
        !failed
    }

    /// Runs the destroy-time provisioners of `addr` (from its resource
    /// block, or from a `removed` block once the resource is gone) with
    /// `self` as the object about to be destroyed.
    fn destroy_provisioners(
        &self,
        info: &ResourceInfo<'_>,
        addr: &AbsResourceInstance,
        prior: &Value,
    ) -> Diagnostics {
        let root: &terrace_config::loader::Config = &self.env.ctx.config;
        let (cfg, module, provs) = match (info.config, info.module) {
            (Some(r), Some(cfg)) => (
                cfg,
                addr.module.clone(),
                crate::provisioners::of_resource(r, ProvisionerWhen::Destroy),
            ),
            _ => match crate::provisioners::of_removed(root, &info.addr) {
                Some((cfg, provs)) => (
                    cfg,
                    crate::provisioners::ancestor(&addr.module, cfg.path.len()),
                    provs,
                ),
                None => return Diagnostics::new(),
            },
        };
        if provs.is_empty() {
            return Diagnostics::new();
        }
        let rep = Repetition::for_key(&addr.resource.key, None);
        let mut scope = self.env.scope(cfg, module, rep);
        scope.self_value = Some(prior.clone());
        crate::provisioners::run(&provs, &scope, self.hooks, addr)
    }

    fn release(&'e self, provider: &'e AbsProviderConfig) -> Vec<Job<'e>> {
        close_when_idle(
            &self.provider_users,
            &self.providers_done,
            &self.instances,
            provider,
        )
    }
}

impl<'e, 'a> Walker<'e> for ApplyWalker<'e, 'a> {
    fn visit(&'e self, node: usize) -> Visit<'e> {
        let (ok, d) = match &self.graph.nodes[node] {
            Node::Variable(m, n) => visit_variable(self.env, m, n),
            Node::Local(m, n) => visit_local(self.env, m, n),
            Node::Output(m, n) => {
                if self.plan.mode == PlanMode::Destroy {
                    (true, Diagnostics::new())
                } else {
                    visit_output(self.env, m, n)
                }
            }
            Node::ModuleCall(m, n) => visit_module_call(self.env, m, n),
            Node::Provider(p) => return self.visit_provider(p),
            Node::Resource(r) => return self.visit_apply(r),
            Node::Destroy(r) => return self.visit_destroy(r),
            Node::EphemeralClose(r) => {
                let d = self.ephemerals.close_resource(r, self.hooks);
                (!has_errors(&d), d)
            }
            Node::Check(m, n) => {
                if self.plan.mode == PlanMode::Destroy {
                    (true, Diagnostics::new())
                } else {
                    crate::common::visit_check(self.env, m, n, crate::common::CheckPhase::Apply)
                }
            }
        };
        self.report(d);
        Visit::Done(ok)
    }

    fn completed(&'e self, node: usize, _ok: bool) -> Vec<Job<'e>> {
        match &self.graph.nodes[node] {
            Node::EphemeralClose(r) => {
                // Skipped after a failure upstream, the close still
                // happens, before the provider can be shut down.
                let d = self.ephemerals.close_resource(r, self.hooks);
                self.report(d);
                let Some(info) = self.env.model.resources.get(r) else {
                    return Vec::new();
                };
                if let Ok(mut u) = self.provider_users.lock() {
                    if let Some(n) = u.get_mut(&info.provider) {
                        *n = n.saturating_sub(1);
                    }
                }
                self.release(&info.provider)
            }
            Node::Resource(r) | Node::Destroy(r) => {
                let Some(info) = self.env.model.resources.get(r) else {
                    return Vec::new();
                };
                if let Ok(mut u) = self.provider_users.lock() {
                    if let Some(n) = u.get_mut(&info.provider) {
                        *n = n.saturating_sub(1);
                    }
                }
                self.release(&info.provider)
            }
            Node::Provider(p) => {
                if let Ok(mut d) = self.providers_done.lock() {
                    d.insert(p.clone());
                }
                self.release(p)
            }
            _ => Vec::new(),
        }
    }

    fn stopping(&'e self) -> bool {
        self.hooks.stopping()
    }

    fn stop(&'e self) {
        self.instances.stop_all();
    }
}
