//! What a provider is made of, as its author declares it: `ProviderSpec`
//! (configuration schema and the configure step that makes the client),
//! `ResourceSpec` (schema, create/read/update/delete, import, timeouts,
//! schema versions with state upgraders, plan customisation),
//! `DataSourceSpec` and `Function`. `C` is the provider's client type:
//! whatever `configure` returns, handed to every operation.

use crate::data::ResourceData;
use crate::error::Result;
use crate::schema::{Attr, BlockSpec, NestedBlockSpec};
use crate::timeouts::{Context, DEFAULT_TIMEOUT};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use terrace_providers::{AttributePath, FunctionError, FunctionSpec};
use terrace_value::Value;

/// create, read, update or delete: the operation's context, the client,
/// and the object.
pub type Crud<C> = Arc<dyn Fn(&Context, &C, &mut ResourceData) -> Result<()> + Send + Sync>;

/// Import: the identifier the user gave; the callback fills in enough of
/// the (all-null, `id` already set) object for a read to complete it.
pub type Importer<C> =
    Arc<dyn Fn(&Context, &C, &str, &mut ResourceData) -> Result<()> + Send + Sync>;

/// Adjusts a plan after the SDK has made it (Go's `CustomizeDiff`).
pub type PlanHook = Arc<dyn Fn(&mut PlanData) -> Result<()> + Send + Sync>;

/// A check of a whole configuration (cross-attribute rules).
pub type ConfigCheck = Arc<dyn Fn(&ResourceData) -> Result<()> + Send + Sync>;

/// Upgrades a stored state, as a JSON object, from one schema version to
/// the next.
pub type StateUpgrader = Arc<
    dyn Fn(
            serde_json::Map<String, serde_json::Value>,
        ) -> Result<serde_json::Map<String, serde_json::Value>>
        + Send
        + Sync,
>;

/// Makes the provider's client from its configuration.
pub type Configure<C> = Arc<dyn Fn(&Context, &ResourceData) -> Result<C> + Send + Sync>;

/// A provider function's implementation.
pub type FunctionImpl =
    Arc<dyn Fn(&[Value]) -> std::result::Result<Value, FunctionError> + Send + Sync>;

/// The name of the block users set timeouts in.
pub const TIMEOUTS_BLOCK: &str = "timeouts";

/// Default time limits of a resource's operations; each one declared may
/// be changed by users in a `timeouts` block.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Timeouts {
    pub create: Option<Duration>,
    pub read: Option<Duration>,
    pub update: Option<Duration>,
    pub delete: Option<Duration>,
    /// For declared operations without a limit of their own.
    pub default: Option<Duration>,
}

impl Timeouts {
    pub(crate) fn declared(&self) -> Vec<&'static str> {
        let mut names = Vec::new();
        for (name, value) in [
            ("create", self.create),
            ("read", self.read),
            ("update", self.update),
            ("delete", self.delete),
            ("default", self.default),
        ] {
            if value.is_some() {
                names.push(name);
            }
        }
        names
    }

    pub(crate) fn limit(&self, operation: &str) -> Duration {
        let own = match operation {
            "create" => self.create,
            "read" => self.read,
            "update" => self.update,
            "delete" => self.delete,
            _ => None,
        };
        own.or(self.default).unwrap_or(DEFAULT_TIMEOUT)
    }

    pub(crate) fn block(&self) -> NestedBlockSpec {
        let mut block = BlockSpec::new();
        for name in self.declared() {
            block = block.attr(name, Attr::string().optional());
        }
        NestedBlockSpec::single(block)
    }
}

pub struct ResourceSpec<C> {
    pub(crate) schema: BlockSpec,
    pub(crate) version: i64,
    pub(crate) upgraders: BTreeMap<i64, StateUpgrader>,
    pub(crate) create: Option<Crud<C>>,
    pub(crate) read: Option<Crud<C>>,
    pub(crate) update: Option<Crud<C>>,
    pub(crate) delete: Option<Crud<C>>,
    pub(crate) importer: Option<Importer<C>>,
    pub(crate) timeouts: Option<Timeouts>,
    pub(crate) plan_hooks: Vec<PlanHook>,
    pub(crate) checks: Vec<ConfigCheck>,
}

