//! The plan walk: every resource instance is upgraded, refreshed and
//! planned against its configuration (or planned for deletion when the
//! configuration no longer declares it), data sources are read when their
//! configuration is known, and root outputs are compared with the prior
//! state.

use crate::common::{
    as_warnings, check_container, check_resource_rules, decode_object, encode_object,
    expand_resource, ignore_changes, instance_diags, now_rfc3339, set_aggregates, traversal_path,
    upgrade_object, value_at, value_id, visit_local, visit_module_call, visit_output,
    visit_variable, ResourceExpansion,
};
use crate::graph::{self, Graph, GraphKind, Node};
use crate::imports::{self, ImportTarget};
use crate::marks::{apply_mark_paths, mark_schema_sensitive, unmark};
use crate::model::{self, ResourceInfo};
use crate::moves;
use crate::providers::{
    close_when_idle, convert_diags, instance_key_for, instance_not_present, typed,
    visit_provider_instances, InBody, Instances,
};
use crate::scope::Env;
use crate::triggers::{replace_triggered, TriggerIndex};
use crate::values::{EachKind, Repetition, Values};
use crate::walk::{self, Job, Visit, Walker};
use crate::{Context, Hooks, PlanOptions};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use terrace_addrs::{
    AbsProviderConfig, AbsProviderInstance, AbsResource, AbsResourceInstance, ConfigResource,
    InstanceKey, ModuleInstance, ResourceMode,
};
use terrace_config::model::RemoveEndpoint;
use terrace_config::model::Resource;
use terrace_lang::references::Subject;
use terrace_plans::model::{
    Action, ActionReason, OutputChange, Plan, PlanMode, ResourceInstanceChange,
};
use terrace_providers::objchange::{check_planned_state, planned_unknown_object, proposed_new};
use terrace_providers::{
    ClientCapabilities, PlanResourceChangeRequest, Provider, ReadDataSourceRequest,
    ReadResourceRequest,
};
use terrace_states::model::{
    DeposedKey, InstanceState, ObjectState, ObjectStatus, ResourceState, State,
};
use terrace_syntax::diagnostic::has_errors;
use terrace_syntax::PRODUCT;
use terrace_syntax::{Diagnostic, Diagnostics};
use terrace_value::{Marks, Value};

/// One update to the refreshed state.
struct Refreshed {
    addr: AbsResourceInstance,
    deposed: Option<DeposedKey>,
    provider: AbsProviderConfig,
    key: InstanceKey,
    object: Option<ObjectState>,
}

type InstanceValues = Mutex<HashMap<ModuleInstance, HashMap<InstanceKey, Value>>>;

struct PlanWalker<'e, 'a> {
    env: &'e Env<'a>,
    graph: &'e Graph,
    prior: &'e State,
    opts: &'e PlanOptions,
    hooks: &'e dyn Hooks,
    instances: Instances,
    diags: Mutex<Diagnostics>,
    changes: Mutex<Vec<ResourceInstanceChange>>,
    drift: Mutex<Vec<ResourceInstanceChange>>,
    refreshed: Mutex<Vec<Refreshed>>,
    /// Resources with a planned change other than no-op, with the module
    /// instances those changes are in.
    pending: Mutex<HashMap<ConfigResource, HashSet<ModuleInstance>>>,
    by_config: HashMap<ConfigResource, Vec<(&'e AbsResource, &'e ResourceState)>>,
    provider_users: Mutex<HashMap<AbsProviderConfig, usize>>,
    providers_done: Mutex<HashSet<AbsProviderConfig>>,
    /// What `-target`/`-exclude` keep.
    targeting: crate::targeting::Targeting,
    /// Planned changes of the resources some `replace_triggered_by` names.
    triggers: TriggerIndex,
    trigger_targets: HashSet<ConfigResource>,
    /// `removed` blocks: what they name and whether to destroy it.
    removed: Vec<(RemoveEndpoint, bool)>,
    /// Instances planned to be forgotten, for the warning.
    forgotten: Mutex<Vec<String>>,
    /// `terrace import` targets.
    extra_imports: Vec<ImportTarget>,
    imports_seen: Mutex<Vec<ImportTarget>>,
    imports_used: Mutex<HashSet<AbsResourceInstance>>,
    /// Ephemeral resource instances opened by this walk.
    ephemerals: crate::ephemeral::OpenEphemerals,
}

/// What the plan declared, for validating `moved` blocks.
struct PlanDeclared<'p, 'e, 'a> {
    env: &'e Env<'a>,
    changes: &'p [ResourceInstanceChange],
}

impl moves::Declared for PlanDeclared<'_, '_, '_> {
    fn module_instances(&self, m: &terrace_addrs::Module) -> Vec<ModuleInstance> {
        self.env.values.module_instances(m).to_vec()
    }

    fn declared_at(&self, ep: &moves::AbsEpRef<'_>) -> Option<terrace_syntax::SourceRange> {
        let root: &terrace_config::loader::Config = &self.env.ctx.config;
        // The expression that decides which instances exist is blamed
        // for an instance, rather than the block as a whole.
        let repeated = |count: &Option<terrace_config::expr::Expression>,
                        for_each: &Option<terrace_config::expr::Expression>,
                        block: &terrace_syntax::SourceRange| {
            for_each
                .as_ref()
                .or(count.as_ref())
                .map(|e| e.range())
                .unwrap_or_else(|| block.clone())
        };
        let call = |m: &ModuleInstance| {
            let name = m.steps().last()?.name.to_string();
            root.descendant(&model::path_names(&m.parent().module()))?
                .module
                .module_calls
                .get(&name)
        };
        let resource = |r: &terrace_addrs::ConfigResource| {
            self.env.model.resources.get(r).and_then(|info| info.config)
        };
        match ep {
            moves::AbsEpRef::ModuleInstance(m) => {
                call(m).map(|c| repeated(&c.count, &c.for_each, &c.decl_range))
            }
            moves::AbsEpRef::ModuleCall(m) => call(m).map(|c| c.decl_range.clone()),
            moves::AbsEpRef::Resource(r) => resource(&r.config()).map(|rc| rc.decl_range.clone()),
            moves::AbsEpRef::Instance(i) => resource(&i.config_resource())
                .map(|rc| repeated(&rc.count, &rc.for_each, &rc.decl_range)),
        }
    }

    fn declares(&self, ep: &moves::AbsEpRef<'_>) -> bool {
        let root: &terrace_config::loader::Config = &self.env.ctx.config;
        let has_module = |m: &ModuleInstance| {
            self.env
                .values
                .module_instances(&m.module())
                .iter()
                .any(|x| x == m)
        };
        match ep {
            moves::AbsEpRef::ModuleInstance(m) => has_module(m),
            moves::AbsEpRef::ModuleCall(m) => {
                root.descendant(&model::path_names(&m.module())).is_some()
                    && has_module(&m.parent())
            }
            moves::AbsEpRef::Resource(r) => {
                has_module(&r.module)
                    && self
                        .env
                        .model
                        .resources
                        .get(&r.config())
                        .is_some_and(|i| i.config.is_some())
            }
            moves::AbsEpRef::Instance(i) => self
                .changes
                .iter()
                .any(|c| &c.addr == i && c.deposed.is_none() && c.action != Action::Delete),
        }
    }
}

fn removed_statements(ctx: &Context) -> Vec<(RemoveEndpoint, bool)> {
    let mut out = Vec::new();
    ctx.config.deep_each(&mut |c| {
        let base = model::module_path(c);
        for r in &c.module.removed {
            let Some(from) = &r.from else { continue };
            let abs = match from {
                RemoveEndpoint::Module(m) => {
                    RemoveEndpoint::Module(terrace_addrs::Module::from_names(
                        base.names().iter().chain(m.names()).cloned(),
                    ))
                }
                RemoveEndpoint::Resource(cr) => RemoveEndpoint::Resource(cr.resource.in_module(
                    terrace_addrs::Module::from_names(
                        base.names().iter().chain(cr.module.names()).cloned(),
                    ),
                )),
            };
            out.push((abs, r.destroy));
        }
    });
    out
}

/// Terraform's error for a `removed` block naming something the
/// configuration still declares.
fn removed_still_declared(ctx: &Context) -> Diagnostics {
    let mut diags = Diagnostics::new();
    let root: &terrace_config::loader::Config = &ctx.config;
    for (ep, _) in removed_statements(ctx) {
        let (what, range) = match &ep {
            RemoveEndpoint::Resource(cr) => {
                let Some(c) = root.descendant(&model::path_names(&cr.module)) else {
                    continue;
                };
                let found = c
                    .module
                    .all_resources()
                    .find(|r| model::resource_addr(c, r) == *cr);
                match found {
                    Some(r) => (cr.to_string(), Some(r.decl_range.clone())),
                    None => continue,
                }
            }
            RemoveEndpoint::Module(m) => {
                let Some((parent, call)) = m.call() else {
                    continue;
                };
                let Some(pc) = root.descendant(&model::path_names(&parent)) else {
                    continue;
                };
                match pc.module.module_calls.get(call.name.as_ref()) {
                    Some(mc) => (m.to_string(), Some(mc.decl_range.clone())),
                    None => continue,
                }
            }
        };
        let kind = if matches!(ep, RemoveEndpoint::Module(_)) {
            "module"
        } else {
            "resource"
        };
        let mut d = Diagnostic::error(
            format!("Removed {kind} still exists"),
            format!("This statement declares that {what} was removed, but it is still declared in configuration."),
        );
        d.subject = range;
        diags.push(d);
    }
    diags
}

