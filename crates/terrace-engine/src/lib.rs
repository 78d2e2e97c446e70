//! terrace-engine: the graph walks behind `validate`, `plan` and `apply`.
//!
//! A configuration becomes a graph with one node per variable, local,
//! output, module call, resource block and provider configuration
//! (`graph`); edges come from the references in every expression, from
//! `depends_on` and from provider bindings. Nodes run on a small worker
//! pool as soon as what they depend on is done (`walk`); a node expands
//! into its instances (module instances, `count`/`for_each` instances)
//! when it runs, and every instance is one job. Values land in maps keyed
//! by address (`values`), so a reference costs one lookup and no node ever
//! copies the state. The CLI supplies providers through
//! [`ProviderFactory`] and watches progress, and journals state, through
//! [`Hooks`].

// Data from users, files, plugins and the network never panics the
// program: no unwrap, expect or panic outside tests.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

mod apply;
mod checks;
mod common;
mod diagvals;
mod ephemeral;

mod expand;
mod functions;
pub use functions::ProviderFunctions;
pub mod genconfig;
mod graph;
mod imports;
mod marks;
mod model;
mod moves;
mod plan;
mod providers;
mod provisioners;
mod relevant;
mod root_eval;
mod scope;
mod targeting;
mod triggers;
mod validate;
mod values;
mod walk;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use terrace_addrs::{AbsProviderConfig, AbsResourceInstance, InstanceKey, Target};
use terrace_config::loader::Config;
use terrace_plans::model::{Action, Plan, PlanMode};
use terrace_providers::ProviderSchema;
use terrace_states::model::{DeposedKey, ObjectState, State};
use terrace_syntax::Diagnostics;
use terrace_syntax::PRODUCT;
use terrace_value::Value;

/// Where the engine gets providers from: the CLI launches plugins, tests
/// hand out in-process fakes.
pub trait ProviderFactory: Send + Sync {
    /// Cached; cheap to call repeatedly.
    fn schema(
        &self,
        provider: &terrace_addrs::Provider,
    ) -> Result<Arc<ProviderSchema>, Diagnostics>;
    /// A new unconfigured instance (a plugin process, or the built-in provider).
    fn start(
        &self,
        provider: &terrace_addrs::Provider,
    ) -> Result<Arc<dyn terrace_providers::Provider>, Diagnostics>;
    /// Takes back an instance from `start` that was never configured and is
    /// no longer needed (validation's). A factory may hand it out again
    /// from a later `start` of the same provider: an instance that
    /// answered validation requests before its configuration is what every
    /// instance the engine configures has been. By default it is closed.
    fn release(
        &self,
        provider: &terrace_addrs::Provider,
        instance: Arc<dyn terrace_providers::Provider>,
    ) {
        let _ = provider;
        let _ = instance.close();
    }
    /// A new unconfigured instance for one instance of one provider
    /// configuration: a factory that substitutes some configurations (a
    /// test's mock providers) decides here; others start the provider.
    fn start_configuration(
        &self,
        config: &AbsProviderConfig,
        key: &InstanceKey,
    ) -> Result<Arc<dyn terrace_providers::Provider>, Diagnostics> {
        let _ = key;
        self.start(&config.provider)
    }
    /// The provider that serves one resource instance's requests, given
    /// the configured instance its configuration binds it to: a factory
    /// that answers for some resources itself (a test's overrides) wraps
    /// it here.
    fn for_resource(
        &self,
        addr: &AbsResourceInstance,
        provider: Arc<dyn terrace_providers::Provider>,
    ) -> Arc<dyn terrace_providers::Provider> {
        let _ = addr;
        provider
    }
}

/// Evaluates expressions in the root module's scope as a finished walk
/// left it (planned values after a plan, new values after an apply), with
/// extra root names the caller supplies (a test's `run` and `output`).
pub trait RootEvaluator {
    /// The value of `expr`, and the references in it described as a
    /// condition's diagnostic shows them.
    fn evaluate(
        &self,
        expr: &terrace_config::expr::Expression,
        extra: &std::collections::BTreeMap<String, Value>,
    ) -> (Value, Diagnostics, Vec<(String, String)>);
    /// The root module's output values.
    fn outputs(&self) -> std::collections::BTreeMap<String, Value>;
}

