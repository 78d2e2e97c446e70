//! The provider configuration rules over a loaded module tree (OpenTofu's
//! `validateProviderConfigs` and `resolveProviderTypes`): which provider
//! each local name stands for in each module, how configurations reach a
//! child module (inherited defaults, or exactly the `providers` map),
//! `configuration_aliases`, legacy modules with their own provider blocks,
//! type mismatches between caller and callee, and the provider-iteration
//! rules (instance keys only on the right side of a mapping,
//! only for a configuration with `for_each`, and required by one; the
//! "too similar" `for_each` warning).
//!
//! Diagnostics keep OpenTofu's summaries, details and subjects. Where
//! OpenTofu iterates Go maps (random order) this module iterates in name
//! or source order, so the output is deterministic.

use crate::body::BodySchema;
use crate::expr::{Expression, PRODUCT};
use crate::loader::{module_path_string, Config};
use crate::model::*;
use std::collections::{BTreeMap, BTreeSet};
use terrace_addrs::{parse_provider_part, Provider as ProviderFqn};
use terrace_lang::references::ResourceMode;
use terrace_lang::similarity::for_each_too_similar;
use terrace_syntax::{Diagnostic, Diagnostics, SourceRange};
use terrace_value::gostr::quote;

/// The provider each local name means in one module (OpenTofu's
/// `resolveProviderTypes` result): the `required_providers` entries, plus
/// `hashicorp/NAME` for every provider block whose name is not required
/// explicitly.
pub fn module_provider_types(module: &Module) -> BTreeMap<String, ProviderFqn> {
    let mut out: BTreeMap<String, ProviderFqn> = module
        .required_providers
        .providers
        .iter()
        .filter_map(|(name, rp)| rp.provider.clone().map(|p| (name.clone(), p)))
        .collect();
    for pc in module.provider_configs.values() {
        if out.contains_key(&pc.name) {
            continue;
        }
        if let Ok(p) = ProviderFqn::new_default(&pc.name) {
            out.insert(pc.name.clone(), p);
        }
    }
    out
}

/// Checks the provider configuration rules over the whole tree rooted at
/// `root` (OpenTofu runs this only when loading produced no errors).
pub fn validate_provider_configs(root: &Config) -> Diagnostics {
    let mut diags = Vec::new();
    validate_module(None, None, root, None, &mut diags);
    diags
}

/// A configuration's name in messages: `name` or `name.alias`.
fn provider_name(name: &str, alias: Option<&str>) -> String {
    match alias {
        Some(a) => format!("{name}.{a}"),
        None => name.to_string(),
    }
}

fn default_provider(name: &str) -> Option<ProviderFqn> {
    ProviderFqn::new_default(name).ok()
}

/// Whether a provider block configures anything: arguments or nested
/// blocks beyond the meta-arguments, or the deprecated `version`. Blocks
/// that configure nothing are OpenTofu's "proxy" configurations.
fn provider_block_is_configured(pc: &Provider) -> bool {
    let (_, diags) = pc.config.content(&BodySchema::new());
    terrace_syntax::diagnostic::has_errors(&diags) || pc.version.is_some()
}

/// Where the call that leads to a module forbids provider blocks in it:
/// its `count`, `for_each`, `enabled` or first `depends_on` entry.
fn no_provider_config_range(mc: &ModuleCall) -> Option<SourceRange> {
    if let Some(e) = &mc.count {
        return Some(e.range());
    }
    if let Some(e) = &mc.for_each {
        return Some(e.range());
    }
    if let Some(e) = &mc.enabled {
        return Some(e.range());
    }
    mc.depends_on.first().map(StaticTraversal::range)
}

fn source_order(r: &SourceRange) -> (String, u32) {
    (r.filename.clone(), r.start.byte)
}

/// OpenTofu's `ProviderConfigRef.InstanceValidation`: the instance key of
/// a reference must match whether the configuration it names uses
/// `for_each`.
pub fn instance_validation(
    r: &ProviderConfigRef,
    block_type: &str,
    is_instanced: bool,
    has_config: bool,
) -> Diagnostics {
    let summary = format!("Invalid {block_type} provider configuration");
    let mut diags = Vec::new();
    match &r.key_expression {
        Some(key) => {
            if r.alias.is_none() {
                diags.push(
                    Diagnostic::error(
                        summary,
                        "An instance key can be specified only for a provider configuration which has an alias and uses for_each.",
                    )
                    .with_subject(key.range()),
                );
            } else if !is_instanced {
                if !has_config {
                    diags.push(
                        Diagnostic::error(
                            summary,
                            format!(
                                "This module doesn't declare a provider {} block with alias = {}, which is required for use with for_each.",
                                quote(&r.name),
                                quote(r.alias.as_deref().unwrap_or_default())
                            ),
                        )
                        .with_subject(r.name_range.clone()),
                    );
                } else {
                    diags.push(
                        Diagnostic::error(
                            summary,
                            "An instance key can be specified only for a provider configuration that uses for_each.",
                        )
                        .with_subject(key.range()),
                    );
                }
            }
        }
        None if is_instanced => diags.push(
            Diagnostic::error(
                summary,
                "A reference to a provider configuration which uses for_each requires an instance key. Passing a collection of provider instances into a child module is not allowed.",
            )
            .with_subject(r.name_range.clone()),
        ),
        None => {}
    }
    diags
}

/// The "too similar" warning: a resource's or module's `for_each` built from
/// the same source as the `for_each` of the provider configuration it
/// selects instances of. Only native-syntax expressions are compared, as
/// OpenTofu compares HCL syntax trees.
fn too_similar_warning(
    block_type: &str,
    target: &str,
    source_for_each: Option<&Expression>,
    provider_for_each: Option<&Expression>,
) -> Option<Diagnostic> {
    let (source, provider) = (source_for_each?, provider_for_each?);
    let (s, p) = (source.native_expr()?, provider.native_expr()?);
    if !for_each_too_similar(p, s) {
        return None;
    }
    Some(
        Diagnostic::warning(
            format!("Provider configuration for_each matches {block_type}"),
            format!(
                "This provider configuration uses the same for_each expression as a {block_type}, which means that subsequent removal of elements from this collection would cause a planning error.\n\n{PRODUCT} relies on a provider instance to destroy resource instances that are associated with it, and so the provider instance must outlive all of its resource instances by at least one plan/apply round. For removal of instances to succeed in future you must structure the configuration so that the provider block's for_each expression can produce a superset of the instances of the resources associated with the provider configuration. Refer to the {PRODUCT} documentation for specific suggestions.\n\nTo destroy this object before removing the provider configuration, consider first performing a targeted destroy:\n    {PRODUCT} apply -destroy {target}"
            ),
        )
        .with_subject(source.range()),
    )
}

