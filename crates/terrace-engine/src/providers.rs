//! Provider instances: one per key of each provider configuration (seed
//! 002), started and configured by the configuration's node, looked up by
//! every resource instance through its `AbsProviderInstance`, and closed
//! when the last node needing the configuration is done.

use crate::marks::unmark;
use crate::model::{ProviderInfo, ResourceInfo};
use crate::scope::Env;
use crate::values::Repetition;
use crate::walk::{Job, Visit};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, RwLock};
use terrace_addrs::{
    AbsProviderConfig, AbsProviderInstance, AbsResourceInstance, InstanceKey, ModuleInstance,
};
use terrace_config::body::{Body, BodySchema};
use terrace_config::loader::Config;
use terrace_providers::{
    ClientCapabilities, ConfigureProviderRequest, Provider, ValidateProviderConfigRequest,
};
use terrace_states::model::DeposedKey;
use terrace_syntax::diagnostic::has_errors;
use terrace_syntax::PRODUCT;
use terrace_syntax::{Diagnostic, Diagnostics};
use terrace_value::convert::convert;
use terrace_value::{Type, Value};

#[derive(Default)]
pub(crate) struct Instances {
    map: RwLock<HashMap<AbsProviderInstance, Arc<dyn Provider>>>,
    /// Every instance ever started, to stop on Ctrl-C and close at the end.
    started: Mutex<Vec<(AbsProviderConfig, Arc<dyn Provider>)>>,
    /// Instances of iterated provider configurations that could not be
    /// configured, and the errors of that and of every resource instance
    /// left out because of it: the rest of the walk goes on without them.
    unavailable: Mutex<(Vec<AbsProviderInstance>, Diagnostics)>,
    /// Configurations whose `for_each` is not known until apply, and the
    /// resource instances bound to them that were therefore not planned.
    deferred: Mutex<(HashSet<AbsProviderConfig>, Vec<AbsResourceInstance>)>,
}

impl Instances {
    pub fn get(&self, addr: &AbsProviderInstance) -> Option<Arc<dyn Provider>> {
        self.map.read().ok()?.get(addr).cloned()
    }

    pub fn insert(&self, addr: AbsProviderInstance, p: Arc<dyn Provider>) {
        if let Ok(mut m) = self.map.write() {
            m.insert(addr, p);
        }
    }

    pub fn started(&self, config: &AbsProviderConfig, p: Arc<dyn Provider>) {
        self.started_instances().push((config.clone(), p));
    }

    /// The started instances, also after a panic (caught by the walk)
    /// poisoned the lock: they must still be stopped and closed, or plugin
    /// processes would outlive the run.
    fn started_instances(
        &self,
    ) -> std::sync::MutexGuard<'_, Vec<(AbsProviderConfig, Arc<dyn Provider>)>> {
        self.started
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Closes every instance of `config`.
    pub fn close_config(&self, config: &AbsProviderConfig) {
        let mine: Vec<Arc<dyn Provider>> = {
            let mut s = self.started_instances();
            let (mine, rest): (Vec<_>, Vec<_>) = s.drain(..).partition(|(c, _)| c == config);
            *s = rest;
            mine.into_iter().map(|(_, p)| p).collect()
        };
        if let Ok(mut m) = self.map.write() {
            m.retain(|k, _| &k.config != config);
        }
        for p in mine {
            let _ = p.close();
        }
    }

    pub fn stop_all(&self) {
        let all: Vec<Arc<dyn Provider>> = self
            .started_instances()
            .iter()
            .map(|(_, p)| p.clone())
            .collect();
        for p in all {
            let _ = p.stop();
        }
    }

    fn unavailable_list(
        &self,
    ) -> std::sync::MutexGuard<'_, (Vec<AbsProviderInstance>, Diagnostics)> {
        self.unavailable
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// `addr` could not be configured (`diags` say why); its resources are
    /// left out, the others go on.
    pub fn mark_unavailable(&self, addr: AbsProviderInstance, diags: Diagnostics) {
        tracing::warn!(provider = %addr, "provider instance unavailable; its resources are left out");
        let mut list = self.unavailable_list();
        list.0.push(addr);
        list.1.extend(diags);
    }