impl<C> ResourceSpec<C> {
    pub fn new(schema: BlockSpec) -> ResourceSpec<C> {
        ResourceSpec {
            schema,
            version: 0,
            upgraders: BTreeMap::new(),
            create: None,
            read: None,
            update: None,
            delete: None,
            importer: None,
            timeouts: None,
            plan_hooks: Vec::new(),
            checks: Vec::new(),
        }
    }

    /// The schema version; states of each older version need an upgrader.
    pub fn version(mut self, version: i64) -> Self {
        self.version = version;
        self
    }

    /// Upgrades states of schema version `from` to version `from + 1`.
    pub fn upgrader(
        mut self,
        from: i64,
        upgrade: impl Fn(
                serde_json::Map<String, serde_json::Value>,
            ) -> Result<serde_json::Map<String, serde_json::Value>>
            + Send
            + Sync
            + 'static,
    ) -> Self {
        self.upgraders.insert(from, Arc::new(upgrade));
        self
    }

    pub fn create(
        mut self,
        f: impl Fn(&Context, &C, &mut ResourceData) -> Result<()> + Send + Sync + 'static,
    ) -> Self {
        self.create = Some(Arc::new(f));
        self
    }

    pub fn read(
        mut self,
        f: impl Fn(&Context, &C, &mut ResourceData) -> Result<()> + Send + Sync + 'static,
    ) -> Self {
        self.read = Some(Arc::new(f));
        self
    }

    pub fn update(
        mut self,
        f: impl Fn(&Context, &C, &mut ResourceData) -> Result<()> + Send + Sync + 'static,
    ) -> Self {
        self.update = Some(Arc::new(f));
        self
    }

    pub fn delete(
        mut self,
        f: impl Fn(&Context, &C, &mut ResourceData) -> Result<()> + Send + Sync + 'static,
    ) -> Self {
        self.delete = Some(Arc::new(f));
        self
    }

    /// Makes the resource importable with a callback of its own.
    pub fn importer(
        mut self,
        f: impl Fn(&Context, &C, &str, &mut ResourceData) -> Result<()> + Send + Sync + 'static,
    ) -> Self {
        self.importer = Some(Arc::new(f));
        self
    }

    /// Makes the resource importable by its `id` alone: the read that
    /// follows the import fills in the rest.
    pub fn import_passthrough(self) -> Self {
        self.importer(|_, _, _, _| Ok(()))
    }

    pub fn timeouts(mut self, timeouts: Timeouts) -> Self {
        self.timeouts = Some(timeouts);
        self
    }

    pub fn plan_hook(
        mut self,
        f: impl Fn(&mut PlanData) -> Result<()> + Send + Sync + 'static,
    ) -> Self {
        self.plan_hooks.push(Arc::new(f));
        self
    }

    /// A check of the whole configuration, after each attribute's own.
    pub fn check(
        mut self,
        f: impl Fn(&ResourceData) -> Result<()> + Send + Sync + 'static,
    ) -> Self {
        self.checks.push(Arc::new(f));
        self
    }

    /// The schema as Terraform sees it: with the `timeouts` block when
    /// the resource declares timeouts.
    pub fn effective_schema(&self) -> BlockSpec {
        let mut schema = self.schema.clone();
        if let Some(timeouts) = &self.timeouts {
            schema = schema.block(TIMEOUTS_BLOCK, timeouts.block());
        }
        schema
    }
}

pub struct DataSourceSpec<C> {
    pub(crate) schema: BlockSpec,
    pub(crate) read: Option<Crud<C>>,
    pub(crate) timeouts: Option<Timeouts>,
    pub(crate) checks: Vec<ConfigCheck>,
}

impl<C> DataSourceSpec<C> {
    pub fn new(schema: BlockSpec) -> DataSourceSpec<C> {
        DataSourceSpec {
            schema,
            read: None,
            timeouts: None,
            checks: Vec::new(),
        }
    }