/// What the provider blocks and requirements of one module declare.
#[derive(Default)]
struct Declared<'a> {
    /// Provider blocks that configure something, by `name[.alias]`.
    configured: BTreeMap<String, SourceRange>,
    /// Provider blocks that configure nothing ("proxy" blocks).
    empty_configs: BTreeMap<String, SourceRange>,
    /// The `for_each` of each provider block, by `name[.alias]`.
    instanced: BTreeMap<String, Option<&'a Expression>>,
    /// `configuration_aliases` entries, by `name.alias`.
    config_aliases: BTreeMap<String, ProviderFqn>,
    /// `configuration_collections` entries, by `name.alias`: passed-in
    /// collections of provider instances, used with an instance key as a
    /// configuration with `for_each` is.
    collections: BTreeSet<String>,
    /// `required_providers` entries.
    local_names: BTreeMap<String, ProviderFqn>,
}

fn declared<'a>(module: &'a Module, diags: &mut Diagnostics) -> Declared<'a> {
    let mut d = Declared::default();
    for (name, pc) in &module.provider_configs {
        if provider_block_is_configured(pc) {
            d.configured.insert(name.clone(), pc.decl_range.clone());
        } else {
            d.empty_configs.insert(name.clone(), pc.decl_range.clone());
        }
        d.instanced.insert(name.clone(), pc.for_each.as_ref());
    }

    // In source order, so "previously required" names the earlier entry.
    let mut reqs: Vec<&RequiredProvider> = module.required_providers.providers.values().collect();
    reqs.sort_by_key(|r| source_order(&r.decl_range));
    let mut local_types: BTreeSet<ProviderFqn> = BTreeSet::new();
    for req in reqs {
        let Some(ty) = &req.provider else { continue };
        if local_types.contains(ty) {
            let prev = d
                .local_names
                .iter()
                .filter(|(_, t)| *t == ty)
                .map(|(n, _)| n.clone())
                .next_back()
                .unwrap_or_default();
            diags.push(
                Diagnostic::warning(
                    "Duplicate required provider",
                    format!(
                        "Provider {} with the local name {} was previously required as {}. A provider can only be required once within required_providers.",
                        ty.for_display(),
                        quote(&req.name),
                        quote(&prev)
                    ),
                )
                .with_subject(req.decl_range.clone()),
            );
        } else if ty.is_default() {
            // A provider block named after the type while required_providers
            // gives the same provider another name.
            let implied = ty.type_name();
            if req.name != implied
                && module
                    .provider_configs
                    .values()
                    .any(|pc| pc.name == implied)
            {
                diags.push(
                    Diagnostic::warning(
                        "Duplicate required provider",
                        format!(
                            "Provider {} with the local name {} was implicitly required via a configuration block as {}. The provider configuration block name must match the name used in required_providers.",
                            ty.for_display(),
                            quote(&req.name),
                            quote(implied)
                        ),
                    )
                    .with_subject(req.decl_range.clone()),
                );
            }
        }
        local_types.insert(ty.clone());
        d.local_names.insert(req.name.clone(), ty.clone());
        for collection in &req.collections {
            d.collections.insert(provider_name(
                &collection.local_name,
                collection.alias.as_deref(),
            ));
        }
        for alias in &req.aliases {
            d.config_aliases.insert(
                provider_name(&alias.local_name, alias.alias.as_deref()),
                ty.clone(),
            );
        }
    }
    d
}

/// Resources that rely on the provider implied by their type while
/// `required_providers` gives that provider another local name.
fn check_implied_provider_names(module: &Module, d: &Declared, diags: &mut Diagnostics) {
    for r in module.all_resources() {
        if r.provider_config_ref.is_some() {
            continue;
        }
        let local_name = r.implied_provider();
        if let Err(err) = parse_provider_part(local_name) {
            diags.push(
                Diagnostic::error(
                    "Invalid provider local name",
                    format!(
                        "{} is an invalid implied provider local name: {err}",
                        quote(local_name)
                    ),
                )
                .with_subject(r.decl_range.clone()),
            );
            continue;
        }
        if d.local_names.contains_key(local_name) {
            continue;
        }
        let Ok(implied) = ProviderFqn::implied_for_unqualified_type(local_name) else {
            continue;
        };
        for (prev, ty) in &d.local_names {
            if *ty == implied {
                diags.push(
                    Diagnostic::warning(
                        "Duplicate required provider",
                        format!(
                            "Provider {} was implicitly required via resource {}, but listed in required_providers as {}. Either the local name in required_providers must match the resource name, or the {} provider must be assigned within the resource block.",
                            quote(&implied.to_string()),
                            quote(&r.address()),
                            quote(prev),
                            quote(prev)
                        ),
                    )
                    .with_subject(r.decl_range.clone()),
                );
            }
        }
    }
}

/// `module.a` for messages, or "the root module".
fn module_text(path: &[String]) -> String {
    if path.is_empty() {
        "the root module".to_string()
    } else {
        module_path_string(path)
    }
}