    fn deferred_list(
        &self,
    ) -> std::sync::MutexGuard<'_, (HashSet<AbsProviderConfig>, Vec<AbsResourceInstance>)> {
        self.deferred
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// `config`'s `for_each` is not known yet: none of its instances
    /// exists in this walk.
    pub fn defer(&self, config: AbsProviderConfig) {
        self.deferred_list().0.insert(config);
    }

    pub fn is_deferred(&self, config: &AbsProviderConfig) -> bool {
        self.deferred_list().0.contains(config)
    }

    /// A resource instance not planned because its provider configuration
    /// is deferred.
    pub fn deferred_resource(&self, addr: &AbsResourceInstance) {
        self.deferred_list().1.push(addr.clone());
    }

    /// The deferred configurations and resource instances, sorted.
    pub fn take_deferred(&self) -> (Vec<AbsProviderConfig>, Vec<AbsResourceInstance>) {
        let (configs, mut resources) = std::mem::take(&mut *self.deferred_list());
        let mut configs: Vec<AbsProviderConfig> = configs.into_iter().collect();
        configs.sort();
        resources.sort();
        resources.dedup();
        (configs, resources)
    }

    pub fn is_unavailable(&self, addr: &AbsProviderInstance) -> bool {
        self.unavailable_list().0.contains(addr)
    }

    /// A resource instance left out because its provider instance is
    /// unavailable: the error that names it.
    pub fn left_out(&self, addr: &AbsResourceInstance, provider: &AbsProviderInstance, work: &str) {
        let d = Diagnostic::error(
            "Provider instance unavailable",
            format!("{addr} was not {work}: its provider instance {provider} could not be configured (the errors above say why). The resources of the other provider instances were {work}; this one will be on a later run, once {provider} can be configured."),
        )
        .with_address(addr.to_string());
        self.unavailable_list().1.push(d);
    }

    /// The unavailable instances (sorted) and their errors, taken.
    pub fn take_unavailable(&self) -> (Vec<AbsProviderInstance>, Diagnostics) {
        let (mut addrs, diags) = std::mem::take(&mut *self.unavailable_list());
        addrs.sort();
        addrs.dedup();
        (addrs, diags)
    }

    pub fn close_all(&self) {
        let all: Vec<Arc<dyn Provider>> =
            self.started_instances().drain(..).map(|(_, p)| p).collect();
        if let Ok(mut m) = self.map.write() {
            m.clear();
        }
        for p in all {
            let _ = p.close();
        }
    }
}

/// The configuration body a provider call was about and the address of
/// the object it configures, for placing the provider's diagnostics.
pub(crate) struct InBody<'a> {
    pub body: &'a Body,
    pub address: &'a str,
    /// Terraform's built-in provider runs in-process: a diagnostic of it
    /// without a path is a plain error, not one about the whole body as a
    /// plugin's is over the protocol.
    pub builtin: bool,
}

impl<'a> InBody<'a> {
    pub fn new(body: &'a Body, address: &'a str, provider: &terrace_addrs::Provider) -> InBody<'a> {
        InBody {
            body,
            address,
            builtin: provider.is_builtin(),
        }
    }
}

