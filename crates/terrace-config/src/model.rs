//! The decoded configuration of one module, mirroring OpenTofu's
//! `configs` package: every block becomes a struct that keeps the source
//! ranges of its header and arguments, expressions stay unevaluated
//! (`Expression`), and bodies whose schema belongs to a provider or
//! provisioner stay raw (`Body`) for the layer that knows that schema.

use crate::body::{Attribute, Body};
use crate::expr::Expression;
use crate::module_source::ModuleSource;
use crate::version::Constraints;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use terrace_addrs::Provider as ProviderFqn;
use terrace_lang::references::ResourceMode;
use terrace_syntax::ast::{SourceFile, Traversal};
use terrace_syntax::SourceRange;
use terrace_value::convert::TypeDefaults;
use terrace_value::{Type, Value};

/// A traversal written in configuration (`depends_on`, `ignore_changes`),
/// with the file its spans point into.
#[derive(Clone, Debug)]
pub struct StaticTraversal {
    pub traversal: Traversal,
    pub file: Arc<SourceFile>,
}

impl StaticTraversal {
    pub fn range(&self) -> SourceRange {
        let t = &self.traversal;
        let end = t.steps.last().map(|s| s.span()).unwrap_or(t.root_span);
        self.file.range(t.root_span.to(end))
    }
}

/// A version constraint argument with its range.
#[derive(Clone, Debug)]
pub struct VersionConstraint {
    pub required: Constraints,
    /// The whole argument (`version = "..."`).
    pub decl_range: SourceRange,
}

/// One module: the contents of one directory's configuration files,
/// with override files merged in.
#[derive(Clone, Debug, Default)]
pub struct Module {
    /// The directory the module was loaded from, as given to the loader
    /// (`path.module`).
    pub source_dir: PathBuf,
    /// The files the module was read from, for rendering diagnostics.
    pub files: Vec<Arc<SourceFile>>,

    pub backend: Option<Backend>,
    pub cloud: Option<CloudConfig>,
    /// The `required_version` constraints of its `.tf` files: the
    /// Terraform versions the module is written for.
    pub terraform_version_constraints: Vec<VersionConstraint>,
    /// Keyed by `name` or `name.alias`.
    pub provider_configs: BTreeMap<String, Provider>,
    pub required_providers: RequiredProviders,
    /// Keyed by the provider's local name.
    pub provider_metas: BTreeMap<String, ProviderMeta>,
    pub encryption: Option<Encryption>,

    pub variables: BTreeMap<String, Variable>,
    pub locals: BTreeMap<String, Local>,
    pub outputs: BTreeMap<String, Output>,
    pub module_calls: BTreeMap<String, ModuleCall>,

    /// Keyed by `type.name`.
    pub managed_resources: BTreeMap<String, Resource>,
    /// Keyed by `data.type.name`; includes the data blocks nested in
    /// `check` blocks.
    pub data_resources: BTreeMap<String, Resource>,
    /// Keyed by `ephemeral.type.name`.
    pub ephemeral_resources: BTreeMap<String, Resource>,

    pub moved: Vec<Moved>,
    pub imports: Vec<Import>,
    pub removed: Vec<Removed>,
    pub checks: BTreeMap<String, Check>,
}

impl Module {
    /// The provider configuration `name` (default) or `name.alias`.
    pub fn provider_config(&self, name: &str, alias: Option<&str>) -> Option<&Provider> {
        match alias {
            Some(alias) => self.provider_configs.get(&format!("{name}.{alias}")),
            None => self.provider_configs.get(name),
        }
    }

    /// OpenTofu's `ImpliedProviderForUnqualifiedType`: the provider a local
    /// name stands for, from `required_providers` or else
    /// `hashicorp/<name>`. `None` when the name is not a valid provider
    /// type name.
    pub fn provider_for_local_name(&self, local_name: &str) -> Option<ProviderFqn> {
        if let Some(rp) = self.required_providers.providers.get(local_name) {
            return rp.provider.clone();
        }
        ProviderFqn::implied_for_unqualified_type(local_name).ok()
    }

    /// OpenTofu's `LocalNameForProvider`: the local name `required_providers`
    /// gives a provider, or its type name.
    pub fn local_name_for_provider(&self, provider: &ProviderFqn) -> String {
        self.required_providers
            .providers
            .iter()
            .find(|(_, rp)| rp.provider.as_ref() == Some(provider))
            .map(|(name, _)| name.clone())
            .unwrap_or_else(|| provider.type_name().to_string())
    }

