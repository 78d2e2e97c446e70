//! What a walk works on, gathered once before it starts: every resource
//! (in the configuration, or only in the state) with its schema and the
//! provider configuration it uses, and every provider configuration that
//! something uses, with its schema.

use crate::common::BodyRefs;
use crate::Context;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, OnceLock};
use terrace_addrs::{
    AbsProviderConfig, ConfigResource, Module, Provider as ProviderFqn, Resource as ResourceAddr,
    ResourceMode,
};
use terrace_config::expr::Expression;
use terrace_config::loader::Config;
use terrace_config::model::{Provider as ProviderBlock, Resource};
use terrace_config::provider_resolution::resolve_resource_providers;
use terrace_providers::{ProviderSchema, Schema};
use terrace_states::model::State;
use terrace_syntax::{Diagnostic, Diagnostics};
use terrace_value::Type;

pub(crate) struct ResourceInfo<'a> {
    pub addr: ConfigResource,
    /// The static module declaring it, when that module still exists.
    pub module: Option<&'a Config>,
    /// The block; `None` for a resource only the state knows.
    pub config: Option<&'a Resource>,
    pub schema: Option<Arc<Schema>>,
    pub ty: Type,
    pub provider: AbsProviderConfig,
    /// The provider instance key expression and the module it is written
    /// in.
    pub key_expr: Option<(Module, Expression)>,
    /// The references in the block's body, the same for every instance:
    /// found at the first instance that needs them.
    pub config_refs: OnceLock<BodyRefs>,
}

impl ResourceInfo<'_> {
    /// The references in the resource's configuration body against its
    /// schema; `None` for a resource without a block or a schema.
    pub fn config_references(&self) -> Option<&BodyRefs> {
        let (Some(r), Some(schema)) = (self.config, &self.schema) else {
            return None;
        };
        Some(
            self.config_refs
                .get_or_init(|| BodyRefs::of(&r.config, &schema.block)),
        )
    }

    /// The key of the resource's aggregate value within its module.
    pub fn local_key(&self) -> String {
        self.addr.resource.to_string()
    }
}

pub(crate) struct ProviderInfo<'a> {
    pub addr: AbsProviderConfig,
    pub config: Option<&'a ProviderBlock>,
    pub module: Option<&'a Config>,
    pub schema: Option<Arc<ProviderSchema>>,
}

pub(crate) struct Model<'a> {
    pub ctx: &'a Context,
    pub resources: BTreeMap<ConfigResource, ResourceInfo<'a>>,
    pub providers: BTreeMap<AbsProviderConfig, ProviderInfo<'a>>,
    /// Whether any resource's schema deprecates an attribute: references
    /// are checked for one only then.
    pub any_deprecated_attribute: bool,
}

pub(crate) fn addr_mode(mode: terrace_lang::references::ResourceMode) -> ResourceMode {
    match mode {
        terrace_lang::references::ResourceMode::Managed => ResourceMode::Managed,
        terrace_lang::references::ResourceMode::Data => ResourceMode::Data,
        terrace_lang::references::ResourceMode::Ephemeral => ResourceMode::Ephemeral,
    }
}

pub(crate) fn module_path(c: &Config) -> Module {
    Module::from_names(c.path.iter().map(String::as_str))
}

pub(crate) fn resource_addr(c: &Config, r: &Resource) -> ConfigResource {
    ResourceAddr::new(addr_mode(r.mode), r.type_name.as_str(), r.name.as_str())
        .in_module(module_path(c))
}

struct Schemas<'a> {
    ctx: &'a Context,
    cache: HashMap<ProviderFqn, Option<Arc<ProviderSchema>>>,
}

impl Schemas<'_> {
    fn get(&mut self, p: &ProviderFqn, diags: &mut Diagnostics) -> Option<Arc<ProviderSchema>> {
        if let Some(s) = self.cache.get(p) {
            return s.clone();
        }
        let s = match self.ctx.providers.schema(p) {
            Ok(s) => Some(s),
            Err(d) => {
                diags.extend(d);
                None
            }
        };
        self.cache.insert(p.clone(), s.clone());
        s
    }
}

fn resource_schema<'p>(ps: &'p ProviderSchema, addr: &ConfigResource) -> Option<&'p Schema> {
    match addr.resource.mode {
        ResourceMode::Managed => ps.resource_types.get(addr.resource.type_name.as_ref()),
        ResourceMode::Data => ps.data_sources.get(addr.resource.type_name.as_ref()),
        ResourceMode::Ephemeral => ps.ephemeral_resources.get(addr.resource.type_name.as_ref()),
    }
}