/// Provider diagnostics as configuration diagnostics. With `in_body` each
/// one is placed as OpenTofu's `InConfigBody` places it: it names the
/// address, and points at the argument its attribute path leads to, or at
/// the body itself when the path is empty (or absent, for a plugin).
/// Terraform leaves diagnostics about objects without configuration
/// (deletions, imports) sourceless.
pub(crate) fn convert_diags(
    d: terrace_providers::Diagnostics,
    in_body: Option<InBody<'_>>,
) -> Diagnostics {
    let mut out = Diagnostics::new();
    for pd in d {
        let mut diag = match pd.severity {
            terrace_providers::Severity::Error => Diagnostic::error(pd.summary, pd.detail),
            terrace_providers::Severity::Warning => Diagnostic::warning(pd.summary, pd.detail),
        };
        if let Some(ctx) = &in_body {
            let subject = match &pd.attribute {
                Some(path) if !path.steps().is_empty() => Some(path_range(ctx.body, path.steps())),
                Some(_) => Some(ctx.body.missing_item_range()),
                None if ctx.builtin => None,
                None => Some(ctx.body.missing_item_range()),
            };
            if subject.is_some() {
                diag.address = Some(ctx.address.to_string());
                diag.subject = subject;
            }
        }
        out.push(diag);
    }
    out
}

/// Where an attribute path points in a configuration body, as OpenTofu's
/// `InConfigBody` finds it: nested blocks are followed (by position for a
/// number index, by label for a string key), the final attribute's
/// expression (or the element of a list or map it selects) is the range;
/// anything not found falls back to the deepest body's missing-item range.
fn path_range(body: &Body, steps: &[terrace_providers::PathStep]) -> terrace_syntax::SourceRange {
    use terrace_providers::PathStep as S;
    let Some(first) = steps.first() else {
        return body.missing_item_range();
    };
    if !matches!(first, S::Attribute(_)) {
        return body.missing_item_range();
    }
    let (mut traverse, mut last) = (steps, steps.len() - 1);
    let index = match &steps[last] {
        S::Key(_) | S::Index(_) if last > 0 => {
            let i = steps[last].clone();
            last -= 1;
            traverse = &steps[..=last];
            Some(i)
        }
        _ => None,
    };
    let mut body = body.clone();
    if traverse.len() > 1 {
        body = descend(&body, traverse);
    }
    let missing = body.missing_item_range();
    let S::Attribute(name) = &steps[last] else {
        return missing;
    };
    let (content, _, d) = body.partial_content(&BodySchema::new().attr(name));
    if has_errors(&d) {
        return missing;
    }
    let Some(attr) = content.attribute(name) else {
        return missing;
    };
    match index {
        None => attr.expr.range(),
        Some(S::Index(i)) => match attr.expr.as_list() {
            None => attr.expr.range(),
            Some(items) => usize::try_from(i)
                .ok()
                .and_then(|i| items.get(i).map(|e| e.range()))
                .unwrap_or_else(|| attr.name_range.clone()),
        },
        Some(S::Key(k)) => match attr.expr.as_map() {
            None => attr.expr.range(),
            Some(pairs) => {
                for (key, value) in pairs {
                    let (kv, kd) = key.constant_value();
                    if has_errors(&kd) {
                        return attr.expr.range();
                    }
                    if kv.as_str() == Some(k.as_str()) {
                        return value.start_range();
                    }
                }
                attr.name_range.clone()
            }
        },
        Some(S::Attribute(_)) => attr.expr.range(),
    }
}

/// OpenTofu's `traversePathSteps`: the body of the nested block a path
/// leads to (as far as it can be followed).
fn descend(body: &Body, steps: &[terrace_providers::PathStep]) -> Body {
    use terrace_providers::PathStep as S;
    let mut body = body.clone();
    let mut i = 0;
    while i < steps.len() {
        let S::Attribute(name) = &steps[i] else {
            return body;
        };
        let index = match steps.get(i + 1) {
            Some(s @ (S::Key(_) | S::Index(_))) => {
                i += 1;
                Some(s.clone())
            }
            _ => None,
        };
        i += 1;
        let schema = match index {
            Some(S::Key(_)) => BodySchema::new().labeled_block(name, &["key"]),
            _ => BodySchema::new().block(name),
        };
        let (content, _, d) = body.partial_content(&schema);
        if has_errors(&d) {
            return body;
        }
        let blocks: Vec<&terrace_config::body::Block> = content
            .blocks
            .iter()
            .filter(|b| &b.block_type == name)
            .collect();
        if blocks.is_empty() {
            continue;
        }
        body = match index {
            None if blocks.len() == 1 => blocks[0].body.clone(),
            Some(S::Index(n)) => match usize::try_from(n).ok().and_then(|n| blocks.get(n)) {
                Some(b) => b.body.clone(),
                None => return body,
            },
            Some(S::Key(k)) => match blocks.iter().find(|b| b.labels.first() == Some(&k)) {
                Some(b) => b.body.clone(),
                None => return body,
            },
            _ => return body,
        };
    }
    body
}