    /// Every resource of every mode, managed first.
    pub fn all_resources(&self) -> impl Iterator<Item = &Resource> {
        self.managed_resources
            .values()
            .chain(self.data_resources.values())
            .chain(self.ephemeral_resources.values())
    }
}

/// The `required_providers` block of a module (empty when absent).
#[derive(Clone, Debug, Default)]
pub struct RequiredProviders {
    pub providers: BTreeMap<String, RequiredProvider>,
    pub decl_range: Option<SourceRange>,
}

#[derive(Clone, Debug)]
pub struct RequiredProvider {
    /// The local name (the argument name).
    pub name: String,
    /// The `source` string as written, if given.
    pub source: Option<String>,
    pub source_range: Option<SourceRange>,
    /// The provider this local name stands for: from `source`, or implied
    /// from the name. `None` only when neither is valid.
    pub provider: Option<ProviderFqn>,
    pub requirement: Option<VersionConstraint>,
    /// The entry's value expression.
    pub decl_range: SourceRange,
    /// `configuration_aliases`, and the aliases of
    /// `configuration_collections`.
    pub aliases: Vec<LocalProviderConfig>,
    /// `configuration_collections` (a terrace extension): aliases that
    /// stand for every instance of a caller's configuration with
    /// `for_each`, each resource choosing one by its own instance key.
    pub collections: Vec<LocalProviderConfig>,
}

/// A provider configuration address relative to its module: `aws` or
/// `aws.west`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalProviderConfig {
    pub local_name: String,
    pub alias: Option<String>,
    pub range: SourceRange,
}

impl std::fmt::Display for LocalProviderConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.alias {
            Some(alias) => write!(f, "{}.{alias}", self.local_name),
            None => f.write_str(&self.local_name),
        }
    }
}

/// A `provider` block.
#[derive(Clone, Debug)]
pub struct Provider {
    pub name: String,
    pub name_range: SourceRange,
    pub alias: Option<String>,
    pub alias_range: Option<SourceRange>,
    /// The deprecated `version` argument.
    pub version: Option<VersionConstraint>,
    /// Everything that is not a meta-argument, for the provider's schema.
    pub config: Body,
    pub decl_range: SourceRange,
    pub for_each: Option<Expression>,
    /// The instances `for_each` expands to, keyed by instance key, once
    /// static evaluation has run; `None` without `for_each` or when its
    /// value could not be determined.
    pub instances: Option<BTreeMap<String, RepetitionData>>,
    /// `for_each` refers to resources, data sources or module outputs, so
    /// its instances are decided during the plan walk, once what it
    /// refers to is known (a terrace extension: deferred provider
    /// expansion).
    pub for_each_at_walk: bool,
}

impl Provider {
    /// `name` or `name.alias`, the key of `Module::provider_configs`.
    pub fn module_unique_key(&self) -> String {
        match &self.alias {
            Some(alias) => format!("{}.{alias}", self.name),
            None => self.name.clone(),
        }
    }
}

/// `each.key` and `each.value` of one instance.
#[derive(Clone, Debug)]
pub struct RepetitionData {
    pub each_key: Value,
    pub each_value: Value,
}

/// A reference to a provider configuration written in a resource's
/// `provider` argument or either side of a module's `providers` map
/// (OpenTofu's `ProviderConfigRef`): `aws`, `aws.west`,
/// `aws.by_region[each.key]`.
#[derive(Clone, Debug)]
pub struct ProviderConfigRef {
    pub name: String,
    pub name_range: SourceRange,
    pub alias: Option<String>,
    pub alias_range: Option<SourceRange>,
    /// The instance key expression, evaluated dynamically.
    pub key_expression: Option<Expression>,
}

impl ProviderConfigRef {
    /// `name` or `name.alias`, without the key.
    pub fn config_key(&self) -> String {
        match &self.alias {
            Some(alias) => format!("{}.{alias}", self.name),
            None => self.name.clone(),
        }
    }
}

impl std::fmt::Display for ProviderConfigRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.config_key())
    }
}

/// One entry of a module call's `providers` map.
#[derive(Clone, Debug)]
pub struct PassedProviderConfig {
    pub in_child: ProviderConfigRef,
    pub in_parent: ProviderConfigRef,
}

#[derive(Clone, Debug)]
pub struct ProviderMeta {
    pub provider: String,
    pub config: Body,
    pub provider_range: SourceRange,
    pub decl_range: SourceRange,
}