/// A command a `local-exec` provisioner runs. The engine decides what to
/// run and how to report it; the caller runs it, so the engine never
/// starts a process itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalCommand {
    /// The interpreter and its arguments, then the command text.
    pub argv: Vec<String>,
    /// Set on top of the environment terrace runs in.
    pub env: Vec<(String, String)>,
    /// The configuration's working directory (`path.cwd`): where the
    /// command runs, and what a relative `working_dir` is taken from.
    pub base_dir: PathBuf,
    /// `working_dir` as written, when set (errors name it so).
    pub working_dir: Option<String>,
}

/// Why a command did not succeed, in the words Go's `os/exec` uses
/// (`exit status 3`, `signal: killed`, `exec: "x": executable file not
/// found in $PATH`, `chdir d: no such file or directory`), with the end of
/// its combined output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandFailure {
    pub error: String,
    pub output: Vec<u8>,
}

/// Runs provisioners' commands: the CLI starts processes, tests may
/// record.
pub trait CommandRunner: Send + Sync {
    /// Runs `command` to its end, handing each line of its combined
    /// output (stdout and stderr as written) to `emit`. Once `stopping`
    /// answers true the command and everything it started are killed.
    fn run(
        &self,
        command: &LocalCommand,
        emit: &dyn Fn(&str),
        stopping: &(dyn Fn() -> bool + Sync),
    ) -> Result<(), CommandFailure>;
}

/// For walks that run no provisioners (validation, benchmarks): every
/// command is refused, saying so.
pub struct NoCommandRunner;

impl CommandRunner for NoCommandRunner {
    fn run(
        &self,
        _: &LocalCommand,
        _: &dyn Fn(&str),
        _: &(dyn Fn() -> bool + Sync),
    ) -> Result<(), CommandFailure> {
        Err(CommandFailure {
            error: "this run cannot start commands".to_string(),
            output: Vec::new(),
        })
    }
}

/// Everything a walk needs besides the state and plan.
pub struct Context {
    pub config: Arc<Config>,
    pub providers: Arc<dyn ProviderFactory>,
    /// Final values of the root module's variables, as
    /// `terrace_config::input_variables::InputValues::final_values` gives
    /// them (sensitive ones already marked).
    pub variables: HashMap<String, Value>,
    pub workspace: String,
    /// The absolute working directory (`path.cwd`).
    pub working_dir: PathBuf,
    /// How many jobs (and so provider requests) run at once; 0 means 10.
    pub parallelism: usize,
    /// The version providers are told they run under.
    pub terraform_version: String,
    /// What runs `local-exec` provisioners' commands.
    pub commands: Arc<dyn CommandRunner>,
}

impl Context {
    pub(crate) fn workers(&self) -> usize {
        if self.parallelism == 0 {
            10
        } else {
            self.parallelism
        }
    }
}

/// What kind of plan to make and which parts of the configuration it
/// covers.
#[derive(Clone, Debug)]
pub struct PlanOptions {
    pub mode: PlanMode,
    /// `-refresh=false` clears it.
    pub refresh: bool,
    pub targets: Vec<Target>,
    pub excludes: Vec<Target>,
    /// `-replace=ADDR`.
    pub force_replace: Vec<AbsResourceInstance>,
    /// The RFC 3339 time `plantimestamp()` returns; empty means now.
    pub timestamp: String,
}

impl Default for PlanOptions {
    fn default() -> PlanOptions {
        PlanOptions {
            mode: PlanMode::Normal,
            refresh: true,
            targets: Vec::new(),
            excludes: Vec::new(),
            force_replace: Vec::new(),
            timestamp: String::new(),
        }
    }
}