    pub fn read(
        mut self,
        f: impl Fn(&Context, &C, &mut ResourceData) -> Result<()> + Send + Sync + 'static,
    ) -> Self {
        self.read = Some(Arc::new(f));
        self
    }

    /// Only `read` applies to a data source.
    pub fn timeouts(mut self, timeouts: Timeouts) -> Self {
        self.timeouts = Some(timeouts);
        self
    }

    pub fn check(
        mut self,
        f: impl Fn(&ResourceData) -> Result<()> + Send + Sync + 'static,
    ) -> Self {
        self.checks.push(Arc::new(f));
        self
    }

    pub fn effective_schema(&self) -> BlockSpec {
        let mut schema = self.schema.clone();
        if let Some(timeouts) = &self.timeouts {
            schema = schema.block(TIMEOUTS_BLOCK, timeouts.block());
        }
        schema
    }
}

/// An ephemeral resource: something opened for the length of one
/// Terraform operation (a generated secret, a short-lived token) whose
/// result is never stored. `open` fills the computed attributes from the
/// configuration; `close`, when given, releases what `open` acquired,
/// from the private data `open` left with `ResourceData::set_private`.
pub struct EphemeralResourceSpec<C> {
    pub(crate) schema: BlockSpec,
    pub(crate) open: Option<Crud<C>>,
    pub(crate) close: Option<EphemeralClose<C>>,
    pub(crate) checks: Vec<ConfigCheck>,
}

pub type EphemeralClose<C> = Arc<dyn Fn(&Context, &C, &[u8]) -> Result<()> + Send + Sync>;

impl<C> EphemeralResourceSpec<C> {
    pub fn new(schema: BlockSpec) -> EphemeralResourceSpec<C> {
        EphemeralResourceSpec {
            schema,
            open: None,
            close: None,
            checks: Vec::new(),
        }
    }

    pub fn open(
        mut self,
        f: impl Fn(&Context, &C, &mut ResourceData) -> Result<()> + Send + Sync + 'static,
    ) -> Self {
        self.open = Some(Arc::new(f));
        self
    }

    pub fn close(
        mut self,
        f: impl Fn(&Context, &C, &[u8]) -> Result<()> + Send + Sync + 'static,
    ) -> Self {
        self.close = Some(Arc::new(f));
        self
    }

    pub fn check(
        mut self,
        f: impl Fn(&ResourceData) -> Result<()> + Send + Sync + 'static,
    ) -> Self {
        self.checks.push(Arc::new(f));
        self
    }

    pub fn schema(&self) -> &BlockSpec {
        &self.schema
    }
}

/// A provider-defined function.
#[derive(Clone)]
pub struct Function {
    pub spec: FunctionSpec,
    pub call: FunctionImpl,
}

impl Function {
    pub fn new(
        spec: FunctionSpec,
        call: impl Fn(&[Value]) -> std::result::Result<Value, FunctionError> + Send + Sync + 'static,
    ) -> Function {
        Function {
            spec,
            call: Arc::new(call),
        }
    }
}

pub struct ProviderSpec<C> {
    pub(crate) schema: BlockSpec,
    pub(crate) configure: Configure<C>,
    pub(crate) checks: Vec<ConfigCheck>,
    pub(crate) resources: BTreeMap<String, ResourceSpec<C>>,
    pub(crate) data_sources: BTreeMap<String, DataSourceSpec<C>>,
    pub(crate) ephemeral_resources: BTreeMap<String, EphemeralResourceSpec<C>>,
    pub(crate) functions: BTreeMap<String, Function>,
    pub(crate) calls_never_wait: bool,
}

impl<C> ProviderSpec<C> {
    /// A provider with the given configuration schema; `configure` turns
    /// its configuration into the client every operation receives.
    pub fn new(
        schema: BlockSpec,
        configure: impl Fn(&Context, &ResourceData) -> Result<C> + Send + Sync + 'static,
    ) -> ProviderSpec<C> {
        ProviderSpec {
            schema,
            configure: Arc::new(configure),
            checks: Vec::new(),
            resources: BTreeMap::new(),
            data_sources: BTreeMap::new(),
            ephemeral_resources: BTreeMap::new(),
            functions: BTreeMap::new(),
            calls_never_wait: false,
        }
    }