fn validate_module(
    parent_call: Option<&ModuleCall>,
    parent: Option<&Config>,
    cfg: &Config,
    no_config_range: Option<SourceRange>,
    diags: &mut Diagnostics,
) {
    let module = &cfg.module;
    for (name, child) in &cfg.children {
        let Some(mc) = module.module_calls.get(name) else {
            continue;
        };
        let child_range = no_provider_config_range(mc).or_else(|| no_config_range.clone());
        validate_module(Some(mc), Some(cfg), child, child_range, diags);
    }

    let d = declared(module, diags);
    check_implied_provider_names(module, &d, diags);

    let mut passed_in: BTreeMap<String, &PassedProviderConfig> = BTreeMap::new();
    if let Some(call) = parent_call {
        for passed in &call.providers {
            passed_in.insert(passed.in_child.config_key(), passed);
        }
    }

    let this_text = module_text(&cfg.path);
    let parent_text = module_text(cfg.path.split_last().map(|(_, p)| p).unwrap_or(&[]));

    check_passed_instances(cfg, &d, diags);
    check_resource_instances(cfg, &d, diags);
    check_passed_defaults(
        cfg,
        parent_call,
        &d,
        &passed_in,
        &this_text,
        &parent_text,
        diags,
    );

    if cfg.path.is_empty() {
        return;
    }
    let (Some(call), Some(parent)) = (parent_call, parent) else {
        return;
    };

    if let Some(range) = &no_config_range {
        if !d.configured.is_empty() {
            // Reported at the count/for_each/enabled/depends_on of the call:
            // its author is the one who can act on it.
            let source = cfg
                .source_addr
                .as_ref()
                .map(|s| s.to_string())
                .or_else(|| cfg.source_addr_raw.clone())
                .unwrap_or_default();
            diags.push(
                Diagnostic::error(
                    "Module is incompatible with count, for_each, enabled and depends_on",
                    format!(
                        "The module at {} is a legacy module which contains its own local provider configurations, and so calls to it may not use the count, for_each, enabled or depends_on arguments.\n\nIf you also control the module {}, consider updating this module to instead expect provider configurations to be passed by its caller.",
                        cfg.path_string(),
                        quote(&source)
                    ),
                )
                .with_subject(range.clone()),
            );
        }
    }

    for name in d.configured.keys() {
        if let Some(passed) = passed_in.get(name) {
            diags.push(
                Diagnostic::error(
                    "Cannot override provider configuration",
                    format!(
                        "The configuration of {this_text} has its own local configuration for {name}, and so it cannot accept an overridden configuration provided by {parent_text}."
                    ),
                )
                .with_subject(passed.in_child.name_range.clone()),
            );
        }
    }

    for (name, ty) in &d.config_aliases {
        if d.configured.contains_key(name) || passed_in.contains_key(name) {
            continue;
        }
        diags.push(
            Diagnostic::error(
                "Missing required provider configuration",
                format!(
                    "The child module requires an additional configuration for provider {}, with the local name {}.\n\nRefer to the module's documentation to understand the intended purpose of this additional provider configuration, and then add an entry for {name} in the \"providers\" meta-argument in the module block to choose which provider configuration the module should use for that purpose.",
                    ty.for_display(),
                    quote(name)
                ),
            )
            .with_subject(call.decl_range.clone()),
        );
    }

    check_passed_types(cfg, parent, &d, &passed_in, &this_text, &parent_text, diags);
    redundant_empty_configs(&d, &this_text, diags);
}

/// The instance-key rules for the right side of every `providers` entry
/// of this module's calls, the left side never having a key, and the "too
/// similar" warning for module calls.
fn check_passed_instances(cfg: &Config, d: &Declared, diags: &mut Diagnostics) {
    for mc in cfg.module.module_calls.values() {
        for passed in &mc.providers {
            if let Some(key) = &passed.in_child.key_expression {
                diags.push(
                    Diagnostic::error(
                        "Invalid module provider configuration",
                        "Instance keys are not allowed on the left side of a provider configuration assignment.",
                    )
                    .with_subject(key.range()),
                );
            }
            let pn = passed.in_parent.config_key();
            let has_config = d.configured.contains_key(&pn);
            let instance_expr = d.instanced.get(&pn).copied().flatten();
            let parent_is_collection = instance_expr.is_some() || d.collections.contains(&pn);
            let child_wants_collection = cfg.children.get(&mc.name).is_some_and(|child| {
                let wanted = passed.in_child.config_key();
                child
                    .module
                    .required_providers
                    .providers
                    .values()
                    .flat_map(|rp| &rp.collections)
                    .any(|c| provider_name(&c.local_name, c.alias.as_deref()) == wanted)
            });
            if child_wants_collection {
                diags.extend(collection_validation(passed, parent_is_collection));
                continue;
            }
            diags.extend(instance_validation(
                &passed.in_parent,
                "module",
                parent_is_collection,
                has_config,
            ));
            if passed.in_parent.key_expression.is_some() {
                let mut path = cfg.path.clone();
                path.push(mc.name.clone());
                let target = format!("-target={}", module_path_string(&path));
                diags.extend(too_similar_warning(
                    "module",
                    &target,
                    mc.for_each.as_ref(),
                    instance_expr,
                ));
            }
        }
    }
}

/// A `providers` entry whose child side is declared in
/// `configuration_collections`: the whole collection is passed, so the
/// parent side names a configuration with `for_each` (or a collection
/// passed in from further up) and no instance key; each resource in the
/// child picks its instance with its own key.
fn collection_validation(passed: &PassedProviderConfig, parent_is_collection: bool) -> Diagnostics {
    let summary = "Invalid module provider configuration";
    let child = provider_name(&passed.in_child.name, passed.in_child.alias.as_deref());
    let parent = provider_name(&passed.in_parent.name, passed.in_parent.alias.as_deref());
    if let Some(key) = &passed.in_parent.key_expression {
        return vec![Diagnostic::error(
            summary,
            format!("The module declares {child} in configuration_collections: it takes every instance of a provider configuration with for_each, and each of its resources chooses one by its own instance key. Pass the whole configuration, {parent}, without an instance key."),
        )
        .with_subject(key.range())];
    }
    if !parent_is_collection {
        return vec![Diagnostic::error(
            summary,
            format!("The module declares {child} in configuration_collections, so it needs a collection of provider instances, but {parent} is a single provider configuration. Pass a provider configuration that uses for_each, or a collection passed into this module."),
        )
        .with_subject(passed.in_parent.name_range.clone())];
    }
    Vec::new()
}