/// What the UI and the state journal hear about a walk. Every method has
/// a no-op default. Methods are called from worker threads.
pub trait Hooks: Send + Sync {
    /// A managed resource instance's object is about to be read back from
    /// its provider (`deposed` names a deposed object of it); `id` is the
    /// prior object's `id` attribute when it has one.
    fn refreshing(
        &self,
        addr: &AbsResourceInstance,
        deposed: Option<&DeposedKey>,
        id: Option<&str>,
    ) {
        let _ = (addr, deposed, id);
    }
    /// An existing object is about to be imported (`Preparing import...`).
    fn importing(&self, addr: &AbsResourceInstance, id: &str) {
        let _ = (addr, id);
    }
    fn refreshed(&self, addr: &AbsResourceInstance, ok: bool) {
        let _ = (addr, ok);
    }
    /// An action on one object begins (`Read` for data sources, also
    /// during plan); `deposed` names a deposed object of `addr`, `id` is
    /// the existing object's `id`, if any.
    fn apply_started(
        &self,
        addr: &AbsResourceInstance,
        deposed: Option<&DeposedKey>,
        action: Action,
        id: Option<&str>,
    ) {
        let _ = (addr, deposed, action, id);
    }
    /// During apply, an object a plan imports is taken under management
    /// (`Importing... [id=...]`), before any change to it.
    fn import_applying(&self, addr: &AbsResourceInstance, id: &str) {
        let _ = (addr, id);
    }
    /// The import of `addr` is recorded (`Import complete [id=...]`).
    fn import_applied(&self, addr: &AbsResourceInstance, id: &str) {
        let _ = (addr, id);
    }
    /// The action ended; `id` is the resulting object's `id` attribute.
    fn apply_finished(
        &self,
        addr: &AbsResourceInstance,
        deposed: Option<&DeposedKey>,
        action: Action,
        id: Option<&str>,
        elapsed: Duration,
        ok: bool,
    ) {
        let _ = (addr, deposed, action, id, elapsed, ok);
    }
    /// Called right after each ApplyResourceChange result is recorded, with
    /// the state's new object for that instance (None when deleted) — the
    /// CLI journals it so a killed apply loses nothing.
    fn object_changed(
        &self,
        addr: &AbsResourceInstance,
        deposed: Option<&DeposedKey>,
        provider: &AbsProviderConfig,
        provider_key: &InstanceKey,
        object: Option<&ObjectState>,
    ) {
        let _ = (addr, deposed, provider, provider_key, object);
    }
    /// A provisioner of `addr` is about to run (`type_name` is its block
    /// label, e.g. `local-exec`); called between `apply_started` and
    /// `apply_finished` of the create or destroy it belongs to.
    fn provisioning(&self, addr: &AbsResourceInstance, type_name: &str) {
        let _ = (addr, type_name);
    }
    /// One message of a running provisioner, as it arrives: the
    /// `Executing: [...]` line, then each line of the command's output
    /// (without its newline; it may hold `\r`). When the provisioner's
    /// configuration is sensitive, Terraform's suppression note instead.
    fn provision_output(&self, addr: &AbsResourceInstance, type_name: &str, message: &str) {
        let _ = (addr, type_name, message);
    }
    /// A provisioner of `addr` ended; `ok` is false when it failed (even
    /// when `on_failure = continue` lets the apply go on).
    fn provisioned(&self, addr: &AbsResourceInstance, type_name: &str, ok: bool) {
        let _ = (addr, type_name, ok);
    }
    /// An ephemeral resource instance is about to be opened, renewed or
    /// closed (`Opening...`).
    fn ephemeral_started(&self, addr: &AbsResourceInstance, op: EphemeralOp) {
        let _ = (addr, op);
    }
    /// The ephemeral operation ended; `ok` is false when it failed.
    fn ephemeral_finished(
        &self,
        addr: &AbsResourceInstance,
        op: EphemeralOp,
        elapsed: Duration,
        ok: bool,
    ) {
        let _ = (addr, op, elapsed, ok);
    }
    /// Ctrl-C was requested: no new work is started and running providers
    /// are asked to stop.
    fn stopping(&self) -> bool {
        false
    }
    /// A plan or apply walk finished; `evaluator` answers for its root
    /// module until this returns.
    fn walk_finished(&self, evaluator: &dyn RootEvaluator) {
        let _ = evaluator;
    }
}

/// What happens to an ephemeral resource instance during a walk: it is
/// opened when its configuration is known, renewed while it is in use if
/// the provider asks for that, and closed once nothing needs it any more.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EphemeralOp {
    Open,
    Renew,
    Close,
}

impl EphemeralOp {
    /// The word the UI uses for it: `open`, `renew`, `close`.
    pub fn name(self) -> &'static str {
        match self {
            EphemeralOp::Open => "open",
            EphemeralOp::Renew => "renew",
            EphemeralOp::Close => "close",
        }
    }
    /// `Opening`, `Renewing`, `Closing`.
    pub fn progressive(self) -> &'static str {
        match self {
            EphemeralOp::Open => "Opening",
            EphemeralOp::Renew => "Renewing",
            EphemeralOp::Close => "Closing",
        }
    }
}