/// The keys a provider configuration expands to, with `each.*`.
pub(crate) fn provider_keys(p: &ProviderInfo<'_>) -> Vec<(InstanceKey, Repetition)> {
    match p
        .config
        .and_then(|c| c.for_each.as_ref().map(|_| c.instances.as_ref()))
    {
        None => vec![(InstanceKey::None, Repetition::default())],
        Some(None) => Vec::new(),
        Some(Some(instances)) => instances
            .iter()
            .map(|(k, rd)| {
                (
                    InstanceKey::string(k),
                    Repetition {
                        count_index: None,
                        each_key: Some(rd.each_key.clone()),
                        each_value: Some(rd.each_value.clone()),
                    },
                )
            })
            .collect(),
    }
}

/// The instances of `p` in this walk: decided when the configuration
/// loaded, or, for a `for_each` that refers to resources, data sources or
/// module outputs, evaluated now that what it refers to has been visited.
/// `None` when that value is not known until apply: the configuration is
/// deferred, and so is every resource bound to it.
pub(crate) fn walk_provider_keys(
    env: &Env<'_>,
    p: &ProviderInfo<'_>,
) -> Result<Option<Vec<(InstanceKey, Repetition)>>, Diagnostics> {
    let (Some(block), Some(cfg)) = (p.config, p.module) else {
        return Ok(Some(provider_keys(p)));
    };
    let Some(for_each) = block.for_each.as_ref().filter(|_| block.for_each_at_walk) else {
        return Ok(Some(provider_keys(p)));
    };
    let scope = env.scope(cfg, p.addr.module.unkeyed_instance(), Repetition::default());
    let (value, diags) = for_each.evaluate(&scope);
    if has_errors(&diags) {
        return Err(diags);
    }
    if !value.is_wholly_known() {
        return Ok(None);
    }
    crate::expand::expand(&scope, None, Some(for_each)).map(|(_, keys)| Some(keys))
}

/// A job closing every instance of `provider` once no remaining node uses
/// it and its own node has run; otherwise nothing.
pub(crate) fn close_when_idle<'e>(
    users: &Mutex<HashMap<AbsProviderConfig, usize>>,
    done: &Mutex<HashSet<AbsProviderConfig>>,
    instances: &'e Instances,
    provider: &'e AbsProviderConfig,
) -> Vec<Job<'e>> {
    let idle = users
        .lock()
        .map(|u| u.get(provider).copied().unwrap_or(0) == 0)
        .unwrap_or(false);
    let finished = done.lock().map(|d| d.contains(provider)).unwrap_or(false);
    if idle && finished {
        vec![Box::new(move || {
            instances.close_config(provider);
            true
        })]
    } else {
        Vec::new()
    }
}