/// Gathers the model. `state` contributes the resources the configuration
/// no longer has.
pub(crate) fn build<'a>(ctx: &'a Context, state: Option<&State>) -> (Model<'a>, Diagnostics) {
    let mut diags = Diagnostics::new();
    let config: &'a Config = &ctx.config;
    let mut schemas = Schemas {
        ctx,
        cache: HashMap::new(),
    };
    let (resolved, rdiags) = resolve_resource_providers(config);
    diags.extend(rdiags);

    let mut resources = BTreeMap::new();
    let mut providers: BTreeMap<AbsProviderConfig, ProviderInfo<'a>> = BTreeMap::new();

    // Every provider block is a candidate; only the used ones are kept.
    let mut blocks: HashMap<AbsProviderConfig, (&'a ProviderBlock, &'a Config)> = HashMap::new();
    let mut all: Vec<&'a Config> = Vec::new();
    config.deep_each(&mut |c| all.push(c));
    for c in &all {
        let path = module_path(c);
        for p in c.module.provider_configs.values() {
            let Some(fqn) = c.module.provider_for_local_name(&p.name) else {
                continue;
            };
            let addr = AbsProviderConfig::new(path.clone(), fqn, p.alias.as_deref().map(Arc::from));
            blocks.insert(addr, (p, c));
        }
    }

    let use_provider = |addr: &AbsProviderConfig,
                        schemas: &mut Schemas<'a>,
                        diags: &mut Diagnostics,
                        providers: &mut BTreeMap<AbsProviderConfig, ProviderInfo<'a>>|
     -> Option<Arc<ProviderSchema>> {
        if let Some(info) = providers.get(addr) {
            return info.schema.clone();
        }
        let schema = schemas.get(&addr.provider, diags);
        let (config, module) = match blocks.get(addr) {
            Some((p, c)) => (Some(*p), Some(*c)),
            None => (None, config.descendant(&path_names(&addr.module))),
        };
        providers.insert(
            addr.clone(),
            ProviderInfo {
                addr: addr.clone(),
                config,
                module,
                schema: schema.clone(),
            },
        );
        schema
    };

    for c in &all {
        for r in c.module.all_resources() {
            let addr = resource_addr(c, r);
            let Some(res) = resolved.get(&addr.to_string()) else {
                continue;
            };
            let ps = use_provider(&res.config, &mut schemas, &mut diags, &mut providers);
            let schema = match &ps {
                Some(ps) => match resource_schema(ps, &addr) {
                    Some(s) => Some(Arc::new(s.clone())),
                    None => {
                        let (summary, what, known) = match addr.resource.mode {
                            ResourceMode::Data => {
                                ("Invalid data source", "data source", &ps.data_sources)
                            }
                            ResourceMode::Ephemeral => (
                                "Invalid ephemeral resource",
                                "ephemeral resource",
                                &ps.ephemeral_resources,
                            ),
                            _ => ("Invalid resource type", "resource type", &ps.resource_types),
                        };
                        let suggestion = terrace_lang::eval::suggest_name(
                            &r.type_name,
                            known.keys().map(String::as_str),
                        )
                        .map(|s| format!(" Did you mean {s:?}?"))
                        .unwrap_or_default();
                        diags.push(
                            Diagnostic::error(
                                summary,
                                format!(
                                    "The provider {} does not support {what} {:?}.{suggestion}",
                                    res.config.provider.for_display(),
                                    r.type_name
                                ),
                            )
                            .with_subject(r.type_range.clone()),
                        );
                        None
                    }
                },
                None => None,
            };
            let ty = schema
                .as_ref()
                .map(|s| s.implied_type())
                .unwrap_or(Type::Dynamic);
            resources.insert(
                addr.clone(),
                ResourceInfo {
                    addr,
                    module: Some(*c),
                    config: Some(r),
                    schema,
                    ty,
                    provider: res.config.clone(),
                    key_expr: res.key_expression.clone(),
                    config_refs: OnceLock::new(),
                },
            );
        }
    }

    if let Some(state) = state {
        for (abs, rs) in &state.resources {
            let addr = abs.config();
            if resources.contains_key(&addr) {
                continue;
            }
            let pconf = rs.provider.clone();
            let known = providers.contains_key(&pconf)
                || blocks.contains_key(&pconf)
                || (pconf.module.is_root() && pconf.alias.is_none());
            if !known {
                diags.push(Diagnostic::error(
                    "Provider configuration not present",
                    format!("To work with {abs} its original provider configuration at {pconf} is required, but it has been removed. This occurs when a provider configuration is removed while objects created by that provider still exist in the state. Re-add the provider configuration to destroy {abs}, after which you can remove the provider configuration again."),
                ));
                continue;
            }
            let ps = use_provider(&pconf, &mut schemas, &mut diags, &mut providers);
            let schema = ps
                .as_ref()
                .and_then(|ps| resource_schema(ps, &addr))
                .map(|s| Arc::new(s.clone()));
            let ty = schema
                .as_ref()
                .map(|s| s.implied_type())
                .unwrap_or(Type::Dynamic);
            resources.insert(
                addr.clone(),
                ResourceInfo {
                    module: config.descendant(&path_names(&addr.module)),
                    addr,
                    config: None,
                    schema,
                    ty,
                    provider: pconf,
                    key_expr: None,
                    config_refs: OnceLock::new(),
                },
            );
        }
    }

    let any_deprecated_attribute = resources.values().any(|info| {
        info.schema
            .as_ref()
            .is_some_and(|s| s.block.attributes.values().any(|a| a.deprecated))
    });
    (
        Model {
            ctx,
            resources,
            providers,
            any_deprecated_attribute,
        },
        diags,
    )
}

pub(crate) fn path_names(m: &Module) -> Vec<String> {
    m.names().iter().map(|n| n.to_string()).collect()
}