#[derive(Clone, Debug)]
pub struct Backend {
    pub type_name: String,
    pub config: Body,
    pub type_range: SourceRange,
    pub decl_range: SourceRange,
}

#[derive(Clone, Debug)]
pub struct CloudConfig {
    pub config: Body,
    pub decl_range: SourceRange,
}

/// OpenTofu's state encryption block, kept undecoded: terrace accepts it
/// so OpenTofu configurations load.
#[derive(Clone, Debug)]
pub struct Encryption {
    pub config: Body,
    pub decl_range: SourceRange,
}

/// How a variable's value given as text (`-var`, `TF_VAR_`) is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VariableParsingMode {
    /// The text is the string value.
    Literal,
    /// The text is an HCL expression.
    Hcl,
}

#[derive(Clone, Debug)]
pub struct Variable {
    pub name: String,
    pub description: Option<String>,
    /// The default converted to the type constraint; `None` means the
    /// variable is required.
    pub default: Option<Value>,
    /// The type with optional attributes removed.
    pub ty: Type,
    /// The type constraint as written (may have optional attributes).
    pub constraint_type: Type,
    pub type_defaults: Option<TypeDefaults>,
    /// Whether `type` was written (override files leave it unset).
    pub type_set: bool,
    pub parsing_mode: VariableParsingMode,
    pub validations: Vec<CheckRule>,
    pub sensitive: bool,
    pub sensitive_set: bool,
    pub ephemeral: bool,
    pub ephemeral_set: bool,
    pub nullable: bool,
    pub nullable_set: bool,
    /// OpenTofu's `const`: whether the variable may be used in static
    /// contexts (only enforced when set).
    pub is_const: bool,
    pub const_set: bool,
    pub deprecated: Option<String>,
    pub description_set: bool,
    /// The block header.
    pub decl_range: SourceRange,
}

impl Variable {
    pub fn required(&self) -> bool {
        self.default.is_none()
    }
}

#[derive(Clone, Debug)]
pub struct Local {
    pub name: String,
    pub expr: Expression,
    /// The whole `name = expr` argument.
    pub decl_range: SourceRange,
}

#[derive(Clone, Debug)]
pub struct Output {
    pub name: String,
    pub description: Option<String>,
    pub description_set: bool,
    pub expr: Option<Expression>,
    pub depends_on: Vec<StaticTraversal>,
    pub sensitive: bool,
    pub sensitive_set: bool,
    pub ephemeral: bool,
    pub ephemeral_set: bool,
    pub deprecated: Option<String>,
    pub preconditions: Vec<CheckRule>,
    pub decl_range: SourceRange,
}

/// A `validation`, `precondition`, `postcondition` or `assert` block.
#[derive(Clone, Debug)]
pub struct CheckRule {
    pub condition: Option<Expression>,
    pub error_message: Option<Expression>,
    pub decl_range: SourceRange,
}

#[derive(Clone, Debug)]
pub struct Resource {
    pub mode: ResourceMode,
    pub type_name: String,
    pub name: String,
    /// Everything that is not a meta-argument, for the resource type's
    /// schema.
    pub config: Body,
    pub count: Option<Expression>,
    pub for_each: Option<Expression>,
    /// OpenTofu's `lifecycle { enabled = ... }`.
    pub enabled: Option<Expression>,
    pub provider_config_ref: Option<ProviderConfigRef>,
    /// The provider this resource belongs to: from `provider`'s local name,
    /// or implied from the type name, through `required_providers`.
    pub provider: Option<ProviderFqn>,
    pub preconditions: Vec<CheckRule>,
    pub postconditions: Vec<CheckRule>,
    pub depends_on: Vec<StaticTraversal>,
    pub triggers_replacement: Vec<Expression>,
    /// Present for managed resources only.
    pub managed: Option<ManagedResource>,
    /// The `check` block a nested data resource belongs to.
    pub container: Option<String>,
    pub decl_range: SourceRange,
    pub type_range: SourceRange,
    /// Stands for the configuration `plan -generate-config-out` writes for
    /// an import block's target: its body is empty until the engine has
    /// imported the object and generated one from it.
    pub generated_for_import: bool,
}

impl Resource {
    /// `type.name`, `data.type.name` or `ephemeral.type.name`.
    pub fn address(&self) -> String {
        match self.mode {
            ResourceMode::Managed => format!("{}.{}", self.type_name, self.name),
            ResourceMode::Data => format!("data.{}.{}", self.type_name, self.name),
            ResourceMode::Ephemeral => format!("ephemeral.{}.{}", self.type_name, self.name),
        }
    }