/// A provider configuration node's visit in the plan and apply walks: one
/// job per instance key, each starting and configuring its instance and
/// adding what went wrong to `diags`.
pub(crate) fn visit_provider_instances<'e>(
    env: &'e Env<'_>,
    instances: &'e Instances,
    p: &'e ProviderInfo<'_>,
    diags: &'e Mutex<Diagnostics>,
) -> Visit<'e> {
    let keys = match walk_provider_keys(env, p) {
        Ok(Some(keys)) => keys,
        Ok(None) => {
            instances.defer(p.addr.clone());
            return Visit::Done(true);
        }
        Err(d) => {
            if let Ok(mut g) = diags.lock() {
                g.extend(d);
            }
            return Visit::Done(false);
        }
    };
    // One instance of an iterated configuration that cannot be configured
    // (a region that is down, a credential that expired) takes only its
    // own resources out; a single configuration fails as in terraform.
    let iterated = keys.iter().any(|(key, _)| !key.is_none());
    let jobs: Vec<Job<'e>> = keys
        .into_iter()
        .map(|(key, rep)| -> Job<'e> {
            Box::new(move || {
                let (ok, d) = start_instance(env, instances, p, &key, &rep, true);
                if !ok && iterated {
                    instances.mark_unavailable(p.addr.instance(key.clone()), d);
                    return true;
                }
                if !d.is_empty() {
                    if let Ok(mut g) = diags.lock() {
                        g.extend(d);
                    }
                }
                ok
            })
        })
        .collect();
    Visit::Fanout {
        jobs,
        finish: Box::new(|| true),
    }
}

/// Starts one instance of `p` and, unless `configure` is false, validates
/// and configures it with its body evaluated for `rep`.
pub(crate) fn start_instance(
    env: &Env<'_>,
    instances: &Instances,
    p: &ProviderInfo<'_>,
    key: &InstanceKey,
    rep: &Repetition,
    configure: bool,
) -> (bool, Diagnostics) {
    let mut diags = Diagnostics::new();
    let provider = match env.ctx.providers.start_configuration(&p.addr, key) {
        Ok(pr) => pr,
        Err(d) => return (false, d),
    };
    instances.started(&p.addr, provider.clone());
    let Some(schema) = &p.schema else {
        return (false, diags);
    };
    let block = &schema.provider.block;
    let empty = Body::empty();
    let body = p.config.map(|c| &c.config).unwrap_or(&empty);
    let root_cfg: &Config = &env.ctx.config;
    let module_cfg = p.module.unwrap_or(root_cfg);
    let scope = env.scope(module_cfg, p.addr.module.unkeyed_instance(), rep.clone());
    let (value, d) = crate::common::decode_config(body, block, &scope);
    diags.extend(d);
    if has_errors(&diags) {
        return (false, diags);
    }
    let (value, _) = unmark(&value);
    // Terraform names the provider configuration, with the instance key
    // OpenTofu adds for a provider with for_each.
    let address = format!("{}{key}", p.addr);
    let resp = provider.validate_provider_config(ValidateProviderConfigRequest {
        config: value.clone(),
    });
    diags.extend(convert_diags(
        resp.diagnostics,
        Some(InBody::new(body, &address, &p.addr.provider)),
    ));
    if has_errors(&diags) {
        return (false, diags);
    }
    if configure {
        let resp = provider.configure_provider(ConfigureProviderRequest {
            terraform_version: env.ctx.terraform_version.clone(),
            config: value,
            client_capabilities: ClientCapabilities::default(),
        });
        diags.extend(convert_diags(
            resp.diagnostics,
            Some(InBody::new(body, &address, &p.addr.provider)),
        ));
        if has_errors(&diags) {
            return (false, diags);
        }
    }
    instances.insert(p.addr.instance(key.clone()), provider);
    (true, diags)
}