pub(crate) fn plan(
    ctx: &Context,
    prev_run: &State,
    opts: &PlanOptions,
    hooks: &dyn Hooks,
) -> (Plan, Diagnostics) {
    plan_with_imports(ctx, prev_run, opts, hooks, &[], false)
}

/// The refresh a destroy plan starts with: a normal plan whose failed
/// resource conditions are warnings, as they are in a refresh-only plan
/// (nothing of it is applied, so nothing needs blocking).
pub(crate) fn pre_destroy_refresh(
    ctx: &Context,
    prev_run: &State,
    opts: &PlanOptions,
    hooks: &dyn Hooks,
) -> (Plan, Diagnostics) {
    plan_with_imports(ctx, prev_run, opts, hooks, &[], true)
}

/// The plan, importing `extra_imports` besides what import blocks ask.
pub(crate) fn plan_with_imports(
    ctx: &Context,
    prev_run: &State,
    opts: &PlanOptions,
    hooks: &dyn Hooks,
    extra_imports: &[ImportTarget],
    refresh_before_destroy: bool,
) -> (Plan, Diagnostics) {
    // Moves rename the previous run's objects before anything looks at
    // them; the plan's prior and previous-run states both carry the new
    // addresses, and each change remembers the old one.
    let mut stmts = moves::find_statements(&ctx.config);
    let implied = moves::implied_statements(&ctx.config, prev_run, &stmts);
    stmts.extend(implied);
    let mut moved_state = prev_run.clone();
    let move_results = moves::apply_moves(&stmts, &mut moved_state);
    let prior = &moved_state;
    let now = if opts.timestamp.is_empty() {
        now_rfc3339()
    } else {
        opts.timestamp.clone()
    };
    // The plan's two states are filled in at the end (or on an early
    // error): each copy of a large state costs as much as reading it.
    let mut out = Plan::empty(opts.mode, State::new_with_lineage(String::new()));
    out.timestamp = now.clone();
    out.targets = opts.targets.clone();
    out.excludes = opts.excludes.clone();
    out.force_replace = opts.force_replace.clone();
    // Ephemeral variables are never kept in a plan: applying it asks for
    // them again.
    out.variable_values = ctx
        .variables
        .iter()
        .filter(|(k, _)| {
            !ctx.config
                .module
                .variables
                .get(*k)
                .is_some_and(|v| v.ephemeral)
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    out.complete = opts.targets.is_empty() && opts.excludes.is_empty();

    let (model, mut diags) = model::build(ctx, Some(prior));
    diags.extend(removed_still_declared(ctx));
    if extra_imports.is_empty() {
        if let Some(w) = targeting_warning(opts) {
            diags.push(w);
        }
    }
    // terraform has no plan when the configuration's moves and removals
    // are wrong; an import block's target is checked as its plan walk
    // starts, so that failure is a plan that failed.
    out.failed_without_plan = has_errors(&diags);
    if opts.mode == PlanMode::Normal {
        let declared =
            |cr: &ConfigResource| model.resources.get(cr).is_some_and(|i| i.config.is_some());
        diags.extend(imports::validate_blocks(&ctx.config, &declared));
    }
    if has_errors(&diags) {
        out.errored = true;
        out.prior_state = prior.clone();
        out.prev_run_state = prior.clone();
        return (out, diags);
    }
    let (graph, gdiags) = graph::build(&model, GraphKind::Plan);
    diags.extend(gdiags);
    if has_errors(&diags) {
        // A graph that cannot be walked (a cycle) is no plan either.
        out.failed_without_plan = true;
        out.errored = true;
        out.prior_state = prior.clone();
        out.prev_run_state = prior.clone();
        return (out, diags);
    }
    let env = Env {
        ctx,
        model,
        values: Values::new(),
        now,
        applying: false,
        validating: false,
        functions: Default::default(),
        checks: if opts.mode == PlanMode::Destroy {
            crate::checks::CheckTracker::for_config(&ctx.config).for_destroy()
        } else {
            crate::checks::CheckTracker::for_config(&ctx.config)
        },
        resource_conditions_warn: refresh_before_destroy || opts.mode == PlanMode::RefreshOnly,
    };
    let mut by_config: HashMap<ConfigResource, Vec<(&AbsResource, &ResourceState)>> =
        HashMap::new();
    for (abs, rs) in &prior.resources {
        by_config.entry(abs.config()).or_default().push((abs, rs));
    }
    let mut users: HashMap<AbsProviderConfig, usize> = HashMap::new();
    for (addr, info) in &env.model.resources {
        // An ephemeral resource's close node uses the provider too.
        let closes = graph
            .index
            .contains_key(&Node::EphemeralClose(addr.clone()));
        *users.entry(info.provider.clone()).or_default() += 1 + usize::from(closes);
    }
    let targeting = crate::targeting::Targeting::new(
        &graph,
        &opts.targets,
        &opts.excludes,
        (opts.mode == PlanMode::Destroy).then_some(prior),
    );
    let walker = PlanWalker {
        env: &env,
        graph: &graph,
        prior,
        opts,
        hooks,
        instances: Instances::default(),
        diags: Mutex::new(Diagnostics::new()),
        changes: Mutex::new(Vec::new()),
        drift: Mutex::new(Vec::new()),
        refreshed: Mutex::new(Vec::new()),
        pending: Mutex::new(HashMap::new()),
        by_config,
        provider_users: Mutex::new(users),
        providers_done: Mutex::new(HashSet::new()),
        targeting,
        triggers: TriggerIndex::default(),
        trigger_targets: trigger_targets(&env),
        removed: removed_statements(ctx),
        forgotten: Mutex::new(Vec::new()),
        extra_imports: extra_imports.to_vec(),
        imports_seen: Mutex::new(Vec::new()),
        imports_used: Mutex::new(HashSet::new()),
        ephemerals: Default::default(),
    };
    let internal_errors = walk::run(&graph, ctx.workers(), &walker);
    diags.extend(walker.ephemerals.close_all(hooks));
    walker.instances.close_all();
    let (unavailable, isolated) = walker.instances.take_unavailable();
    if !unavailable.is_empty() {
        out.complete = false;
    }
    out.unavailable_providers = unavailable;
    out.isolated_errors = isolated;
    let (deferred_providers, deferred_resources) = walker.instances.take_deferred();
    if !deferred_providers.is_empty() {
        out.complete = false;
    }
    out.deferred_providers = deferred_providers;
    out.deferred_resources = deferred_resources;

    diags.extend(take(&walker.diags));
    diags.extend(internal_errors);
    if opts.mode == PlanMode::Normal {
        let used = take(&walker.imports_used);
        let mut unused: Vec<ImportTarget> = take(&walker.imports_seen)
            .into_iter()
            .filter(|t| !used.contains(&t.addr))
            .collect();
        unused.sort_by(|a, b| a.addr.cmp(&b.addr));
        for t in &unused {
            if walker.targeted(&t.addr) {
                diags.push(imports::undeclared_instance(t));
            }
        }
    }
    out.changes = take(&walker.changes);
    out.drift = take(&walker.drift);
    for c in out.changes.iter_mut().chain(out.drift.iter_mut()) {
        c.prev_run_addr = move_results.prev_addr(&c.addr);
        let orphaned = matches!(
            c.action_reason,
            ActionReason::DeleteBecauseNoResourceConfig | ActionReason::DeleteBecauseNoModule
        );
        if orphaned && move_results.explicitly_moved(&c.addr) {
            c.action_reason = ActionReason::DeleteBecauseNoMoveTarget;
        }
    }
    if let Some(w) = move_results.blocked_warning() {
        diags.push(w);
    }
    // Invalid `moved` statements moved the prior state wrongly before
    // planning, so what was planned from it is not shown: only why.
    let mut withheld = false;
    if opts.mode != PlanMode::Destroy {
        let declared = PlanDeclared {
            env: &env,
            changes: &out.changes,
        };
        let invalid_moves = moves::validate(&stmts, &declared);
        withheld = has_errors(&invalid_moves);
        diags.extend(invalid_moves);
    }
    let mut forgotten = take(&walker.forgotten);
    if !forgotten.is_empty() {
        forgotten.sort();
        let list: String = forgotten.iter().map(|a| format!("\n - {a}")).collect();
        diags.push(Diagnostic::warning(
            format!("Some objects will no longer be managed by {PRODUCT}"),
            format!("If you apply this plan, {PRODUCT} will discard its tracking information for the following objects, but it will not delete them:{list}\n\nAfter applying this plan, {PRODUCT} will no longer manage these objects. You will need to import them into {PRODUCT} to manage them again."),
        ));
    }
    let mut state = prior.clone();
    for r in take(&walker.refreshed) {
        match r.deposed {
            Some(dk) => state.set_deposed(&r.addr, dk, r.provider, r.key, r.object),
            None => state.set_current(&r.addr, r.provider, r.key, r.object),
        }
    }
    out.output_changes = output_changes(&env, prior, opts.mode);
    out.output_changes
        .retain(|o| walker.targeting.output(&o.name));
    if opts.mode != PlanMode::Destroy {
        planned_outputs_into(&env, &mut state, |name| walker.targeting.output(name));
    }
    out.relevant_attributes = crate::relevant::relevant_attributes(
        &ctx.config,
        &env.model,
        &out.changes,
        &out.output_changes,
        &module_output_values(&env),
    );
    out.prior_state = state;
    out.checks = env.checks.results();
    // A root output refused for exposing a sensitive value is left out of
    // the plan, which still shows everything else (as terraform shows
    // it, "planned ... but then encountered a problem"): its change would
    // show the very value the error protects.
    let refused: HashSet<&str> = diags
        .iter()
        .filter(|d| d.is_error() && d.summary == crate::common::OUTPUT_REFERS_TO_SENSITIVE_VALUES)
        .filter_map(|d| d.subject.as_ref())
        .filter_map(|subject| {
            ctx.config
                .module
                .outputs
                .iter()
                .find(|(_, o)| o.decl_range == *subject)
                .map(|(name, _)| name.as_str())
        })
        .collect();
    out.output_changes
        .retain(|o| !refused.contains(o.name.as_str()));
    hooks.walk_finished(&crate::root_eval::WalkRoot { env: &env });
    drop(env);
    out.prev_run_state = moved_state;
    if withheld {
        out.failed_without_plan = true;
        out.changes.clear();
        out.drift.clear();
        out.output_changes.clear();
    }
    out.errored = has_errors(&diags);
    out.sort();
    out.applyable = out.can_apply();
    (out, diags)
}

/// Warnings for `-replace` addresses that name `resource` without an
/// instance key where its instances have keys (or there are none, or
/// several), in each module instance: such an address replaces nothing,
/// and terraform says which addresses would.
fn incompletely_matched_force_replace(
    resource: &ConfigResource,
    expansion: &ResourceExpansion,
    force_replace: &[AbsResourceInstance],
) -> Diagnostics {
    let mut diags = Diagnostics::new();
    let unkeyed: Vec<&AbsResourceInstance> = force_replace
        .iter()
        .filter(|a| a.resource.key == InstanceKey::None && a.config_resource() == *resource)
        .collect();
    if unkeyed.is_empty() {
        return diags;
    }
    const SUMMARY: &str = "Incompletely-matched force-replace resource instance";
    for (module, _, keys) in expansion {
        let instances: Vec<AbsResourceInstance> = keys
            .iter()
            .map(|(key, _)| {
                resource
                    .resource
                    .absolute(module.clone())
                    .instance(key.clone())
            })
            .collect();
        let needs_key = match instances.as_slice() {
            [only] => only.resource.key != InstanceKey::None,
            _ => true,
        };
        if !needs_key {
            continue;
        }
        let option = |a: &AbsResourceInstance| {
            format!("-replace={}", terrace_value::gostr::quote(&a.to_string()))
        };
        for requested in &unkeyed {
            let detail = match instances.as_slice() {
                [] => format!("Your force-replace request for {requested} doesn't match any resource instances because this resource doesn't have any instances."),
                [only] => format!("Your force-replace request for {requested} doesn't match any resource instances because it lacks an instance key.\n\nTo force replacement of the single declared instance, use the following option instead:\n  {}", option(only)),
                several => {
                    let options: String = several.iter().map(|a| format!("\n  {}", option(a))).collect();
                    format!("Your force-replace request for {requested} doesn't match any resource instances because it lacks an instance key.\n\nTo force replacement of particular instances, use one or more of the following options instead:{options}")
                }
            };
            diags.push(Diagnostic::warning(SUMMARY, detail));
        }
    }
    diags
}

/// Terraform's warning that `-target` (or `-exclude`) narrows the plan.
fn targeting_warning(opts: &PlanOptions) -> Option<Diagnostic> {
    let detail = match (opts.targets.is_empty(), opts.excludes.is_empty()) {
        (true, true) => return None,
        (false, true) => format!("You are creating a plan with the -target option, which means that the result of this plan may not represent all of the changes requested by the current configuration.\n\nThe -target option is not for routine use, and is provided only for exceptional situations such as recovering from errors or mistakes, or when {PRODUCT} specifically suggests to use it as part of an error message."),
        _ => format!("You are creating a plan with either the -target option or the -exclude option, which means that the result of this plan may not represent all of the changes requested by the current configuration.\n\nThe -target and -exclude options are not for routine use, and are provided only for exceptional situations such as recovering from errors or mistakes, or when {PRODUCT} specifically suggests to use it as part of an error message."),
    };
    Some(Diagnostic::warning(
        "Resource targeting is in effect",
        detail,
    ))
}

/// What `m` holds, also when a panic (caught by the walk) poisoned it:
/// what was collected before the panic is still reported.
fn take<T: Default>(m: &Mutex<T>) -> T {
    std::mem::take(&mut *m.lock().unwrap_or_else(std::sync::PoisonError::into_inner))
}

/// The resources named in some `replace_triggered_by`, whose changes the
/// walk indexes for the instances that name them.
fn trigger_targets(env: &Env<'_>) -> HashSet<ConfigResource> {
    let mut out = HashSet::new();
    for info in env.model.resources.values() {
        let Some(r) = info.config else { continue };
        for e in &r.triggers_replacement {
            for reference in graph::expr_refs(e) {
                if let Subject::Resource(res) | Subject::ResourceInstance { resource: res, .. } =
                    &reference.subject
                {
                    out.insert(
                        terrace_addrs::Resource::new(
                            model::addr_mode(res.mode),
                            res.type_name.as_str(),
                            res.name.as_str(),
                        )
                        .in_module(info.addr.module.clone()),
                    );
                }
            }
        }
    }
    out
}

fn output_changes(env: &Env<'_>, prior: &State, mode: PlanMode) -> Vec<OutputChange> {
    let mut out = Vec::new();
    let root = ModuleInstance::root();
    let outputs = &env.ctx.config.module.outputs;
    for (name, prev) in &prior.outputs {
        if mode == PlanMode::Destroy || !outputs.contains_key(name) {
            let before = if prev.sensitive {
                prev.value.clone().mark(Marks::SENSITIVE)
            } else {
                prev.value.clone()
            };
            out.push(OutputChange {
                name: name.clone(),
                action: Action::Delete,
                before,
                after: Value::null(terrace_value::Type::Dynamic),
                sensitive: prev.sensitive,
            });
        }
    }
    if mode == PlanMode::Destroy {
        return out;
    }
    for (name, decl) in outputs {
        // An output the walk never reached (what it refers to failed) has
        // no planned change, as in terraform: it is neither shown nor
        // counted when the plan's outputs are laid out.
        let Some(after) = env.values.output(&root, name) else {
            continue;
        };
        let prev = prior.outputs.get(name);
        let before = match prev {
            Some(prev) if prev.sensitive => prev.value.clone().mark(Marks::SENSITIVE),
            Some(prev) => prev.value.clone(),
            None => Value::null(terrace_value::Type::Dynamic),
        };
        // As Terraform: null before and after is no change whatever the
        // sensitivity; otherwise an output the state lacks is created, and
        // an equal known value with the same sensitivity is unchanged.
        let action = match prev {
            _ if after.is_null() && before.is_null() => Action::NoOp,
            None => Action::Create,
            Some(prev)
                if after.is_wholly_known()
                    && after.unmark_deep().0.raw_equals(&prev.value)
                    && prev.sensitive == decl.sensitive =>
            {
                Action::NoOp
            }
            Some(_) => Action::Update,
        };
        out.push(OutputChange {
            name: name.clone(),
            action,
            before,
            after,
            sensitive: decl.sensitive || prev.is_some_and(|p| p.sensitive),
        });
    }
    out
}

/// The outputs of every called module instance that the plan evaluated
/// to something other than null.
fn module_output_values(env: &Env<'_>) -> Vec<(ModuleInstance, String)> {
    let mut out = Vec::new();
    env.ctx.config.deep_each(&mut |c| {
        if c.path.is_empty() {
            return;
        }
        let module = model::module_path(c);
        for inst in env.values.module_instances(&module).iter() {
            for name in c.module.outputs.keys() {
                if env.values.output(inst, name).is_some_and(|v| !v.is_null()) {
                    out.push((inst.clone(), name.clone()));
                }
            }
        }
    });
    out
}

/// The root outputs as the plan evaluated them, recorded into the state it
/// applies to, as Terraform records them: a null output is removed, a
/// wholly known one replaces the previous value, and one not known yet
/// (even in part) leaves the previous value as it was.
fn planned_outputs_into(env: &Env<'_>, state: &mut State, covered: impl Fn(&str) -> bool) {
    let root = ModuleInstance::root();
    for (name, decl) in &env.ctx.config.module.outputs {
        if !covered(name) {
            continue;
        }
        let Some(value) = env.values.output(&root, name) else {
            continue;
        };
        let (plain, marks) = value.unmark_deep();
        if plain.is_null() {
            state.set_output(name.clone(), None);
        } else if plain.is_wholly_known() {
            state.set_output(
                name.clone(),
                Some(terrace_states::model::OutputState {
                    value: plain,
                    sensitive: decl.sensitive || marks.is_sensitive(),
                }),
            );
        }
    }
}

fn change(
    addr: &AbsResourceInstance,
    deposed: Option<DeposedKey>,
    provider: AbsProviderInstance,
    action: Action,
    before: Value,
    after: Value,
    schema_version: i64,
) -> ResourceInstanceChange {
    ResourceInstanceChange {
        addr: addr.clone(),
        prev_run_addr: addr.clone(),
        deposed,
        provider,
        action,
        action_reason: ActionReason::None,
        before,
        after,
        required_replace: Vec::new(),
        private: Vec::new(),
        importing: None,
        generated_config: None,
        schema_version: schema_version.max(0) as u64,
    }
}

impl<'e, 'a> PlanWalker<'e, 'a> {
    fn report(&self, d: Diagnostics) {
        if d.is_empty() {
            return;
        }
        if let Ok(mut g) = self.diags.lock() {
            g.extend(d);
        }
    }

    fn record(&self, c: ResourceInstanceChange) {
        tracing::debug!(
            address = %c.addr,
            action = ?c.action,
            provider = %c.provider,
            "planned change"
        );
        if c.deposed.is_none() && self.trigger_targets.contains(&c.addr.config_resource()) {
            self.triggers.record(
                c.addr.containing_resource(),
                c.addr.resource.key.clone(),
                c.action,
                &c.before,
                &c.after,
            );
        }
        if c.action != Action::NoOp {
            if let Ok(mut p) = self.pending.lock() {
                p.entry(c.addr.config_resource())
                    .or_default()
                    .insert(c.addr.module.clone());
            }
        }
        if let Ok(mut g) = self.changes.lock() {
            g.push(c);
        }
    }

    fn refreshed(&self, r: Refreshed) {
        if let Ok(mut g) = self.refreshed.lock() {
            g.push(r);
        }
    }

    fn targeted(&self, addr: &AbsResourceInstance) -> bool {
        self.targeting.instance(addr)
    }

    /// A `removed` block with `destroy = false` covers the instance.
    fn forget(&self, addr: &AbsResourceInstance) -> bool {
        let cr = addr.config_resource();
        self.removed.iter().any(|(ep, destroy)| {
            !destroy
                && match ep {
                    RemoveEndpoint::Resource(r) => *r == cr,
                    RemoveEndpoint::Module(m) => cr.module.names().starts_with(m.names()),
                }
        })
    }

    fn visit_provider(&'e self, addr: &'e AbsProviderConfig) -> Visit<'e> {
        let Some(p) = self.env.model.providers.get(addr) else {
            return Visit::Done(true);
        };
        if p.schema.is_none() {
            return Visit::Done(false);
        }
        visit_provider_instances(self.env, &self.instances, p, &self.diags)
    }

    fn visit_resource(&'e self, addr: &'e ConfigResource) -> Visit<'e> {
        let Some(info) = self.env.model.resources.get(addr) else {
            return Visit::Done(true);
        };
        let acc: Arc<InstanceValues> = Arc::new(Mutex::new(HashMap::new()));
        let mut jobs: Vec<Job<'e>> = Vec::new();
        let state_res: &'e [(&'e AbsResource, &'e ResourceState)] =
            self.by_config.get(addr).map(Vec::as_slice).unwrap_or(&[]);
        let mut ok = true;
        let mut expansion: ResourceExpansion = Vec::new();
        let destroying = self.opts.mode == PlanMode::Destroy;

        match info.config {
            Some(r) if !destroying => {
                let (exp, d) = expand_resource(self.env, info);
                if has_errors(&d) && self.instances.is_deferred(&info.provider) {
                    // Its instances cannot be told yet either (commonly
                    // the same not-yet-known value as the provider's
                    // `for_each`): the whole resource waits for the next
                    // run, unknown to what refers to it meanwhile.
                    for mi in self.env.values.module_instances(&addr.module).iter() {
                        let whole = addr
                            .resource
                            .absolute(mi.clone())
                            .instance(InstanceKey::None);
                        self.instances.deferred_resource(&whole);
                        self.env
                            .values
                            .set_resource(mi, &info.local_key(), Value::dynamic());
                    }
                    return Visit::Done(true);
                }
                if has_errors(&d) {
                    ok = false;
                } else {
                    crate::common::report_resource_objects(self.env, info, &exp);
                    self.report(incompletely_matched_force_replace(
                        addr,
                        &exp,
                        &self.opts.force_replace,
                    ));
                }
                self.report(d);
                expansion = exp;
                let imports = Arc::new(self.import_targets(addr));
                let live: HashSet<ModuleInstance> = self
                    .env
                    .values
                    .module_instances(&addr.module)
                    .iter()
                    .cloned()
                    .collect();
                for (mi, kind, keys) in &expansion {
                    let abs = addr.resource.absolute(mi.clone());
                    let rs: Option<&'e ResourceState> = self.prior.resources.get(&abs);
                    let declared: HashSet<&InstanceKey> = keys.iter().map(|(k, _)| k).collect();
                    for (key, rep) in keys {
                        let iaddr = abs.instance(key.clone());
                        let rep = rep.clone();
                        let acc = acc.clone();
                        let imports = imports.clone();
                        jobs.push(Box::new(move || {
                            let import = imports.get(&iaddr).cloned();
                            self.plan_instance(info, r, iaddr, rep, rs, import, &acc)
                        }));
                    }
                    if let Some(rs) = rs {
                        for (k, is) in &rs.instances {
                            if declared.contains(k) {
                                continue;
                            }
                            let reason = match (kind, k) {
                                (EachKind::Count, InstanceKey::Int(_)) => {
                                    ActionReason::DeleteBecauseCountIndex
                                }
                                (EachKind::ForEach, InstanceKey::String(_)) => {
                                    ActionReason::DeleteBecauseEachKey
                                }
                                _ => ActionReason::DeleteBecauseWrongRepetition,
                            };
                            let iaddr = abs.instance(k.clone());
                            jobs.push(Box::new(move || {
                                self.plan_orphan(info, iaddr, rs, is, reason, None)
                            }));
                        }
                    }
                }
                for (abs, rs) in state_res {
                    if live.contains(&abs.module) {
                        continue;
                    }
                    for (k, is) in &rs.instances {
                        let iaddr = abs.instance(k.clone());
                        let reason = ActionReason::DeleteBecauseNoModule;
                        jobs.push(Box::new(move || {
                            self.plan_orphan(info, iaddr, rs, is, reason, None)
                        }));
                    }
                }
            }
            _ => {
                if destroying && info.config.is_some() {
                    // References (provider configurations, outputs) still
                    // see the prior objects while destroying.
                    let (exp, _) = expand_resource(self.env, info);
                    expansion = exp;
                }
                for (abs, rs) in state_res {
                    for (k, is) in &rs.instances {
                        let iaddr = abs.instance(k.clone());
                        let reason = if destroying {
                            ActionReason::None
                        } else {
                            ActionReason::DeleteBecauseNoResourceConfig
                        };
                        let acc = acc.clone();
                        jobs.push(Box::new(move || {
                            self.plan_orphan(info, iaddr, rs, is, reason, Some(&acc))
                        }));
                    }
                }
            }
        }
        let finish: Job<'e> = Box::new(move || {
            let values = acc
                .lock()
                .map(|mut g| std::mem::take(&mut *g))
                .unwrap_or_default();
            set_aggregates(self.env, info, &expansion, &values);
            ok
        });
        Visit::Fanout { jobs, finish }
    }

    fn provider_for(
        &self,
        info: &ResourceInfo<'_>,
        addr: &AbsResourceInstance,
        rep: &Repetition,
    ) -> Result<(AbsProviderInstance, Arc<dyn Provider>), Diagnostics> {
        let key = instance_key_for(self.env, info, addr, rep)?;
        let pinst = info.provider.instance(key.clone());
        match self.instances.get(&pinst) {
            Some(p) => Ok((pinst, self.env.ctx.providers.for_resource(addr, p))),
            None => Err(vec![instance_not_present(addr, None, &info.provider, &key)]),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn plan_instance(
        &self,
        info: &ResourceInfo<'_>,
        r: &Resource,
        addr: AbsResourceInstance,
        rep: Repetition,
        rs: Option<&ResourceState>,
        import: Option<ImportTarget>,
        acc: &InstanceValues,
    ) -> bool {
        let is = rs.and_then(|rs| rs.instances.get(&addr.resource.key).map(|is| &**is));
        if import.is_some() {
            if let Ok(mut u) = self.imports_used.lock() {
                u.insert(addr.clone());
            }
        }
        if !self.targeted(&addr) {
            if let Some(obj) = is.and_then(|i| i.current.as_ref()) {
                store(acc, &addr, decode_object(info, obj));
            }
            return true;
        }
        if self.instances.is_deferred(&info.provider) {
            // Its provider configuration's instances are not known until
            // apply: planned on the next run, as it stands meanwhile.
            self.instances.deferred_resource(&addr);
            let value = match is.and_then(|i| i.current.as_ref()) {
                Some(obj) => decode_object(info, obj),
                None => Value::unknown(info.ty.clone()),
            };
            store(acc, &addr, value);
            return true;
        }
        if let Ok(key) = instance_key_for(self.env, info, &addr, &rep) {
            let pinst = info.provider.instance(key);
            if self.instances.is_unavailable(&pinst) {
                // Left out, as it was: what refers to it sees the stored
                // object, or a value not known yet.
                self.instances.left_out(&addr, &pinst, "planned");
                let value = match is.and_then(|i| i.current.as_ref()) {
                    Some(obj) => decode_object(info, obj),
                    None => Value::unknown(info.ty.clone()),
                };
                store(acc, &addr, value);
                return true;
            }
        }
        let (pinst, provider) = match self.provider_for(info, &addr, &rep) {
            Ok(x) => x,
            Err(d) => {
                self.report(d);
                return false;
            }
        };
        let mut ok = true;
        if let (Some(is), Some(rs)) = (is, rs) {
            for (dk, obj) in &is.deposed {
                ok &= self.plan_deposed(info, &addr, rs, is, dk, obj);
            }
        }
        let result = match addr.resource.resource.mode {
            ResourceMode::Data => self.plan_data(info, r, &addr, &rep, pinst, provider.as_ref()),
            ResourceMode::Ephemeral => crate::ephemeral::open_instance(
                self.env,
                info,
                r,
                &addr,
                &rep,
                provider,
                self.hooks,
                &self.ephemerals,
            )
            .map(|(value, warnings)| {
                self.report(warnings);
                Some(value)
            }),
            _ => self.plan_managed(
                info,
                r,
                &addr,
                &rep,
                is,
                import.as_ref(),
                pinst,
                provider.as_ref(),
            ),
        };
        match result {
            Ok(Some(v)) => {
                store(acc, &addr, v);
                ok
            }
            Ok(None) => ok,
            Err(d) => {
                self.report(d);
                false
            }
        }
    }

    /// Upgrades and (unless `-refresh=false`) refreshes the current object
    /// or, with `deposed`, a deposed one; `None` when it no longer exists.
    /// Only the current object's changes are reported as drift.
    fn refresh(
        &self,
        info: &ResourceInfo<'_>,
        addr: &AbsResourceInstance,
        deposed: Option<&DeposedKey>,
        obj: &ObjectState,
        pinst: &AbsProviderInstance,
        provider: &dyn Provider,
    ) -> Result<Option<Value>, Diagnostics> {
        let upgraded = upgrade_object(provider, info, addr, obj)?;
        // A current object takes its resource's create_before_destroy as
        // the configuration has it now, as terraform's refreshed state does
        // (a refresh-only apply writes it).
        let create_before_destroy = match (deposed, info.config) {
            (None, Some(_)) if addr.resource.resource.mode == ResourceMode::Managed => {
                self.graph.cbd.contains(&info.addr)
            }
            _ => obj.create_before_destroy,
        };
        if !self.opts.refresh || addr.resource.resource.mode == ResourceMode::Data {
            if create_before_destroy != obj.create_before_destroy {
                let mut o = obj.clone();
                o.create_before_destroy = create_before_destroy;
                self.refreshed(Refreshed {
                    addr: addr.clone(),
                    deposed: None,
                    provider: pinst.config.clone(),
                    key: pinst.key.clone(),
                    object: Some(o),
                });
            }
            return Ok(Some(upgraded));
        }
        let Some(schema) = &info.schema else {
            return Ok(Some(upgraded));
        };
        self.hooks
            .refreshing(addr, deposed, value_id(&upgraded).as_deref());
        let (plain, marks) = unmark(&upgraded);
        let resp = provider.read_resource(ReadResourceRequest {
            type_name: addr.resource.resource.type_name.to_string(),
            prior_state: plain.clone(),
            private: obj.private.clone().unwrap_or_default(),
            provider_meta: None,
            client_capabilities: ClientCapabilities::default(),
        });
        let diags = instance_diags(resp.diagnostics, info, addr);
        let failed = has_errors(&diags);
        self.hooks.refreshed(addr, !failed);
        if failed {
            return Err(diags);
        }
        self.report(diags);
        let new = typed(resp.new_state, &info.ty);
        if new.is_null() {
            if deposed.is_none() {
                self.push_drift(change(
                    addr,
                    None,
                    pinst.clone(),
                    Action::Delete,
                    upgraded,
                    Value::null(info.ty.clone()),
                    schema.version,
                ));
            }
            self.refreshed(Refreshed {
                addr: addr.clone(),
                deposed: deposed.cloned(),
                provider: pinst.config.clone(),
                key: pinst.key.clone(),
                object: None,
            });
            return Ok(None);
        }
        let marked = mark_schema_sensitive(&schema.block, &apply_mark_paths(&new, &marks));
        let changed = !new.raw_equals(&plain);
        if changed && deposed.is_none() {
            self.push_drift(change(
                addr,
                None,
                pinst.clone(),
                Action::Update,
                upgraded,
                marked.clone(),
                schema.version,
            ));
        }
        if changed
            || obj.schema_version != schema.version.max(0) as u64
            || resp.private != obj.private.clone().unwrap_or_default()
            || create_before_destroy != obj.create_before_destroy
        {
            let mut o = encode_object(&marked, &info.ty, schema.version)?;
            o.private = (!resp.private.is_empty()).then_some(resp.private);
            o.status = obj.status;
            o.dependencies = obj.dependencies.clone();
            o.create_before_destroy = create_before_destroy;
            self.refreshed(Refreshed {
                addr: addr.clone(),
                deposed: deposed.cloned(),
                provider: pinst.config.clone(),
                key: pinst.key.clone(),
                object: Some(o),
            });
        }
        Ok(Some(marked))
    }

    /// The targets of import blocks (and of `terrace import`) naming
    /// `resource`, evaluated once for all its instances.
    fn import_targets(
        &self,
        resource: &ConfigResource,
    ) -> HashMap<AbsResourceInstance, ImportTarget> {
        if resource.resource.mode != ResourceMode::Managed {
            return HashMap::new();
        }
        let (mut targets, d) = imports::targets_for(self.env, resource);
        self.report(d);
        for t in &self.extra_imports {
            if &t.addr.config_resource() == resource {
                targets.insert(t.addr.clone(), t.clone());
            }
        }
        if let Ok(mut seen) = self.imports_seen.lock() {
            seen.extend(targets.values().cloned());
        }
        targets
    }

    /// ImportResourceState and ReadResource for one import target: the
    /// object and its private data.
    fn import_object(
        &self,
        info: &ResourceInfo<'_>,
        addr: &AbsResourceInstance,
        id: &str,
        provider: &dyn Provider,
    ) -> Result<(Value, Vec<u8>), Diagnostics> {
        let type_name = addr.resource.resource.type_name.to_string();
        self.hooks.importing(addr, id);
        let resp = provider.import_resource_state(terrace_providers::ImportResourceStateRequest {
            type_name: type_name.clone(),
            id: id.to_string(),
            client_capabilities: ClientCapabilities::default(),
        });
        let mut diags = convert_diags(resp.diagnostics, None);
        if has_errors(&diags) {
            return Err(diags);
        }
        let Some(imported) = resp
            .imported_resources
            .into_iter()
            .find(|r| r.type_name == type_name)
        else {
            diags.push(Diagnostic::error(
                "Import returned no resources",
                format!("While attempting to import with ID {id}, the provider returned no instance states."),
            ));
            return Err(diags);
        };
        let state = typed(imported.state, &info.ty);
        self.hooks.refreshing(addr, None, Some(id));
        let resp = provider.read_resource(ReadResourceRequest {
            type_name,
            prior_state: state,
            private: imported.private,
            provider_meta: None,
            client_capabilities: ClientCapabilities::default(),
        });
        diags.extend(instance_diags(resp.diagnostics, info, addr));
        let failed = has_errors(&diags);
        self.hooks.refreshed(addr, !failed);
        if failed {
            return Err(diags);
        }
        let new = typed(resp.new_state, &info.ty);
        if new.is_null() {
            diags.push(Diagnostic::error(
                "Cannot import non-existent remote object",
                format!("While attempting to import an existing object to {addr:?}, the provider detected that no object exists with the given id. Only pre-existing objects can be imported; check that the id is correct and that it is associated with the provider's configured region or endpoint, or use \"{PRODUCT} apply\" to create a new remote object for this resource.", addr = addr.to_string()),
            ));
            return Err(diags);
        }
        self.report(diags);
        let marked = match &info.schema {
            Some(s) => mark_schema_sensitive(&s.block, &new),
            None => new,
        };
        Ok((marked, resp.private))
    }

    fn push_drift(&self, c: ResourceInstanceChange) {
        if let Ok(mut g) = self.drift.lock() {
            g.push(c);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn plan_managed(
        &self,
        info: &ResourceInfo<'_>,
        r: &Resource,
        addr: &AbsResourceInstance,
        rep: &Repetition,
        is: Option<&InstanceState>,
        import: Option<&ImportTarget>,
        pinst: AbsProviderInstance,
        provider: &dyn Provider,
    ) -> Result<Option<Value>, Diagnostics> {
        let Some(schema) = &info.schema else {
            return Ok(None);
        };
        let Some(cfg_module) = info.module else {
            return Ok(None);
        };
        let cur = is.and_then(|i| i.current.as_ref());
        let mut importing: Option<(String, Vec<u8>)> = None;
        let prior = match (cur, import) {
            (Some(obj), _) => self.refresh(info, addr, None, obj, &pinst, provider)?,
            (None, Some(t)) => {
                let (v, private) = self.import_object(info, addr, &t.id, provider)?;
                importing = Some((t.id.clone(), private));
                Some(v)
            }
            (None, None) => None,
        };
        if self.opts.mode == PlanMode::RefreshOnly {
            // Nothing is planned, but the conditions are still checked
            // against what the refresh found (as warnings), so that
            // drift which breaks them is seen.
            let mut warnings = Diagnostics::new();
            let mut scope = self.env.scope(cfg_module, addr.module.clone(), rep.clone());
            check_resource_rules(self.env, &scope, addr, false, &mut warnings);
            if let Some(refreshed) = &prior {
                scope.self_value = Some(refreshed.clone());
                check_resource_rules(self.env, &scope, addr, true, &mut warnings);
            }
            self.report(warnings);
            // An object not created yet is not known, of its type, to
            // what refers to it.
            return Ok(Some(
                prior.unwrap_or_else(|| Value::unknown(info.ty.clone())),
            ));
        }
        // A resource standing for generated configuration gets its body
        // from the object just imported, and is planned with it.
        let generated_resource;
        let mut generated_config = None;
        let r = match (&prior, &importing) {
            (Some(object), Some(_)) if r.generated_for_import => {
                let (resource, text) = generate_config(r, addr, &schema.block, object)?;
                generated_resource = resource;
                generated_config = Some(text);
                &generated_resource
            }
            _ => r,
        };
        let mut diags = Diagnostics::new();
        let mut scope = self.env.scope(cfg_module, addr.module.clone(), rep.clone());
        check_resource_rules(self.env, &scope, addr, false, &mut diags);
        let (config, d) = crate::common::decode_resource_config(info, r, &schema.block, &scope);
        diags.extend(d);
        if has_errors(&diags) {
            return Err(diags);
        }
        let addr_text = addr.to_string();
        diags.extend(crate::common::ephemeral_values_persisted(
            &config,
            &schema.block,
            InBody::new(&r.config, &addr_text, &info.provider.provider),
        ));
        if has_errors(&diags) {
            return Err(diags);
        }
        let (cfg_plain, cfg_marks) = unmark(&config);
        let null = Value::null(info.ty.clone());
        let prior_plain = prior
            .as_ref()
            .map(|p| unmark(p).0)
            .unwrap_or_else(|| null.clone());
        let managed = r.managed.clone().unwrap_or_default();
        let cfg_plain = if prior.is_some() {
            if managed.ignore_all_changes {
                ignore_all(&schema.block, &cfg_plain, &prior_plain)
            } else if managed.ignore_changes.is_empty() {
                cfg_plain
            } else {
                let paths: Vec<_> = managed.ignore_changes.iter().map(traversal_path).collect();
                ignore_changes(&cfg_plain, &prior_plain, &paths)
            }
        } else {
            cfg_plain
        };
        let private = match &importing {
            Some((_, p)) => p.clone(),
            None => cur.and_then(|o| o.private.clone()).unwrap_or_default(),
        };
        let provider_name = info.provider.provider.to_string();
        let addr_s = addr.to_string();
        let plan_once = |prior_v: &Value,
                         private: Vec<u8>|
         -> Result<
            (Value, Vec<terrace_providers::AttributePath>, Vec<u8>),
            Diagnostics,
        > {
            let proposed = proposed_new(&schema.block, prior_v, &cfg_plain);
            let resp = provider.plan_resource_change(PlanResourceChangeRequest {
                type_name: addr.resource.resource.type_name.to_string(),
                prior_state: prior_v.clone(),
                proposed_new_state: proposed,
                config: cfg_plain.clone(),
                prior_private: private,
                provider_meta: None,
                client_capabilities: ClientCapabilities::default(),
            });
            let mut diags = convert_diags(
                resp.diagnostics,
                Some(InBody::new(&r.config, &addr_s, &info.provider.provider)),
            );
            if has_errors(&diags) {
                return Err(diags);
            }
            let planned = typed(resp.planned_state, &info.ty);
            let check = check_planned_state(
                &schema.block,
                prior_v,
                &cfg_plain,
                &planned,
                resp.legacy_type_system,
                &provider_name,
                &addr_s,
            );
            diags.extend(convert_diags(check.diagnostics, None));
            if has_errors(&diags) {
                return Err(diags);
            }
            self.report(diags);
            Ok((planned, resp.requires_replace, resp.planned_private))
        };
        let (mut planned, requires_replace, mut planned_private) =
            plan_once(&prior_plain, private)?;
        // As OpenTofu: a create has nothing to replace, and of the paths
        // the provider names only those whose value changes force a
        // replacement (and are shown as "# forces replacement").
        let requires_replace: Vec<_> = if prior.is_none() {
            Vec::new()
        } else {
            requires_replace
                .into_iter()
                .filter(
                    |p| match (value_at(&prior_plain, p), value_at(&planned, p)) {
                        (Some(a), Some(b)) => !b.is_wholly_known() || !a.raw_equals(&b),
                        _ => true,
                    },
                )
                .collect()
        };
        let triggered = !r.triggers_replacement.is_empty() && {
            let declared = |t: &str, n: &str| {
                cfg_module
                    .module
                    .managed_resources
                    .contains_key(&format!("{t}.{n}"))
            };
            replace_triggered(
                &self.triggers,
                &r.triggers_replacement,
                &addr.module,
                rep,
                &declared,
            )?
        };

        let tainted = cur.is_some_and(|o| o.status == ObjectStatus::Tainted);
        let (mut action, reason) = if prior.is_none() {
            (Action::Create, ActionReason::None)
        } else if tainted {
            (
                Action::DeleteThenCreate,
                ActionReason::ReplaceBecauseTainted,
            )
        } else if self.opts.force_replace.contains(addr) {
            (Action::DeleteThenCreate, ActionReason::ReplaceByRequest)
        } else if triggered {
            (Action::DeleteThenCreate, ActionReason::ReplaceByTriggers)
        } else if planned.raw_equals(&prior_plain) {
            (Action::NoOp, ActionReason::None)
        } else if !requires_replace.is_empty() {
            (
                Action::DeleteThenCreate,
                ActionReason::ReplaceBecauseCannotUpdate,
            )
        } else {
            (Action::Update, ActionReason::None)
        };
        if action == Action::DeleteThenCreate {
            if self.graph.cbd.contains(&info.addr) {
                action = Action::CreateThenDelete;
            }
            let (p, _, pp) = plan_once(&null, Vec::new())?;
            planned = p;
            planned_private = pp;
        }
        let after = apply_mark_paths(&mark_schema_sensitive(&schema.block, &planned), &cfg_marks);
        if !r.postconditions.is_empty() {
            scope.self_value = Some(after.clone());
            check_resource_rules(self.env, &scope, addr, true, &mut diags);
            if has_errors(&diags) {
                return Err(diags);
            }
        }
        self.report(diags);
        let mut c = change(
            addr,
            None,
            pinst,
            action,
            prior.unwrap_or(null),
            after.clone(),
            schema.version,
        );
        c.action_reason = reason;
        c.required_replace = requires_replace;
        c.private = planned_private;
        c.importing = importing.map(|(id, _)| id);
        c.generated_config = generated_config;
        self.record(c);
        // As terraform: the replacement is in the plan shown, and then
        // refused.
        if matches!(action, Action::DeleteThenCreate | Action::CreateThenDelete) {
            let mut refused = Diagnostics::new();
            check_prevent_destroy(r, addr, &mut refused);
            if has_errors(&refused) {
                return Err(refused);
            }
        }
        Ok(Some(after))
    }

    /// Whether something the data resource instance `addr` waits on has a
    /// change planned. Changes in other instances of the data resource's
    /// own module do not count: its references reach only its own
    /// instance.
    fn dependencies_pending(&self, addr: &AbsResourceInstance) -> bool {
        let Some(deps) = self.graph.data_read_deps.get(&addr.config_resource()) else {
            return false;
        };
        let Ok(pending) = self.pending.lock() else {
            return false;
        };
        let own_module = addr.module.module();
        deps.iter().any(|d| {
            pending.get(d).is_some_and(|instances| {
                instances
                    .iter()
                    .any(|mi| mi == &addr.module || mi.module() != own_module)
            })
        })
    }

    fn plan_data(
        &self,
        info: &ResourceInfo<'_>,
        r: &Resource,
        addr: &AbsResourceInstance,
        rep: &Repetition,
        pinst: AbsProviderInstance,
        provider: &dyn Provider,
    ) -> Result<Option<Value>, Diagnostics> {
        let Some(schema) = &info.schema else {
            return Ok(None);
        };
        let Some(cfg_module) = info.module else {
            return Ok(None);
        };
        let mut diags = Diagnostics::new();
        let mut scope = self.env.scope(cfg_module, addr.module.clone(), rep.clone());
        check_resource_rules(self.env, &scope, addr, false, &mut diags);
        let (config, d) = crate::common::decode_resource_config(info, r, &schema.block, &scope);
        diags.extend(d);
        if has_errors(&diags) {
            return Err(diags);
        }
        let addr_text = addr.to_string();
        diags.extend(crate::common::ephemeral_values_persisted(
            &config,
            &schema.block,
            InBody::new(&r.config, &addr_text, &info.provider.provider),
        ));
        if has_errors(&diags) {
            return Err(diags);
        }
        let (cfg_plain, cfg_marks) = unmark(&config);
        let config_known = cfg_plain.is_wholly_known();
        let pending = self.dependencies_pending(addr);
        if !config_known || pending {
            let unknown = planned_unknown_object(&schema.block, &cfg_plain);
            let after =
                apply_mark_paths(&mark_schema_sensitive(&schema.block, &unknown), &cfg_marks);
            let mut c = change(
                addr,
                None,
                pinst.clone(),
                Action::Read,
                Value::null(info.ty.clone()),
                after.clone(),
                schema.version,
            );
            // An unknown configuration is the more specific reason.
            c.action_reason = if config_known {
                ActionReason::ReadBecauseDependencyPending
            } else {
                ActionReason::ReadBecauseConfigUnknown
            };
            self.report(diags);
            // A refresh-only plan plans no reads.
            if self.opts.mode != PlanMode::RefreshOnly {
                self.record(c);
            }
            // The previous result is no longer current: the state the plan
            // applies to holds no object until the read during apply.
            self.refreshed(Refreshed {
                addr: addr.clone(),
                deposed: None,
                provider: pinst.config.clone(),
                key: pinst.key.clone(),
                object: None,
            });
            return Ok(Some(after));
        }
        let start = Instant::now();
        self.hooks.apply_started(addr, None, Action::Read, None);
        let cfg_plain_for_check = cfg_plain.clone();
        let resp = provider.read_data_source(ReadDataSourceRequest {
            type_name: addr.resource.resource.type_name.to_string(),
            config: cfg_plain,
            provider_meta: None,
            client_capabilities: ClientCapabilities::default(),
        });
        let address = addr.to_string();
        diags.extend(convert_diags(
            resp.diagnostics,
            Some(InBody::new(&r.config, &address, &info.provider.provider)),
        ));
        let value = typed(resp.state, &info.ty);
        if !has_errors(&diags) && value.is_null() {
            diags.push(Diagnostic::error(
                "Provider produced null object",
                format!("Provider {:?} produced a null value for {addr}.\n\nThis is a bug in the provider, which should be reported in the provider's own issue tracker.", info.provider.provider.to_string()),
            ));
        }
        let failed = has_errors(&diags);
        let marked = apply_mark_paths(&mark_schema_sensitive(&schema.block, &value), &cfg_marks);
        self.hooks.apply_finished(
            addr,
            None,
            Action::Read,
            value_id(&marked).as_deref(),
            start.elapsed(),
            !failed,
        );
        if let Some(check) = check_container(cfg_module, r) {
            // A check's data source never fails the plan: its problems are
            // warnings, the check is marked failed, and it is read again
            // during apply.
            crate::common::report_check_data_source(
                self.env,
                &addr.module,
                check,
                failed.then_some(&diags),
            );
            let after = if failed {
                self.env.values.fail_check(&addr.module, check);
                let unknown = planned_unknown_object(&schema.block, &cfg_plain_for_check);
                apply_mark_paths(&mark_schema_sensitive(&schema.block, &unknown), &cfg_marks)
            } else {
                let obj = encode_object(&marked, &info.ty, schema.version)?;
                self.refreshed(Refreshed {
                    addr: addr.clone(),
                    deposed: None,
                    provider: pinst.config.clone(),
                    key: pinst.key.clone(),
                    object: Some(obj),
                });
                marked
            };
            self.report(as_warnings(diags));
            if self.opts.mode != PlanMode::RefreshOnly {
                let mut c = change(
                    addr,
                    None,
                    pinst,
                    Action::Read,
                    Value::null(info.ty.clone()),
                    after.clone(),
                    schema.version,
                );
                c.action_reason = ActionReason::ReadBecauseCheckNested;
                self.record(c);
            }
            return Ok(Some(after));
        }
        if failed {
            return Err(diags);
        }
        if !r.postconditions.is_empty() {
            scope.self_value = Some(marked.clone());
            check_resource_rules(self.env, &scope, addr, true, &mut diags);
            if has_errors(&diags) {
                return Err(diags);
            }
        }
        self.report(diags);
        let obj = encode_object(&marked, &info.ty, schema.version)?;
        self.refreshed(Refreshed {
            addr: addr.clone(),
            deposed: None,
            provider: pinst.config.clone(),
            key: pinst.key.clone(),
            object: Some(obj),
        });
        Ok(Some(marked))
    }

    fn plan_deposed(
        &self,
        info: &ResourceInfo<'_>,
        addr: &AbsResourceInstance,
        rs: &ResourceState,
        is: &InstanceState,
        dk: &DeposedKey,
        obj: &ObjectState,
    ) -> bool {
        let pinst = rs.provider.instance(is.provider_key.clone());
        if self.instances.is_unavailable(&pinst) {
            self.instances.left_out(addr, &pinst, "planned");
            return true;
        }
        let Some(provider) = self.instances.get(&pinst) else {
            self.report(vec![instance_not_present(
                addr,
                Some(dk),
                &rs.provider,
                &is.provider_key,
            )]);
            return false;
        };
        let provider = self.env.ctx.providers.for_resource(addr, provider);
        // Refreshed even though it is to be destroyed: an object already
        // deleted elsewhere is dropped, not handed to the provider's delete.
        let before = match self.refresh(info, addr, Some(dk), obj, &pinst, provider.as_ref()) {
            Ok(Some(v)) => v,
            Ok(None) => return true,
            Err(d) => {
                self.report(d);
                return false;
            }
        };
        if self.opts.mode == PlanMode::RefreshOnly {
            return true;
        }
        let version = info.schema.as_ref().map(|s| s.version).unwrap_or(0);
        self.record(change(
            addr,
            Some(dk.clone()),
            pinst,
            Action::Delete,
            before,
            Value::null(info.ty.clone()),
            version,
        ));
        true
    }

    /// An instance that is to go: not declared any more, or everything in
    /// destroy mode. Data sources are just dropped from the state.
    fn plan_orphan(
        &self,
        info: &ResourceInfo<'_>,
        addr: AbsResourceInstance,
        rs: &ResourceState,
        is: &InstanceState,
        reason: ActionReason,
        acc: Option<&InstanceValues>,
    ) -> bool {
        if addr.resource.resource.mode == ResourceMode::Data {
            if let (Some(acc), Some(obj)) = (acc, is.current.as_ref()) {
                store(acc, &addr, decode_object(info, obj));
            }
            if self.opts.mode != PlanMode::RefreshOnly {
                self.refreshed(Refreshed {
                    addr: addr.clone(),
                    deposed: None,
                    provider: rs.provider.clone(),
                    key: is.provider_key.clone(),
                    object: None,
                });
            }
            return true;
        }
        if !self.targeted(&addr) || self.instances.is_deferred(&rs.provider) {
            if self.instances.is_deferred(&rs.provider) {
                self.instances.deferred_resource(&addr);
            }
            if let (Some(acc), Some(obj)) = (acc, is.current.as_ref()) {
                store(acc, &addr, decode_object(info, obj));
            }
            return true;
        }
        if self.opts.mode == PlanMode::Normal && self.forget(&addr) {
            let version = info.schema.as_ref().map(|s| s.version).unwrap_or(0);
            let pinst = rs.provider.instance(is.provider_key.clone());
            // Deposed objects are forgotten with the current one: none of
            // them is destroyed, none stays in the state.
            // Terraform gives a forgotten object the reason of a deleted
            // one: its configuration is gone.
            let forget = |deposed: Option<DeposedKey>, before: Value| {
                let mut c = change(
                    &addr,
                    deposed,
                    pinst.clone(),
                    Action::Forget,
                    before,
                    Value::null(info.ty.clone()),
                    version,
                );
                c.action_reason = ActionReason::DeleteBecauseNoResourceConfig;
                c
            };
            for (dk, obj) in &is.deposed {
                self.record(forget(Some(dk.clone()), decode_object(info, obj)));
            }
            let Some(obj) = &is.current else { return true };
            let before = decode_object(info, obj);
            if let Some(acc) = acc {
                store(acc, &addr, before.clone());
            }
            self.record(forget(None, before));
            if let Ok(mut f) = self.forgotten.lock() {
                f.push(addr.to_string());
            }
            return true;
        }
        if rs.provider != info.provider {
            self.report(vec![Diagnostic::error(
                "Unable to use fallback provider from state",
                format!("Provider from configuration {} does not match provider from state {} for resource {addr}", info.provider, rs.provider),
            )]);
            return false;
        }
        let pinst = rs.provider.instance(is.provider_key.clone());
        if self.instances.is_unavailable(&pinst) {
            self.instances.left_out(&addr, &pinst, "planned");
            if let (Some(acc), Some(obj)) = (acc, &is.current) {
                store(acc, &addr, decode_object(info, obj));
            }
            return true;
        }
        let Some(provider) = self.instances.get(&pinst) else {
            // Each object reports for itself, as the current object and
            // each deposed one are separate work in OpenTofu.
            let current = (is.current.is_some() || is.deposed.is_empty()).then_some(None);
            let deposed = is.deposed.keys().map(Some);
            self.report(
                current
                    .into_iter()
                    .chain(deposed)
                    .map(|dk| instance_not_present(&addr, dk, &rs.provider, &is.provider_key))
                    .collect(),
            );
            return false;
        };
        let provider = self.env.ctx.providers.for_resource(&addr, provider);
        let mut ok = true;
        for (dk, obj) in &is.deposed {
            ok &= self.plan_deposed(info, &addr, rs, is, dk, obj);
        }
        let Some(obj) = &is.current else { return ok };
        let prior = match self.refresh(info, &addr, None, obj, &pinst, provider.as_ref()) {
            Ok(Some(v)) => v,
            Ok(None) => return ok,
            Err(d) => {
                self.report(d);
                return false;
            }
        };
        if let Some(acc) = acc {
            store(acc, &addr, prior.clone());
        }
        if self.opts.mode == PlanMode::RefreshOnly {
            return ok;
        }
        let version = info.schema.as_ref().map(|s| s.version).unwrap_or(0);
        let mut c = change(
            &addr,
            None,
            pinst,
            Action::Delete,
            prior,
            Value::null(info.ty.clone()),
            version,
        );
        c.action_reason = reason;
        self.record(c);
        // As terraform: the destroy is in the plan shown, and then refused.
        if let Some(r) = info.config {
            let mut diags = Diagnostics::new();
            check_prevent_destroy(r, &addr, &mut diags);
            if has_errors(&diags) {
                self.report(diags);
                return false;
            }
        }
        ok
    }
}

fn store(acc: &InstanceValues, addr: &AbsResourceInstance, v: Value) {
    if let Ok(mut g) = acc.lock() {
        g.entry(addr.module.clone())
            .or_default()
            .insert(addr.resource.key.clone(), v);
    }
}

/// `ignore_changes = all`: every argument the configuration sets keeps its
/// prior value.
fn ignore_all(block: &terrace_providers::Block, config: &Value, prior: &Value) -> Value {
    let Some(attrs) = config.as_attributes() else {
        return config.clone();
    };
    let Some(prior_attrs) = prior.as_attributes() else {
        return config.clone();
    };
    let mut out: BTreeMap<String, Value> = attrs.to_map();
    for (name, v) in out.iter_mut() {
        let keep = block
            .attributes
            .get(name)
            .is_some_and(|a| a.computed && v.is_null());
        if !keep {
            if let Some(p) = prior_attrs.get(name) {
                *v = p.clone();
            }
        }
    }
    Value::object(out)
}

fn check_prevent_destroy(r: &Resource, addr: &AbsResourceInstance, diags: &mut Diagnostics) {
    let Some(e) = r.managed.as_ref().and_then(|m| m.prevent_destroy.as_ref()) else {
        return;
    };
    let (v, d) = e.constant_value();
    if has_errors(&d) {
        diags.extend(d);
        return;
    }
    if v.as_bool() == Some(true) {
        diags.push(
            Diagnostic::error(
                "Instance cannot be destroyed",
                format!("Resource {addr} has lifecycle.prevent_destroy set, but the plan calls for this resource to be destroyed. To avoid this error and continue with the plan, either disable lifecycle.prevent_destroy or reduce the scope of the plan using the -target option."),
            )
            .with_subject(r.decl_range.clone()),
        );
    }
}

impl<'e, 'a> Walker<'e> for PlanWalker<'e, 'a> {
    fn visit(&'e self, node: usize) -> Visit<'e> {
        let (ok, d) = match &self.graph.nodes[node] {
            Node::Variable(m, n) => visit_variable(self.env, m, n),
            Node::Local(m, n) => visit_local(self.env, m, n),
            Node::Output(m, n) => visit_output(self.env, m, n),
            Node::ModuleCall(m, n) => visit_module_call(self.env, m, n),
            Node::Provider(p) => return self.visit_provider(p),
            Node::Resource(r) => return self.visit_resource(r),
            Node::Destroy(_) => (true, Diagnostics::new()),
            Node::EphemeralClose(r) => {
                let d = self.ephemerals.close_resource(r, self.hooks);
                (!has_errors(&d), d)
            }
            Node::Check(m, n) => {
                if self.opts.mode == PlanMode::Destroy {
                    (true, Diagnostics::new())
                } else {
                    crate::common::visit_check(self.env, m, n, crate::common::CheckPhase::Plan)
                }
            }
        };
        self.report(d);
        Visit::Done(ok)
    }

    fn completed(&'e self, node: usize, _ok: bool) -> Vec<Job<'e>> {
        let provider = match &self.graph.nodes[node] {
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
                &info.provider
            }
            Node::Resource(r) => {
                let Some(info) = self.env.model.resources.get(r) else {
                    return Vec::new();
                };
                if let Ok(mut u) = self.provider_users.lock() {
                    if let Some(n) = u.get_mut(&info.provider) {
                        *n = n.saturating_sub(1);
                    }
                }
                &info.provider
            }
            Node::Provider(p) => {
                if let Ok(mut d) = self.providers_done.lock() {
                    d.insert(p.clone());
                }
                p
            }
            _ => return Vec::new(),
        };
        close_when_idle(
            &self.provider_users,
            &self.providers_done,
            &self.instances,
            provider,
        )
    }

    fn stopping(&'e self) -> bool {
        self.hooks.stopping()
    }

    fn stop(&'e self) {
        self.instances.stop_all();
    }
}

/// The configuration generated for an imported object: the resource with
/// the generated body (parsed back, so it is planned exactly as written
/// to the file), and the block's text.
fn generate_config(
    r: &Resource,
    addr: &AbsResourceInstance,
    block: &terrace_providers::schema::Block,
    object: &Value,
) -> Result<(Resource, String), Diagnostics> {
    let implied = r.implied_provider().to_string();
    let provider_ref = r.provider_config_ref.as_ref().and_then(|p| {
        let text = match &p.alias {
            Some(alias) => format!("{}.{alias}", p.name),
            None => p.name.clone(),
        };
        (text != implied).then_some(text)
    });
    let arguments = crate::genconfig::resource_body(block, object, None);
    let text = crate::genconfig::resource_block(
        &addr.resource.resource.type_name,
        &addr.resource.resource.name,
        &crate::genconfig::resource_body(block, object, provider_ref.as_deref()),
    );
    // The arguments alone, as a file of their own, are the resource's body.
    let (file, parse_diags) = terrace_syntax::parse_native_file(
        &format!("generated configuration for {addr}"),
        &arguments,
    );
    if has_errors(&parse_diags) {
        return Err(parse_diags);
    }
    let mut resource = r.clone();
    resource.config = terrace_config::body::Body::from_file(&file);
    Ok((resource, text))
}