/// The instance-key rules for every resource's `provider` argument, and
/// the "too similar" warning for managed resources.
fn check_resource_instances(cfg: &Config, d: &Declared, diags: &mut Diagnostics) {
    for r in cfg.module.all_resources() {
        let Some(pref) = &r.provider_config_ref else {
            continue;
        };
        let pn = pref.config_key();
        let has_config = d.configured.contains_key(&pn);
        let instance_expr = d.instanced.get(&pn).copied().flatten();
        diags.extend(instance_validation(
            pref,
            "resource",
            instance_expr.is_some() || d.collections.contains(&pn),
            has_config,
        ));
        if pref.key_expression.is_some() && r.mode == ResourceMode::Managed {
            let mut addr = format!("{}.{}", r.type_name, r.name);
            if !cfg.path.is_empty() {
                addr = format!("{}.{addr}", cfg.path_string());
            }
            diags.extend(too_similar_warning(
                "resource",
                &format!("-target={addr}"),
                r.for_each.as_ref(),
                instance_expr,
            ));
        }
    }
}

/// Default (unaliased) configurations passed to this module's calls must
/// exist here: declared, configured, or passed in from above.
fn check_passed_defaults(
    cfg: &Config,
    parent_call: Option<&ModuleCall>,
    d: &Declared,
    passed_in: &BTreeMap<String, &PassedProviderConfig>,
    this_text: &str,
    parent_text: &str,
    diags: &mut Diagnostics,
) {
    for mc in cfg.module.module_calls.values() {
        for passed in &mc.providers {
            // Aliased configurations are never inherited; the child module
            // checks them.
            if passed.in_parent.alias.is_some() {
                continue;
            }
            let name = passed.in_parent.to_string();
            let conf_ok = d.configured.contains_key(&name);
            let local_ok = d.local_names.contains_key(&name);
            let passed_ok = passed_in.contains_key(&name);
            let Some(default_addr) = default_provider(&name) else {
                continue;
            };
            if !conf_ok && !local_ok {
                diags.push(
                    Diagnostic::warning(
                        "Reference to undefined provider",
                        format!(
                            "There is no explicit declaration for local provider name {} in {this_text}, so {PRODUCT} is assuming you mean to pass a configuration for provider {}.\n\nTo clarify your intent and silence this warning, add to {parent_text} a required_providers entry named {} with source = {}, or a different source address if appropriate.",
                            quote(&name),
                            quote(&default_addr.for_display()),
                            quote(&name),
                            quote(&default_addr.for_display())
                        ),
                    )
                    .with_subject(passed.in_parent.name_range.clone()),
                );
                continue;
            }
            if !cfg.path.is_empty() && !conf_ok && !passed_ok {
                let Some(call) = parent_call else { continue };
                diags.push(
                    Diagnostic::warning(
                        "Missing required provider configuration",
                        format!(
                            "The configuration for {this_text} expects to inherit a configuration for provider {} with local name {}, but {parent_text} doesn't pass a configuration under that name.\n\nTo satisfy this requirement, add an entry for {} to the \"providers\" argument in the module {} block.",
                            default_addr.for_display(),
                            quote(&name),
                            quote(&name),
                            quote(&call.name)
                        ),
                    )
                    .with_subject(call.decl_range.clone()),
                );
            }
        }
    }
}

/// Every configuration passed into this module must be one it declares,
/// and of the provider the caller's name stands for.
fn check_passed_types(
    cfg: &Config,
    parent: &Config,
    d: &Declared,
    passed_in: &BTreeMap<String, &PassedProviderConfig>,
    this_text: &str,
    parent_text: &str,
    diags: &mut Diagnostics,
) {
    let child_types = module_provider_types(&cfg.module);
    let parent_types = module_provider_types(&parent.module);
    for (name, passed) in passed_in {
        let child_ty = child_types
            .get(&passed.in_child.name)
            .cloned()
            .or_else(|| default_provider(&passed.in_child.name));
        let Some(mut provider) = child_ty else {
            continue;
        };
        let local = d.local_names.get(name);
        if let Some(t) = local {
            provider = t.clone();
        }
        let alias = d.config_aliases.get(name);
        if let Some(t) = alias {
            provider = t.clone();
        }
        let empty = d.empty_configs.contains_key(name);
        if local.is_none() && alias.is_none() && !empty {
            if provider.is_default() {
                diags.push(
                    Diagnostic::warning(
                        "Reference to undefined provider",
                        format!(
                            "There is no explicit declaration for local provider name {} in {this_text}, so {PRODUCT} is assuming you mean to pass a configuration for {}.\n\nIf you also control the child module, add a required_providers entry named {} with the source address {}.",
                            quote(name),
                            quote(&provider.for_display()),
                            quote(name),
                            quote(&provider.for_display())
                        ),
                    )
                    .with_subject(passed.in_child.name_range.clone()),
                );
            } else {
                diags.push(
                    Diagnostic::error(
                        "Reference to undefined provider",
                        format!(
                            "The child module does not declare any provider requirement with the local name {}.\n\nIf you also control the child module, you can add a required_providers entry named {} with the source address {} to accept this provider configuration.",
                            quote(name),
                            quote(name),
                            quote(&provider.for_display())
                        ),
                    )
                    .with_subject(passed.in_child.name_range.clone()),
                );
            }
        }

        let parent_ty = parent_types
            .get(&passed.in_parent.name)
            .cloned()
            .or_else(|| default_provider(&passed.in_parent.name));
        // OpenTofu looks the child-side name up in the caller's
        // requirements here, and so does terrace.
        let parent_ty = parent
            .module
            .required_providers
            .providers
            .get(name)
            .and_then(|rp| rp.provider.clone())
            .or(parent_ty);
        let Some(parent_ty) = parent_ty else { continue };
        if provider == parent_ty {
            continue;
        }
        let other_local_name = d
            .local_names
            .iter()
            .find(|(_, t)| **t == parent_ty)
            .map(|(n, _)| n.clone());
        match other_local_name {
            Some(other) => diags.push(
                Diagnostic::error(
                    "Provider type mismatch",
                    format!(
                        "The assigned configuration is for provider {}, but local name {} in {parent_text} represents {}.\n\nTo pass this configuration to the child module, use the local name {} instead.",
                        quote(&provider.for_display()),
                        quote(&passed.in_child.name),
                        quote(&parent_ty.for_display()),
                        quote(&other)
                    ),
                )
                .with_subject(passed.in_child.name_range.clone()),
            ),
            None => diags.push(
                Diagnostic::error(
                    "Provider type mismatch",
                    format!(
                        "The local name {} in {parent_text} represents provider {}, but {} in {this_text} represents {}.\n\nEach provider has its own distinct configuration schema and provider types, so this module's {} can be assigned only a configuration for {}, which is not required by {this_text}.",
                        quote(&passed.in_parent.to_string()),
                        quote(&parent_ty.for_display()),
                        quote(&passed.in_child.to_string()),
                        quote(&provider.for_display()),
                        quote(&passed.in_child.to_string()),
                        provider.for_display()
                    ),
                )
                .with_subject(passed.in_parent.name_range.clone()),
            ),
        }
    }
}