/// The provider instance key of a resource instance: from the key
/// expression of its `provider` argument (in its own scope) or of the
/// `providers` entry of the module call it came through (in the calling
/// module instance's scope).
pub(crate) fn instance_key_for(
    env: &Env<'_>,
    info: &ResourceInfo<'_>,
    addr: &AbsResourceInstance,
    rep: &Repetition,
) -> Result<InstanceKey, Diagnostics> {
    let Some((km, expr)) = &info.key_expr else {
        return Ok(InstanceKey::None);
    };
    let root: &Config = &env.ctx.config;
    let (value, mut diags) = if *km == addr.module.module() {
        let cfg = info.module.unwrap_or(root);
        let scope = env.scope(cfg, addr.module.clone(), rep.clone());
        expr.evaluate(&scope)
    } else {
        let steps = addr.module.steps();
        let n = km.len() + 1;
        if steps.len() < n {
            return Ok(InstanceKey::None);
        }
        let call_instance = ModuleInstance::from_steps(steps[..n].iter().cloned());
        let caller = call_instance.parent();
        let Some(cfg) = root.descendant(&crate::model::path_names(km)) else {
            return Ok(InstanceKey::None);
        };
        let scope = env.scope(cfg, caller, env.values.module_rep(&call_instance));
        expr.evaluate(&scope)
    };
    if has_errors(&diags) {
        return Err(diags);
    }
    let bad = |detail: String| {
        Diagnostic::error("Invalid provider instance key", detail).with_subject(expr.range())
    };
    if value.deep_marks().is_sensitive() {
        diags.push(bad(
            "A provider instance key must not be derived from a sensitive value.".into(),
        ));
        return Err(diags);
    }
    if value.deep_marks().is_ephemeral() {
        diags.push(bad(
            "A provider instance key must not be derived from an ephemeral value.".into(),
        ));
        return Err(diags);
    }
    if value.is_null() {
        diags.push(bad("A provider instance key must not be null.".into()));
        return Err(diags);
    }
    if !value.is_known() {
        diags.push(bad(format!("The provider instance key for {addr} depends on values that cannot be determined until apply, and so {PRODUCT} cannot select a provider instance to create a plan for this resource instance.")));
        return Err(diags);
    }
    match convert(&value, &Type::String) {
        Ok(v) => Ok(InstanceKey::string(v.as_str().unwrap_or_default())),
        Err(e) => {
            diags.push(bad(format!("The given instance key is unsuitable: {e}.")));
            Err(diags)
        }
    }
}

/// OpenTofu's "Provider instance not present": the object of `addr` (its
/// deposed object `deposed`, if given) was made by an instance of `config`
/// that the configuration no longer declares.
pub(crate) fn instance_not_present(
    addr: &AbsResourceInstance,
    deposed: Option<&DeposedKey>,
    config: &AbsProviderConfig,
    key: &InstanceKey,
) -> Diagnostic {
    let inst = config.instance(key.clone());
    let detail = match (deposed, key.is_none()) {
        (None, false) => format!("To work with {addr} its original provider instance at {inst} is required, but it has been removed. This occurs when an element is removed from the provider configuration's for_each collection while objects created by that the associated provider instance still exist in the state. Re-add the for_each element to destroy {addr}, after which you can remove the provider configuration again.\n\nThis is commonly caused by using the same for_each collection both for a resource (or its containing module) and its associated provider configuration. To successfully remove an instance of a resource it must be possible to remove the corresponding element from the resource's for_each collection while retaining the corresponding element in the provider's for_each collection."),
        (None, true) => format!("To work with {addr} its original provider instance at {inst} is required, but it has been removed. This suggests that you've added for_each to this provider configuration while there are existing instances of {} that need to be destroyed by the original single-instance provider configuration.\n\nTo proceed, return to your previous single-instance configuration for {config} and ensure that {addr} has been destroyed or forgotten before using for_each with this provider, or change the resource configuration to still declare an instance with the key {}.", addr.containing_resource(), addr.resource.key),
        // A deposed object comes from a failed replacement, not from a
        // removed instance, so the advice about sharing a for_each
        // collection does not apply.
        (Some(dk), false) => format!("To work with {addr}'s deposed object {dk} its original provider instance at {inst} is required, but it has been removed. This occurs when an element is removed from the provider configuration's for_each collection while objects created by that the associated provider instance still exist in the state. Re-add the for_each element to destroy this deposed object for {addr}, after which you can remove the provider configuration again."),
        (Some(dk), true) => format!("To work with {addr}'s deposed object {dk} its original provider instance at {inst} is required, but it has been removed. This suggests that you've added for_each to this provider configuration while there are existing deposed objects of {addr} that need to be destroyed by the original single-instance provider configuration.\n\nTo proceed, return to your previous single-instance configuration for {config} and ensure that all deposed instances of {addr} have been destroyed before using for_each with this provider."),
    };
    Diagnostic::error("Provider instance not present", detail)
}