/// Hooks that do nothing.
pub struct NoHooks;

impl Hooks for NoHooks {}

/// `terraform validate`'s walk: every expression checked with unknown
/// instance data, every body decoded against its schema and passed to
/// one unconfigured instance of its provider.
pub fn validate(ctx: &Context) -> Diagnostics {
    validate::validate(ctx)
}

/// Plans changes from `prior` towards the configuration.
pub fn plan(
    ctx: &Context,
    prior: &State,
    opts: &PlanOptions,
    hooks: &dyn Hooks,
) -> (Plan, Diagnostics) {
    let (plan, mut diags) =
        if opts.mode == PlanMode::Destroy && opts.refresh && !prior.resources.is_empty() {
            destroy_plan_after_refresh(ctx, prior, opts, hooks)
        } else {
            plan::plan(ctx, prior, opts, hooks)
        };
    halted_if_stopped(hooks, &mut diags);
    (plan, diags)
}

/// A destroy plan as terraform makes one: first a normal plan, for its
/// refresh alone (objects deleted outside are dropped, data sources are
/// read again, all reported as they happen), then the destroy plan from
/// the state that refresh left, without refreshing a second time. Errors
/// of the first plan end it there, as in terraform; its warnings are not
/// kept (the destroy plan's own walk reports the ones that still apply).
fn destroy_plan_after_refresh(
    ctx: &Context,
    prior: &State,
    opts: &PlanOptions,
    hooks: &dyn Hooks,
) -> (Plan, Diagnostics) {
    let refresh_opts = PlanOptions {
        mode: PlanMode::Normal,
        ..opts.clone()
    };
    let (refreshed, refresh_diags) = plan::pre_destroy_refresh(ctx, prior, &refresh_opts, hooks);
    if terrace_syntax::diagnostic::has_errors(&refresh_diags) || hooks.stopping() {
        let mut failed = Plan::empty(PlanMode::Destroy, prior.clone());
        failed.errored = true;
        failed.failed_without_plan = true;
        return (failed, refresh_diags);
    }
    let destroy_opts = PlanOptions {
        refresh: false,
        ..opts.clone()
    };
    let (mut plan, diags) = plan::plan(ctx, &refreshed.prior_state, &destroy_opts, hooks);
    // The previous run's state is what the run started from, not the
    // refreshed one the destroy walk planned against.
    plan.prev_run_state = refreshed.prev_run_state;
    (plan, diags)
}

/// A walk cut short by an interrupt did not do everything it was asked:
/// that is an error, so no caller reports the run as complete.
fn halted_if_stopped(hooks: &dyn Hooks, diags: &mut Diagnostics) {
    if hooks.stopping() && !diags.iter().any(|d| d.summary == EXECUTION_HALTED) {
        diags.push(terrace_syntax::Diagnostic::error(EXECUTION_HALTED, ""));
    }
}

/// The error of a walk stopped by an interrupt, worded as Terraform's.
pub const EXECUTION_HALTED: &str = "execution halted";

/// A stored object as expressions see it: decoded with its resource
/// type's `schema`, sensitive where the schema or the state says so, and
/// unknown when it does not decode (what `console` shows for resources in
/// the state).
pub fn state_object_value(
    obj: &terrace_states::model::ObjectState,
    schema: &terrace_providers::Schema,
) -> terrace_value::Value {
    let ty = schema.block.implied_type();
    match obj.decode(&ty) {
        Ok(v) => {
            let v = crate::marks::apply_mark_paths(&v, &crate::common::sensitive_paths(obj));
            crate::marks::mark_schema_sensitive(&schema.block, &v)
        }
        Err(_) => terrace_value::Value::unknown(ty),
    }
}

/// Carries out `plan`, returning the new state (also when errors stopped
/// part of the work: it then holds what was done).
pub fn apply(ctx: &Context, plan: &Plan, hooks: &dyn Hooks) -> (State, Diagnostics) {
    let (state, mut diags) = apply::apply(ctx, plan, hooks);
    halted_if_stopped(hooks, &mut diags);
    (state, diags)
}