/// One warning per provider local name for the empty ("proxy") provider
/// blocks of a child module, suggesting the `required_providers` entry
/// that replaces them.
fn redundant_empty_configs(d: &Declared, this_text: &str, diags: &mut Diagnostics) {
    struct Suggestion {
        source: ProviderFqn,
        ranges: Vec<SourceRange>,
        configs: Vec<String>,
        aliases: usize,
    }
    let mut suggestions: BTreeMap<String, Suggestion> = BTreeMap::new();
    for (name, range) in &d.empty_configs {
        let local = name.split_once('.').map(|(l, _)| l).unwrap_or(name);
        let Some(source) = d
            .local_names
            .get(name)
            .cloned()
            .or_else(|| default_provider(local))
        else {
            continue;
        };
        let s = suggestions
            .entry(local.to_string())
            .or_insert_with(|| Suggestion {
                source,
                ranges: Vec::new(),
                configs: Vec::new(),
                aliases: 0,
            });
        if local != name {
            s.aliases += 1;
        }
        s.configs.push(name.clone());
        s.ranges.push(range.clone());
    }
    for (name, mut s) in suggestions {
        let mut detail = format!(
            "Earlier versions of {PRODUCT} used empty provider blocks (\"proxy provider configurations\") for child modules to declare their need to be passed a provider configuration by their callers. That approach was ambiguous and is now deprecated.\n\nIf you control this module, you can migrate to the new declaration syntax by removing all of the empty provider {} blocks and then adding or updating an entry like the following to the required_providers block of {this_text}:\n",
            quote(&name)
        );
        detail.push_str(&format!("    {name} = {{\n"));
        detail.push_str(&format!(
            "      source = {}\n",
            quote(&s.source.for_display())
        ));
        if s.aliases > 0 {
            s.configs.sort();
            detail.push_str("      configuration_aliases = [\n");
            for c in &s.configs {
                detail.push_str(&format!("        {c},\n"));
            }
            detail.push_str("      ]\n");
        }
        detail.push_str("    }");
        // The range that sorts first as text, as OpenTofu picks it.
        s.ranges.sort_by_key(|r| r.to_string());
        let Some(first) = s.ranges.first() else {
            continue;
        };
        diags.push(
            Diagnostic::warning("Redundant empty provider block", detail)
                .with_subject(first.clone()),
        );
    }
}

/// The provider types of one test file's provider blocks and of each run
/// block's `providers` entries (OpenTofu's `resolveProviderTypesForTests`):
/// a test provider takes the type its name has in the first run that uses
/// it, and the default type for its name when no run does.
struct TestTypes {
    /// By provider local name (aliases share their name's type).
    providers: BTreeMap<String, ProviderFqn>,
    /// By run index, the (child, parent) types of each `providers` entry.
    passed: BTreeMap<usize, Vec<PassedTypes>>,
}

/// The (child, parent) provider types of one `providers` entry.
type PassedTypes = (Option<ProviderFqn>, Option<ProviderFqn>);

fn resolve_test_types(
    main_types: &BTreeMap<String, ProviderFqn>,
    file: &crate::testfile::TestFile,
) -> TestTypes {
    let names: BTreeSet<&str> = file.providers.values().map(|p| p.name.as_str()).collect();
    let mut matched: BTreeMap<String, ProviderFqn> = BTreeMap::new();
    let mut passed = BTreeMap::new();
    for (i, run) in file.runs.iter().enumerate() {
        let run_types;
        let types = match &run.config_under_test {
            Some(c) => {
                run_types = module_provider_types(&c.module);
                &run_types
            }
            None => main_types,
        };
        if run.providers.is_empty() {
            for (name, ty) in types {
                if !matched.contains_key(name) && names.contains(name.as_str()) {
                    matched.insert(name.clone(), ty.clone());
                }
            }
            continue;
        }
        let mut entries = Vec::new();
        for p in &run.providers {
            let child = types
                .get(&p.in_child.name)
                .cloned()
                .or_else(|| default_provider(&p.in_child.name));
            let parent = match matched.get(&p.in_parent.name) {
                Some(t) => Some(t.clone()),
                None => {
                    if let (Some(c), true) = (&child, names.contains(p.in_parent.name.as_str())) {
                        matched.insert(p.in_parent.name.clone(), c.clone());
                    }
                    child.clone()
                }
            };
            entries.push((child, parent));
        }
        passed.insert(i, entries);
    }
    for name in names {
        if !matched.contains_key(name) {
            if let Some(t) = default_provider(name) {
                matched.insert(name.to_string(), t);
            }
        }
    }
    TestTypes {
        providers: matched,
        passed,
    }
}