/// A value converted for a provider: unknown of `ty` when conversion fails.
pub(crate) fn typed(v: Value, ty: &Type) -> Value {
    if v.ty() == ty {
        return v;
    }
    convert(&v, ty).unwrap_or_else(|_| Value::unknown(ty.clone()))
}

#[cfg(test)]
mod tests {
    use super::{convert_diags, path_range, InBody};
    use terrace_config::body::Body;
    use terrace_providers::PathStep as S;

    /// As `InConfigBody`: with a body, every diagnostic names the address
    /// and points at its argument or, without a path, at the body; without
    /// one it stays sourceless.
    #[test]
    fn provider_diagnostics_name_the_object() {
        let (file, d) = terrace_syntax::parse_native_file("t.tf", "x = 0\na = 1\n");
        assert!(d.is_empty(), "{d:#?}");
        let body = Body::from_file(&file);
        let with_path = terrace_providers::Diagnostic::error("P", "d")
            .with_attribute(terrace_providers::AttributePath::root().attribute("a"));
        let whole = terrace_providers::Diagnostic::warning("W", "d");
        let diags = vec![with_path, whole];
        let Ok(plugin) = terrace_addrs::Provider::new_default("null") else {
            panic!("provider address")
        };
        let placed = convert_diags(
            diags.clone().into(),
            Some(InBody::new(&body, "x.y[0]", &plugin)),
        );
        let got: Vec<_> = placed
            .iter()
            .map(|d| {
                let s = d.subject.as_ref().map(|s| (s.start.line, s.start.column));
                (d.address.as_deref(), s)
            })
            .collect();
        assert_eq!(
            got,
            [
                (Some("x.y[0]"), Some((2, 5))),
                (Some("x.y[0]"), Some((1, 1)))
            ]
        );
        // The built-in provider's pathless diagnostics are plain errors.
        let Ok(builtin) = terrace_addrs::Provider::new_builtin("terraform") else {
            panic!("provider address")
        };
        let placed = convert_diags(
            diags.clone().into(),
            Some(InBody::new(&body, "x.y[0]", &builtin)),
        );
        assert_eq!(placed[1].address, None);
        assert_eq!(placed[1].subject, None);
        let bare = convert_diags(diags.into(), None);
        assert!(bare
            .iter()
            .all(|d| d.address.is_none() && d.subject.is_none()));
    }

    #[test]
    fn attribute_paths_find_their_source() {
        let text = r#"a = "x"
list = ["p", "q"]
map = { k1 = "v1", k2 = "v2" }
nested {
  inner = 1
}
multi {
  inner = 2
}
multi {
  inner = 3
}
labeled "one" {
  inner = 4
}
"#;
        let (file, d) = terrace_syntax::parse_native_file("t.tf", text);
        assert!(d.is_empty(), "{d:#?}");
        let body = Body::from_file(&file);
        let attr = |n: &str| S::Attribute(n.to_string());
        // (path, line, start column) of the range found.
        let cases: Vec<(Vec<S>, usize, usize)> = vec![
            (vec![attr("a")], 1, 5),
            (vec![attr("list"), S::Index(1)], 2, 14),
            (vec![attr("map"), S::Key("k2".into())], 3, 25),
            (vec![attr("nested"), attr("inner")], 5, 11),
            (vec![attr("multi"), S::Index(1), attr("inner")], 11, 11),
            (
                vec![attr("labeled"), S::Key("one".into()), attr("inner")],
                14,
                11,
            ),
            // Not found: the missing-item range (its opening brace) of the
            // body it got to.
            (vec![attr("nested"), attr("nope")], 4, 8),
            (vec![attr("missing")], 1, 1),
        ];
        for (path, line, col) in cases {
            let r = path_range(&body, &path);
            assert_eq!(
                (r.start.line as usize, r.start.column as usize),
                (line, col),
                "{path:?}"
            );
        }
    }
}