/// `terrace import ADDR ID`: imports each target (ImportResourceState,
/// ReadResource, with the configured provider instance the configuration
/// binds the address to) and returns `prior` with the imported objects
/// added. On any error the returned state is `prior` unchanged.
pub fn import(
    ctx: &Context,
    prior: &State,
    targets: &[(AbsResourceInstance, String)],
    hooks: &dyn Hooks,
) -> (State, Diagnostics) {
    let mut diags = Diagnostics::new();
    for (addr, _) in targets {
        if prior.object(addr).is_some() {
            diags.push(terrace_syntax::Diagnostic::error(
                format!("Resource already managed by {PRODUCT}"),
                format!("{PRODUCT} is already managing a remote object for {addr}. To import to this address you must first remove the existing object from the state."),
            ));
            continue;
        }
        let names = model::path_names(&addr.module.module());
        let declared = addr.resource.resource.mode == terrace_addrs::ResourceMode::Managed
            && ctx.config.descendant(&names).is_some_and(|c| {
                c.module
                    .managed_resources
                    .contains_key(&addr.resource.resource.to_string())
            });
        if !declared {
            let r = &addr.resource.resource;
            let place = if addr.module.is_root() {
                "the root module".to_string()
            } else {
                format!("module path {}", addr.module.module())
            };
            diags.push(terrace_syntax::Diagnostic::error(
                format!("resource address {:?} does not exist in the configuration.", addr.to_string()),
                format!("Before importing this resource, please create its configuration in {place}. For example:\n\nresource {:?} {:?} {{\n  # (resource arguments)\n}}", r.type_name.to_string(), r.name.to_string()),
            ));
        }
    }
    if terrace_syntax::diagnostic::has_errors(&diags) {
        return (prior.clone(), diags);
    }
    let opts = PlanOptions {
        targets: targets
            .iter()
            .map(|(a, _)| Target {
                subject: terrace_addrs::Targetable::AbsResourceInstance(a.clone()),
                source_range: Default::default(),
            })
            .collect(),
        ..PlanOptions::default()
    };
    let extra: Vec<imports::ImportTarget> = targets
        .iter()
        .map(|(addr, id)| imports::ImportTarget {
            addr: addr.clone(),
            id: id.clone(),
            range: None,
        })
        .collect();
    let (plan, pdiags) = plan::plan_with_imports(ctx, prior, &opts, hooks, &extra, false);
    let failed = terrace_syntax::diagnostic::has_errors(&pdiags);
    diags.extend(pdiags);
    if failed {
        return (prior.clone(), diags);
    }
    let mut state = prior.clone();
    for (addr, _) in targets {
        let Some(c) = plan
            .changes
            .iter()
            .find(|c| &c.addr == addr && c.deposed.is_none() && c.importing.is_some())
        else {
            diags.push(imports::undeclared_instance(&imports::ImportTarget {
                addr: addr.clone(),
                id: String::new(),
                range: None,
            }));
            continue;
        };
        let ty = c.before.ty().clone();
        match common::encode_object(&c.before, &ty, c.schema_version as i64) {
            Ok(mut obj) => {
                obj.private = (!c.private.is_empty()).then(|| c.private.clone());
                state.set_current(
                    addr,
                    c.provider.config.clone(),
                    c.provider.key.clone(),
                    Some(obj),
                );
            }
            Err(d) => diags.extend(d),
        }
    }
    if terrace_syntax::diagnostic::has_errors(&diags) {
        return (prior.clone(), diags);
    }
    (state, diags)
}

/// What `terrace graph` draws: every resource block (managed and data, in
/// every module) with the resources it depends on, found through locals,
/// variables, outputs and module calls and reduced as Terraform reduces
/// them (an edge another path already implies is left out). Sorted by
/// address.
pub fn resource_graph(
    ctx: &Context,
) -> Result<
    Vec<(
        terrace_addrs::ConfigResource,
        std::collections::BTreeSet<terrace_addrs::ConfigResource>,
    )>,
    Diagnostics,
> {
    let (model, mut diags) = model::build(ctx, None);
    if terrace_syntax::diagnostic::has_errors(&diags) {
        return Err(diags);
    }
    let (g, gd) = graph::build(&model, graph::GraphKind::Plan);
    diags.extend(gd);
    if terrace_syntax::diagnostic::has_errors(&diags) {
        return Err(diags);
    }
    Ok(graph::resource_edges(&g))
}