/// The provider rules for test files (OpenTofu's
/// `validateProviderConfigsForTests`): run blocks against the module under
/// test must use test providers of the types the module gives their names;
/// run blocks with a module of their own have that module tree checked as
/// a root.
pub fn validate_test_provider_configs(
    config: &Config,
    tests: &[crate::testfile::TestFile],
) -> Diagnostics {
    let mut diags = Vec::new();
    let main_types = module_provider_types(&config.module);
    for file in tests {
        diags.extend(test_provider_instances(config, file));
        let types = resolve_test_types(&main_types, file);
        let test_type = |p: &Provider| {
            types
                .providers
                .get(&p.name)
                .cloned()
                .or_else(|| default_provider(&p.name))
        };
        let name = &file.name;
        for (i, run) in file.runs.iter().enumerate() {
            if let Some(cut) = &run.config_under_test {
                validate_module(None, None, cut, None, &mut diags);
                continue;
            }
            if !run.providers.is_empty() {
                let entries = types.passed.get(&i).cloned().unwrap_or_default();
                for (p, (child, parent)) in run.providers.iter().zip(entries) {
                    let parent = parent.or_else(|| default_provider(&p.in_parent.name));
                    let child = child.or_else(|| default_provider(&p.in_child.name));
                    let (Some(parent), Some(child)) = (parent, child) else {
                        continue;
                    };
                    if child != parent {
                        diags.push(
                            Diagnostic::error(
                                "Provider type mismatch",
                                format!(
                                    "The local name {} in {name} represents provider {}, but {} in the root module represents {}.\n\nThis means the provider definition for {} within {name}, or other provider definitions with the same name, have been referenced by multiple run blocks and assigned to different provider types.",
                                    quote(&p.in_parent.name),
                                    quote(&parent.to_string()),
                                    quote(&p.in_child.name),
                                    quote(&child.to_string()),
                                    quote(&p.in_parent.name)
                                ),
                            )
                            .with_subject(p.in_parent.name_range.clone()),
                        );
                    }
                }
                continue;
            }
            let mismatch = |provider: &Provider, required_as: &str, required: &ProviderFqn| {
                let ty = test_type(provider)?;
                if ty == *required {
                    return None;
                }
                let key = provider.module_unique_key();
                Some(
                    Diagnostic::error(
                        "Provider type mismatch",
                        format!(
                            "The provider {} in {name} represents provider {}, but {} in the root module represents {}.\n\nThis means the provider definition for {} within {name}, or other provider definitions with the same name, have been referenced by multiple run blocks and assigned to different provider types.",
                            quote(&key),
                            quote(&ty.to_string()),
                            quote(required_as),
                            quote(&required.to_string()),
                            quote(&key)
                        ),
                    )
                    .with_subject(provider.decl_range.clone()),
                )
            };
            let mut reqs: Vec<&RequiredProvider> = config
                .module
                .required_providers
                .providers
                .values()
                .collect();
            reqs.sort_by_key(|r| source_order(&r.decl_range));
            for req in reqs {
                let Some(required) = &req.provider else {
                    continue;
                };
                if let Some(p) = file.providers.get(&req.name) {
                    diags.extend(mismatch(p, &req.name, required));
                }
                for alias in &req.aliases {
                    let key = alias.to_string();
                    if let Some(p) = file.providers.get(&key) {
                        diags.extend(mismatch(p, &key, required));
                    }
                }
            }
            for pc in config.module.provider_configs.values() {
                let key = pc.module_unique_key();
                let Some(tp) = file.providers.get(&key) else {
                    continue;
                };
                let (Some(ty), Some(tp_ty)) = (main_types.get(&pc.name), test_type(tp)) else {
                    continue;
                };
                if *ty != tp_ty {
                    diags.push(
                        Diagnostic::error(
                            "Provider type mismatch",
                            format!(
                                "The provider {} in {name} represents provider {}, but {} in the root module represents {}.\n\nThis means the provider definition for {} within {name} has been referenced by multiple run blocks and assigned to different provider types.",
                                quote(&key),
                                quote(&tp_ty.to_string()),
                                quote(&key),
                                quote(&ty.to_string()),
                                quote(&key)
                            ),
                        )
                        .with_subject(tp.decl_range.clone()),
                    );
                }
            }
        }
    }
    diags
}

/// Where a test file's `provider` or `mock_provider` block stands in for
/// something of the module under test.
enum SubstituteFor<'c> {
    /// The module's own `provider` block with the same name and alias.
    ProviderBlock(&'c Provider),
    /// A `configuration_aliases` entry: a configuration the module's
    /// caller passes in.
    ConfigurationAlias,
    /// The implied empty default configuration of a provider the module
    /// uses without a `provider` block.
    ImpliedDefault,
    /// Nothing: a configuration only run blocks' `providers` maps use.
    TestOnly,
}

fn substitute_for<'c>(config: &'c Config, key: &str, name: &str) -> SubstituteFor<'c> {
    let module = &config.module;
    if let Some(p) = module.provider_configs.get(key) {
        return SubstituteFor::ProviderBlock(p);
    }
    let aliased = module
        .required_providers
        .providers
        .values()
        .any(|r| r.aliases.iter().any(|a| a.to_string() == key));
    if aliased {
        return SubstituteFor::ConfigurationAlias;
    }
    if key == name
        && (module_provider_types(module).contains_key(name) || uses_default_config(config, name))
    {
        return SubstituteFor::ImpliedDefault;
    }
    SubstituteFor::TestOnly
}

/// Whether a resource of the tree uses the default configuration of
/// provider `name` without the module declaring the provider: a
/// `null_resource` implies `null`'s, and child modules without their own
/// configuration inherit the root's.
fn uses_default_config(config: &Config, name: &str) -> bool {
    config
        .module
        .all_resources()
        .any(|r| r.provider_config_key() == name)
        || config
            .children
            .values()
            .any(|child| uses_default_config(child, name))
}

/// Whether a test file's provider configuration `key` (of provider local
/// name `name`) stands in for nothing of the module under test, so that
/// only run blocks' `providers` maps use it.
pub fn is_test_only_provider(config: &Config, key: &str, name: &str) -> bool {
    matches!(substitute_for(config, key, name), SubstituteFor::TestOnly)
}