    pub fn resource(mut self, name: impl Into<String>, spec: ResourceSpec<C>) -> Self {
        self.resources.insert(name.into(), spec);
        self
    }

    pub fn data_source(mut self, name: impl Into<String>, spec: DataSourceSpec<C>) -> Self {
        self.data_sources.insert(name.into(), spec);
        self
    }

    pub fn ephemeral_resource(
        mut self,
        name: impl Into<String>,
        spec: EphemeralResourceSpec<C>,
    ) -> Self {
        self.ephemeral_resources.insert(name.into(), spec);
        self
    }

    pub fn function(mut self, name: impl Into<String>, function: Function) -> Self {
        self.functions.insert(name.into(), function);
        self
    }

    /// Declares that no operation of this provider ever waits: none
    /// makes network calls, reads files, sleeps or retries, they only
    /// compute (as `null` and `random` do). The plugin server then runs
    /// each call on its own thread instead of handing it to a thread that
    /// may block, which saves two thread wake-ups per call (about a third
    /// of the CPU a call costs both processes). A provider that does wait
    /// must not say this: while one of its calls waits, no other call, not
    /// even the host's request to stop, would be answered.
    pub fn calls_never_wait(mut self) -> Self {
        self.calls_never_wait = true;
        self
    }

    /// A check of the provider's whole configuration.
    pub fn check(
        mut self,
        f: impl Fn(&ResourceData) -> Result<()> + Send + Sync + 'static,
    ) -> Self {
        self.checks.push(Arc::new(f));
        self
    }

    pub fn resources(&self) -> &BTreeMap<String, ResourceSpec<C>> {
        &self.resources
    }

    pub fn data_sources(&self) -> &BTreeMap<String, DataSourceSpec<C>> {
        &self.data_sources
    }

    pub fn ephemeral_resources(&self) -> &BTreeMap<String, EphemeralResourceSpec<C>> {
        &self.ephemeral_resources
    }

    pub fn functions(&self) -> &BTreeMap<String, Function> {
        &self.functions
    }
}

/// What a plan hook sees and changes: the planned object (with the prior
/// state and configuration beside it) and the paths that force a
/// replacement.
pub struct PlanData {
    pub data: ResourceData,
    pub(crate) requires_replace: Vec<AttributePath>,
    pub(crate) create: bool,
}

impl PlanData {
    /// Whether the object is being created (no prior state).
    pub fn is_create(&self) -> bool {
        self.create
    }

    /// Whether the plan already replaces the object.
    pub fn is_replace(&self) -> bool {
        !self.requires_replace.is_empty()
    }

    /// Plans `name` as "known after apply".
    pub fn set_unknown(&mut self, name: &str) -> Result<()> {
        let ty = self
            .data
            .ty()
            .attribute_type(name)
            .cloned()
            .unwrap_or(terrace_value::Type::Dynamic);
        self.data.set(name, Value::unknown(ty))
    }

    /// Makes a change to `name` replace the object.
    pub fn require_replace(&mut self, name: &str) {
        let path = AttributePath::root().attribute(name);
        if !self.requires_replace.contains(&path) {
            self.requires_replace.push(path);
        }
    }

    /// Makes the object's replacement depend on how map attribute `name`
    /// changed, by hashicorp's `RequiresReplaceIfValuesNotNull` rule (see
    /// `map_values_not_null_changed`); for `keepers`-like maps declared
    /// without `force_new`, whose other changes update in place.
    pub fn require_replace_if_map_values_not_null(&mut self, name: &str) {
        if !self.create
            && crate::replace::map_values_not_null_changed(
                &self.data.prior(name),
                &self.data.config(name),
            )
        {
            self.require_replace(name);
        }
    }

    pub fn requires_replace(&self) -> &[AttributePath] {
        &self.requires_replace
    }
}