    /// The provider local name implied by the type name (the part before
    /// the first underscore), OpenTofu's `ImpliedProvider`.
    pub fn implied_provider(&self) -> &str {
        self.type_name
            .split_once('_')
            .map(|(p, _)| p)
            .unwrap_or(&self.type_name)
    }

    /// The local provider configuration this resource uses: its `provider`
    /// argument, or the default configuration of its implied provider.
    pub fn provider_config_key(&self) -> String {
        match &self.provider_config_ref {
            Some(r) => r.config_key(),
            None => self.implied_provider().to_string(),
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct ManagedResource {
    pub connection: Option<Connection>,
    pub provisioners: Vec<Provisioner>,
    pub create_before_destroy: bool,
    pub create_before_destroy_set: bool,
    pub prevent_destroy: Option<Expression>,
    /// OpenTofu's `lifecycle { destroy = false }`.
    pub destroy: Option<Expression>,
    pub ignore_changes: Vec<StaticTraversal>,
    pub ignore_all_changes: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProvisionerWhen {
    Create,
    Destroy,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProvisionerOnFailure {
    Continue,
    Fail,
}

#[derive(Clone, Debug)]
pub struct Provisioner {
    pub type_name: String,
    pub config: Body,
    pub connection: Option<Connection>,
    pub when: ProvisionerWhen,
    pub on_failure: ProvisionerOnFailure,
    pub decl_range: SourceRange,
    pub type_range: SourceRange,
}

#[derive(Clone, Debug)]
pub struct Connection {
    pub config: Body,
    pub decl_range: SourceRange,
}

#[derive(Clone, Debug)]
pub struct Check {
    pub name: String,
    pub data_resource: Option<Resource>,
    pub asserts: Vec<CheckRule>,
    pub decl_range: SourceRange,
}

#[derive(Clone, Debug)]
pub struct ModuleCall {
    pub name: String,
    pub source: Option<Expression>,
    /// The source string, once static evaluation has read it.
    pub source_addr_raw: Option<String>,
    /// The parsed source, once static evaluation has read it.
    pub source_addr: Option<ModuleSource>,
    pub source_set: bool,
    /// The input variable arguments (everything that is not a
    /// meta-argument).
    pub config: Body,
    pub version_attr: Option<Attribute>,
    /// The version constraint, once static evaluation has read it.
    pub version: Option<VersionConstraint>,
    pub count: Option<Expression>,
    pub for_each: Option<Expression>,
    pub enabled: Option<Expression>,
    pub providers: Vec<PassedProviderConfig>,
    pub depends_on: Vec<StaticTraversal>,
    pub decl_range: SourceRange,
    pub name_range: SourceRange,
}

/// The address a `moved` block names: a module instance or a resource
/// (instance), relative to the module that declares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveEndpoint {
    Module(terrace_addrs::ModuleInstance),
    Resource(terrace_addrs::AbsResourceInstance),
}

#[derive(Clone, Debug)]
pub struct Moved {
    pub from: Option<MoveEndpoint>,
    pub from_range: Option<SourceRange>,
    pub to: Option<MoveEndpoint>,
    pub to_range: Option<SourceRange>,
    pub decl_range: SourceRange,
}

/// What a `removed` block names: a module or a resource.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RemoveEndpoint {
    Module(terrace_addrs::Module),
    Resource(terrace_addrs::ConfigResource),
}

#[derive(Clone, Debug)]
pub struct Removed {
    pub from: Option<RemoveEndpoint>,
    pub from_range: Option<SourceRange>,
    pub destroy: bool,
    pub destroy_set: bool,
    pub provisioners: Vec<Provisioner>,
    pub decl_range: SourceRange,
}

#[derive(Clone, Debug)]
pub struct Import {
    pub id: Option<Expression>,
    pub identity: Option<Expression>,
    /// The `to` address expression (instance keys may be dynamic).
    pub to: Option<Expression>,
    /// The module and resource `to` names, when it is well formed.
    pub static_to: Option<terrace_addrs::ConfigResource>,
    /// The whole instance address, when `to` has only constant keys.
    pub resolved_to: Option<terrace_addrs::AbsResourceInstance>,
    pub for_each: Option<Expression>,
    pub provider_config_ref: Option<ProviderConfigRef>,
    pub provider: Option<ProviderFqn>,
    pub decl_range: SourceRange,
    pub provider_decl_range: Option<SourceRange>,
}