/// The rules for provider instances in a test file: a test's `provider`
/// or `mock_provider` block has `for_each` exactly when the module's block
/// it substitutes for has it; substitutes for passed-in configurations and
/// test-only configurations never have it; a run block's `providers` map
/// never names an instance, and so never names a configuration with
/// `for_each`.
fn test_provider_instances(config: &Config, file: &crate::testfile::TestFile) -> Diagnostics {
    let mut diags = Vec::new();
    let name = &file.name;
    for (key, p) in &file.providers {
        let block = if file.mocked.contains(key) {
            "mock_provider"
        } else {
            "provider"
        };
        let subject = p
            .for_each
            .as_ref()
            .map(|e| e.range())
            .unwrap_or_else(|| p.decl_range.clone());
        match (substitute_for(config, key, &p.name), &p.for_each) {
            (SubstituteFor::ProviderBlock(module_block), for_each) => {
                match (module_block.for_each.is_some(), for_each.is_some()) {
                    (true, false) => diags.push(
                        Diagnostic::error(
                            "Missing for_each in provider substitute",
                            format!(
                                "The {block} block for {} in {name} substitutes for the module's provider configuration declared at {}, which uses for_each, so it must also have a for_each argument.",
                                quote(key),
                                module_block.decl_range
                            ),
                        )
                        .with_subject(p.decl_range.clone()),
                    ),
                    (false, true) => diags.push(
                        Diagnostic::error(
                            "Unexpected for_each in provider substitute",
                            format!(
                                "The {block} block for {} in {name} substitutes for the module's provider configuration declared at {}, which does not use for_each, so it must not have a for_each argument either.",
                                quote(key),
                                module_block.decl_range
                            ),
                        )
                        .with_subject(subject),
                    ),
                    _ => {}
                }
            }
            (SubstituteFor::ConfigurationAlias, Some(_)) => diags.push(
                Diagnostic::error(
                    "Unexpected for_each in provider substitute",
                    format!(
                        "The {block} block for {} in {name} substitutes for a provider configuration that the module under test expects its caller to pass in (configuration_aliases). Collections of provider instances cannot be passed into a module, so it must not have a for_each argument.",
                        quote(key)
                    ),
                )
                .with_subject(subject),
            ),
            (SubstituteFor::TestOnly, Some(_)) => diags.push(
                Diagnostic::error(
                    "Unexpected for_each in test-only provider configuration",
                    format!(
                        "The {block} block for {} in {name} does not substitute for any provider configuration of the module under test, so it can only be used through a run block's providers argument, which cannot select provider instances. Test-only provider configurations must not have a for_each argument.",
                        quote(key)
                    ),
                )
                .with_subject(subject),
            ),
            _ => {}
        }
    }
    for run in &file.runs {
        for passed in &run.providers {
            for side in [&passed.in_child, &passed.in_parent] {
                if let Some(key) = &side.key_expression {
                    diags.push(
                        Diagnostic::error(
                            "Invalid run block provider configuration",
                            "Instance keys are not allowed in a run block's providers argument: a run block cannot select one instance of a provider configuration.",
                        )
                        .with_subject(key.range()),
                    );
                }
            }
            let parent = passed.in_parent.config_key();
            let instanced = file
                .providers
                .get(&parent)
                .is_some_and(|p| p.for_each.is_some());
            if instanced && passed.in_parent.key_expression.is_none() {
                diags.push(
                    Diagnostic::error(
                        "Invalid run block provider configuration",
                        format!(
                            "The provider configuration {} in {name} uses for_each, so a reference to it requires an instance key, and a run block's providers argument cannot include one. Refer to a provider configuration without for_each instead.",
                            quote(&parent)
                        ),
                    )
                    .with_subject(passed.in_parent.name_range.clone()),
                );
            }
        }
    }
    diags
}

/// Every provider a configuration needs, with the version constraints
/// written for it (OpenTofu's `ProviderRequirements`): `required_providers`
/// entries, providers implied by resources, import blocks and provider
/// blocks (whose deprecated `version` adds a constraint), through every
/// module and, when given, the test files and their run modules.
#[derive(Clone, Debug, Default)]
pub struct ProviderRequirements {
    pub providers: BTreeMap<ProviderFqn, Vec<crate::version::Constraints>>,
}

impl ProviderRequirements {
    /// The providers, in OpenTofu's `ProviderTypes` order (by full name).
    pub fn provider_types(&self) -> Vec<ProviderFqn> {
        let mut out: Vec<ProviderFqn> = self.providers.keys().cloned().collect();
        out.sort_by_key(|p| p.to_string());
        out
    }

    fn add(&mut self, p: &ProviderFqn) -> &mut Vec<crate::version::Constraints> {
        self.providers.entry(p.clone()).or_default()
    }
}

/// [`ProviderRequirements`] of the whole tree (and of `tests`, with their
/// run modules), with OpenTofu's import-block checks against the resources
/// they target.
pub fn provider_requirements(
    config: &Config,
    tests: &[crate::testfile::TestFile],
) -> (ProviderRequirements, Diagnostics) {
    let mut reqs = ProviderRequirements::default();
    let mut diags = Vec::new();
    add_requirements(config, tests, true, &mut reqs, &mut diags);
    (reqs, diags)
}

fn add_requirements(
    config: &Config,
    tests: &[crate::testfile::TestFile],
    recurse: bool,
    reqs: &mut ProviderRequirements,
    diags: &mut Diagnostics,
) {
    let module = &config.module;
    for rp in module.required_providers.providers.values() {
        let Some(p) = &rp.provider else { continue };
        let entry = reqs.add(p);
        if let Some(v) = &rp.requirement {
            entry.push(v.required.clone());
        }
    }
    for r in module.all_resources() {
        if let Some(p) = &r.provider {
            reqs.add(p);
        }
    }
    for imp in &module.imports {
        if let Some(p) = &imp.provider {
            reqs.add(p);
        }
        diags.extend(check_import_provider(module, imp));
    }
    for pc in module.provider_configs.values() {
        add_provider_block_requirement(module, pc, reqs);
    }
    for file in tests {
        for pc in file.providers.values() {
            add_provider_block_requirement(module, pc, reqs);
        }
        if recurse {
            for run in &file.runs {
                if let Some(cut) = &run.config_under_test {
                    add_requirements(cut, &[], true, reqs, diags);
                }
            }
        }
    }
    if recurse {
        for child in config.children.values() {
            add_requirements(child, &[], true, reqs, diags);
        }
    }
}

fn add_provider_block_requirement(module: &Module, pc: &Provider, reqs: &mut ProviderRequirements) {
    let Some(fqn) = module.provider_for_local_name(&pc.name) else {
        return;
    };
    let entry = reqs.add(&fqn);
    if let Some(v) = &pc.version {
        entry.push(v.required.clone());
    }
}

/// An import block's `provider` must agree with the resource block it
/// imports into, which is where the provider is chosen.
fn check_import_provider(module: &Module, imp: &Import) -> Option<Diagnostic> {
    let iref = imp.provider_config_ref.as_ref()?;
    let to = imp.static_to.as_ref()?;
    if !to.module.is_root() {
        return None;
    }
    let target = module.managed_resources.get(&to.resource.to_string())?;
    let range = imp
        .provider_decl_range
        .clone()
        .unwrap_or_else(|| imp.decl_range.clone());
    let detail = match &target.provider_config_ref {
        None => "The provider argument in the target resource block must be specified and match the import block.",
        Some(tref) if tref.name != iref.name || tref.alias != iref.alias => {
            "The provider argument in the target resource block must match the import block."
        }
        Some(_) => return None,
    };
    Some(Diagnostic::error("Invalid import provider argument", detail).with_subject(range))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loader::{load_config, LoadOptions};
    use terrace_syntax::ast::SourceFile;

    use terrace_testsupport::TempDir;

    /// A scratch directory holding `files` (name, text).
    fn scratch(name: &str, files: &[(&str, &str)]) -> TempDir {
        let dir = TempDir::new(&format!("provider-validation-{name}"));
        for (f, text) in files {
            dir.write(f, text);
        }
        dir
    }

    fn reference(text: &str, alias: Option<&str>, key: Option<&str>) -> ProviderConfigRef {
        let file = SourceFile::new("t.tf", key.unwrap_or("0"));
        let (expr, _) = terrace_syntax::parse_expression(&file);
        ProviderConfigRef {
            name: text.to_string(),
            name_range: file.range(terrace_syntax::Span { start: 0, end: 1 }),
            alias: alias.map(str::to_string),
            alias_range: None,
            key_expression: key.map(|_| Expression::native(&file, expr)),
        }
    }

    #[test]
    fn instance_keys_follow_for_each() {
        let details = |r: &ProviderConfigRef, instanced: bool, configured: bool| -> Vec<String> {
            instance_validation(r, "resource", instanced, configured)
                .into_iter()
                .map(|d| d.detail)
                .collect()
        };
        let keyed = reference("aws", Some("by_region"), Some("each.key"));
        let plain = reference("aws", Some("by_region"), None);
        let unaliased = reference("aws", None, Some("\"a\""));
        assert!(details(&keyed, true, true).is_empty());
        assert!(details(&plain, false, true).is_empty());
        assert_eq!(
            details(&keyed, false, true),
            ["An instance key can be specified only for a provider configuration that uses for_each."]
        );
        assert_eq!(
            details(&keyed, false, false),
            ["This module doesn't declare a provider \"aws\" block with alias = \"by_region\", which is required for use with for_each."]
        );
        assert_eq!(
            details(&plain, true, true),
            ["A reference to a provider configuration which uses for_each requires an instance key. Passing a collection of provider instances into a child module is not allowed."]
        );
        assert_eq!(
            details(&unaliased, false, false),
            ["An instance key can be specified only for a provider configuration which has an alias and uses for_each."]
        );
    }

    #[test]
    fn a_collection_needs_an_alias_and_counts_as_one() {
        let dir = scratch(
            "collections",
            &[(
                "main.tf",
                "terraform {\n  required_providers {\n    aws = { source = \"hashicorp/aws\", configuration_collections = [aws.by_region] }\n    kv = { source = \"terrace/kv\", configuration_collections = [kv] }\n  }\n}\n",
            )],
        );
        let (config, diags) = load_config(dir.path(), &LoadOptions::default());
        let summaries: Vec<&str> = diags.iter().map(|d| d.summary.as_str()).collect();
        assert_eq!(summaries, ["Invalid configuration_collections value"]);
        let aws = &config.module.required_providers.providers["aws"];
        let names = |list: &[LocalProviderConfig]| -> Vec<String> {
            list.iter().map(|c| c.to_string()).collect()
        };
        // A collection is also an alias the caller must pass.
        assert_eq!(names(&aws.collections), ["aws.by_region"]);
        assert_eq!(names(&aws.aliases), ["aws.by_region"]);
    }

    #[test]
    fn provider_types_of_a_module() {
        let dir = scratch(
            "types",
            &[(
                "main.tf",
                "terraform {\n  required_providers {\n    acme = { source = \"example.com/corp/acme\" }\n  }\n}\nprovider \"acme\" {}\nprovider \"aws\" {\n  alias = \"x\"\n}\n",
            )],
        );
        let (config, diags) = load_config(dir.path(), &LoadOptions::default());
        assert!(diags.is_empty(), "{diags:?}");
        let types: Vec<String> = module_provider_types(&config.module)
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        assert_eq!(
            types,
            [
                "acme=example.com/corp/acme",
                "aws=registry.terraform.io/hashicorp/aws"
            ]
        );
    }

    #[test]
    fn json_for_each_is_never_too_similar() {
        let dir = scratch(
            "json",
            &[(
                "main.tf.json",
                r#"{
  "variable": {"r": {"default": {}}},
  "provider": {"aws": {"alias": "x", "for_each": "${var.r}"}},
  "resource": {"aws_vpc": {"v": {"for_each": "${var.r}", "provider": "aws.x[each.key]"}}}
}"#,
            )],
        );
        let (config, diags) = load_config(dir.path(), &LoadOptions::default());
        assert!(diags.is_empty(), "{diags:?}");
        assert!(validate_provider_configs(&config).is_empty());
    }

    #[test]
    fn requirements_merge_constraints() {
        let dir = scratch(
            "reqs",
            &[
                (
                    "main.tf",
                    "terraform {\n  required_providers {\n    aws = { version = \">= 1.0\" }\n  }\n}\nmodule \"c\" {\n  source = \"./c\"\n}\n",
                ),
                (
                    "c/main.tf",
                    "terraform {\n  required_providers {\n    aws = { source = \"hashicorp/aws\", version = \"< 6.0\" }\n  }\n}\nresource \"null_resource\" \"n\" {}\n",
                ),
            ],
        );
        let (config, diags) = load_config(dir.path(), &LoadOptions::default());
        assert!(diags.is_empty(), "{diags:?}");
        let (reqs, diags) = provider_requirements(&config, &[]);
        assert!(diags.is_empty());
        let got: Vec<String> = reqs
            .provider_types()
            .iter()
            .map(|p| {
                let c: Vec<String> = reqs.providers[p].iter().map(|c| c.to_string()).collect();
                format!("{p} {}", c.join(" & "))
            })
            .collect();
        assert_eq!(
            got,
            [
                "registry.terraform.io/hashicorp/aws >= 1.0 & < 6.0",
                "registry.terraform.io/hashicorp/null "
            ]
        );
    }
}
