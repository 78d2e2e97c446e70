//! `show -json`: the JSON plan (format 1.2) and JSON state (format 1.0)
//! documents, field for field and in Terraform 1.11's key order, as
//! OpenTofu's `jsonplan` and `jsonstate` build them (plus Terraform's
//! `applyable` and `complete`).
//!
//! The plan's `configuration` object describes the configuration, which
//! this crate does not see: the caller passes it in already encoded, or it
//! is left out. `checks` is not produced.

use crate::jsonval::{self, quote, SchemaNode, J};
use crate::model::{Action, Plan, PlanMode, ResourceInstanceChange};
use crate::render::{output_change_json, resource_change_json, SchemaLookup};
use std::collections::BTreeMap;
use std::fmt;
use terrace_addrs::{AbsResource, InstanceKey, ModuleInstance, ResourceMode};
use terrace_providers::{AttributePath, PathStep, Schema};
use terrace_states::{
    CheckResults, CheckableKind, ConfigCheckResult, ObjectState, ObjectStatus, State,
};
use terrace_value::Value;

pub const PLAN_FORMAT_VERSION: &str = "1.2";
pub const STATE_FORMAT_VERSION: &str = "1.0";

/// Why a document could not be produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonError(pub String);

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for JsonError {}

/// What the plan document needs besides the plan.
#[derive(Clone, Copy, Debug)]
pub struct PlanJsonOptions<'a> {
    /// The `terraform_version` field.
    pub terraform_version: &'a str,
    /// The `configuration` object, already encoded; left out when `None`.
    pub configuration: Option<&'a str>,
}

/// A JSON object written in field order; `None` fields are left out, as
/// Go's `omitempty` leaves them.
struct Obj(String);

impl Obj {
    fn new() -> Obj {
        Obj(String::from("{"))
    }

    fn raw(mut self, key: &str, value: impl AsRef<str>) -> Obj {
        if self.0.len() > 1 {
            self.0.push(',');
        }
        jsonval::write_string(&mut self.0, key);
        self.0.push(':');
        self.0.push_str(value.as_ref());
        self
    }

    fn opt(self, key: &str, value: Option<String>) -> Obj {
        match value {
            Some(v) => self.raw(key, v),
            None => self,
        }
    }

    fn str(self, key: &str, value: &str) -> Obj {
        self.raw(key, quote(value))
    }

    fn done(mut self) -> String {
        self.0.push('}');
        self.0
    }
}

fn array(items: impl IntoIterator<Item = String>) -> String {
    format!("[{}]", items.into_iter().collect::<Vec<_>>().join(","))
}

fn nonempty_str(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| quote(s))
}

fn index_json(key: &InstanceKey) -> Option<String> {
    match key {
        InstanceKey::None => None,
        InstanceKey::Int(i) => Some(i.to_string()),
        InstanceKey::String(s) => Some(quote(s)),
    }
}

fn mode_name(mode: ResourceMode) -> &'static str {
    match mode {
        ResourceMode::Managed => "managed",
        ResourceMode::Data => "data",
        ResourceMode::Ephemeral => "ephemeral",
    }
}

fn path_json(path: &AttributePath) -> String {
    array(path.steps().iter().map(|s| match s {
        PathStep::Attribute(a) | PathStep::Key(a) => quote(a),
        PathStep::Index(i) => i.to_string(),
    }))
}

fn value_json(v: &Value) -> Option<String> {
    jsonval::from_value(v).map(|j| j.to_compact())
}

fn type_json(v: &Value) -> String {
    terrace_value::typejson::type_to_json(v.ty())
}

/// `marshalAttributeValues`: the top-level attributes of an object, each
/// as its own JSON (unknown ones left out); `None` for a null object and
/// for one with no attribute left, whose `values` Terraform omits.
fn attribute_values(v: &Value) -> Option<String> {
    if v.is_null() || !v.is_known() {
        return None;
    }
    let j = jsonval::from_value(v)?;
    match &j {
        J::Object(attrs) if !attrs.is_empty() => Some(j.to_compact()),
        _ => None,
    }
}

fn schema_of(
    schemas: &dyn SchemaLookup,
    provider: &terrace_addrs::Provider,
    mode: ResourceMode,
    type_name: &str,
    what: &str,
) -> Result<std::sync::Arc<Schema>, JsonError> {
    schemas
        .resource_schema(provider, mode, type_name)
        .ok_or_else(|| {
            JsonError(format!(
                "no schema found for {what} (in provider {provider})"
            ))
        })
}

// ----- plans -----

fn sorted_changes(changes: &[ResourceInstanceChange]) -> Vec<&ResourceInstanceChange> {
    let mut out: Vec<&ResourceInstanceChange> = changes.iter().collect();
    out.sort_by(|a, b| {
        a.addr.cmp(&b.addr).then_with(|| {
            let key = |c: &ResourceInstanceChange| c.deposed.as_ref().map(|d| d.to_string());
            key(a).unwrap_or_default().cmp(&key(b).unwrap_or_default())
        })
    });
    out
}

fn resource_change(
    rc: &ResourceInstanceChange,
    schemas: &dyn SchemaLookup,
) -> Result<String, JsonError> {
    let r = &rc.addr.resource.resource;
    let schema = schema_of(
        schemas,
        &rc.provider.config.provider,
        r.mode,
        &r.type_name,
        &rc.addr.to_string(),
    )?;
    let cj = resource_change_json(rc, &schema);
    let after = if rc.after.is_known() {
        Some(cj.after.to_compact())
    } else {
        None
    };
    let replace = (!cj.replace_paths.is_empty()).then(|| {
        array(
            cj.replace_paths
                .iter()
                .map(|p| J::array(p.clone()).to_compact()),
        )
    });
    let importing = rc
        .importing
        .as_ref()
        .map(|id| Obj::new().opt("id", nonempty_str(id)).done());
    let change = Obj::new()
        .raw(
            "actions",
            array(rc.action.json_actions().iter().map(|a| quote(a))),
        )
        .raw("before", cj.before.to_compact())
        .opt("after", after)
        .raw("after_unknown", cj.after_unknown.to_compact())
        .raw("before_sensitive", cj.before_sensitive.to_compact())
        .raw("after_sensitive", cj.after_sensitive.to_compact())
        .opt("replace_paths", replace)
        .opt("importing", importing)
        .opt(
            "generated_config",
            rc.generated_config.as_deref().and_then(nonempty_str),
        )
        .done();
    let previous = (rc.prev_run_addr != rc.addr).then(|| quote(&rc.prev_run_addr.to_string()));
    let module = (!rc.addr.module.is_root()).then(|| quote(&rc.addr.module.to_string()));
    Ok(Obj::new()
        .str("address", &rc.addr.to_string())
        .opt("previous_address", previous)
        .opt("module_address", module)
        .str("mode", mode_name(r.mode))
        .str("type", &r.type_name)
        .str("name", &r.name)
        .opt("index", index_json(&rc.addr.resource.key))
        .str("provider_name", &rc.provider.config.provider.to_string())
        .opt(
            "deposed",
            rc.deposed.as_ref().map(|d| quote(&d.to_string())),
        )
        .raw("change", change)
        .opt("action_reason", rc.action_reason.json_name().map(quote))
        .done())
}

fn resource_changes(
    changes: &[&ResourceInstanceChange],
    schemas: &dyn SchemaLookup,
) -> Result<Option<String>, JsonError> {
    let mut out = Vec::new();
    for rc in changes {
        // Deleting data resources is bookkeeping users never see.
        if rc.addr.resource.resource.mode == ResourceMode::Data && rc.action == Action::Delete {
            continue;
        }
        out.push(resource_change(rc, schemas)?);
    }
    Ok((!out.is_empty()).then(|| array(out)))
}

/// One resource of `planned_values`.
fn planned_resource(rc: &ResourceInstanceChange, schema: &Schema) -> String {
    let r = &rc.addr.resource.resource;
    let (values, sensitive) = if rc.after.is_null() {
        (None, "false".to_string())
    } else {
        (
            attribute_values(&rc.after),
            // Only the value's own marks: Terraform's planned values do not
            // add the schema's sensitive attributes here.
            jsonval::sensitive_as_bool(&rc.after, &jsonval::NoSchema).to_compact(),
        )
    };
    Obj::new()
        .str("address", &rc.addr.to_string())
        .str("mode", mode_name(r.mode))
        .str("type", &r.type_name)
        .str("name", &r.name)
        .opt("index", index_json(&rc.addr.resource.key))
        .str("provider_name", &rc.provider.config.provider.to_string())
        .raw("schema_version", schema.version.max(0).to_string())
        .opt("values", values)
        .raw("sensitive_values", sensitive)
        .done()
}

fn planned_values(plan: &Plan, schemas: &dyn SchemaLookup) -> Result<String, JsonError> {
    let mut outputs = BTreeMap::new();
    for oc in &plan.output_changes {
        if oc.action == Action::Delete {
            continue;
        }
        let (after, _) = oc.after.unmark_deep();
        let (value, ty) = if after.is_wholly_known() {
            (value_json(&after), Some(type_json(&after)))
        } else {
            (None, None)
        };
        outputs.insert(
            oc.name.clone(),
            Obj::new()
                .raw("sensitive", oc.sensitive.to_string())
                .opt("type", ty)
                .opt("value", value)
                .done(),
        );
    }

    // Resources by module instance, and each module's children, in the
    // order Terraform discovers them.
    let mut resources: BTreeMap<ModuleInstance, Vec<(String, String)>> = BTreeMap::new();
    let mut children: BTreeMap<ModuleInstance, Vec<ModuleInstance>> = BTreeMap::new();
    let mut seen: Vec<ModuleInstance> = Vec::new();
    for rc in sorted_changes(&plan.changes) {
        if rc.deposed.is_some() || rc.action == Action::Delete {
            continue;
        }
        let r = &rc.addr.resource.resource;
        let schema = schema_of(
            schemas,
            &rc.provider.config.provider,
            r.mode,
            &r.type_name,
            &rc.addr.to_string(),
        )?;
        let module = rc.addr.module.clone();
        resources
            .entry(module.clone())
            .or_default()
            .push((rc.addr.to_string(), planned_resource(rc, &schema)));
        let mut m = module;
        while !m.is_root() {
            if seen.contains(&m) {
                break;
            }
            seen.push(m.clone());
            children.entry(m.parent()).or_default().push(m.clone());
            m = m.parent();
        }
    }
    let root = planned_module(&ModuleInstance::root(), &mut resources, &children, true);
    Ok(Obj::new()
        .opt(
            "outputs",
            (!outputs.is_empty()).then(|| {
                let mut o = Obj::new();
                for (k, v) in outputs {
                    o = o.raw(&k, v);
                }
                o.done()
            }),
        )
        .raw("root_module", root)
        .done())
}

fn sort_by_address(mut items: Vec<(String, String)>) -> Vec<String> {
    // Go sorts these by the address string, not by address order.
    items.sort_by(|a, b| a.0.cmp(&b.0));
    items.into_iter().map(|(_, v)| v).collect()
}

fn planned_module(
    m: &ModuleInstance,
    resources: &mut BTreeMap<ModuleInstance, Vec<(String, String)>>,
    children: &BTreeMap<ModuleInstance, Vec<ModuleInstance>>,
    is_root: bool,
) -> String {
    let rs = sort_by_address(resources.remove(m).unwrap_or_default());
    let mut kids: Vec<(String, String)> = children
        .get(m)
        .map(|cs| {
            cs.iter()
                .map(|c| (c.to_string(), planned_module(c, resources, children, false)))
                .collect()
        })
        .unwrap_or_default();
    if is_root {
        kids.sort_by(|a, b| a.0.cmp(&b.0));
    }
    let kids: Vec<String> = kids.into_iter().map(|(_, v)| v).collect();
    Obj::new()
        .opt("resources", (!rs.is_empty()).then(|| array(rs)))
        .opt("address", (!is_root).then(|| quote(&m.to_string())))
        .opt("child_modules", (!kids.is_empty()).then(|| array(kids)))
        .done()
}

fn output_changes(plan: &Plan) -> Option<String> {
    if plan.output_changes.is_empty() {
        return None;
    }
    let mut sorted: Vec<_> = plan.output_changes.iter().collect();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));
    let mut o = Obj::new();
    for oc in sorted {
        let cj = output_change_json(oc);
        let after = if oc.after.is_known() {
            Some(cj.after.to_compact())
        } else {
            None
        };
        o = o.raw(
            &oc.name,
            Obj::new()
                .raw(
                    "actions",
                    array(oc.action.json_actions().iter().map(|a| quote(a))),
                )
                .raw("before", cj.before.to_compact())
                .opt("after", after)
                .raw("after_unknown", cj.after_unknown.to_compact())
                .raw("before_sensitive", cj.before_sensitive.to_compact())
                .raw("after_sensitive", cj.after_sensitive.to_compact())
                .done(),
        );
    }
    Some(o.done())
}

/// The `show -json` document of a saved plan.
pub fn plan_json(
    plan: &Plan,
    schemas: &dyn SchemaLookup,
    opts: &PlanJsonOptions<'_>,
) -> Result<String, JsonError> {
    let variables = (!plan.variable_values.is_empty()).then(|| {
        let mut o = Obj::new();
        for (k, v) in &plan.variable_values {
            let (plain, _) = v.unmark_deep();
            o = o.raw(k, Obj::new().opt("value", value_json(&plain)).done());
        }
        o.done()
    });
    let drift: Vec<&ResourceInstanceChange> = sorted_changes(&plan.drift)
        .into_iter()
        .filter(|d| plan.mode == PlanMode::RefreshOnly || d.action != Action::NoOp)
        .collect();
    let prior = (!plan.prior_state.is_empty())
        .then(|| state_json_with_version(&plan.prior_state, schemas, StateChecks::Omit))
        .transpose()?;
    // In the plan's order, which is the order Terraform found them in.
    let relevant: Vec<String> = plan
        .relevant_attributes
        .iter()
        .map(|ra| {
            Obj::new()
                .str("resource", &ra.resource.to_string())
                .raw("attribute", path_json(&ra.attr))
                .done()
        })
        .collect();
    Ok(Obj::new()
        .str("format_version", PLAN_FORMAT_VERSION)
        .opt("terraform_version", nonempty_str(opts.terraform_version))
        .opt("variables", variables)
        .raw("planned_values", planned_values(plan, schemas)?)
        .opt("resource_drift", resource_changes(&drift, schemas)?)
        .opt(
            "resource_changes",
            resource_changes(&sorted_changes(&plan.changes), schemas)?,
        )
        .opt("output_changes", output_changes(plan))
        .opt("prior_state", prior)
        .opt("configuration", opts.configuration.map(str::to_string))
        .opt(
            "relevant_attributes",
            (!relevant.is_empty()).then(|| array(relevant)),
        )
        .opt("checks", checks_json(plan.checks.as_ref()))
        .opt("timestamp", nonempty_str(&plan.timestamp))
        .raw("applyable", plan.applyable.to_string())
        .raw("complete", plan.complete.to_string())
        .raw("errored", plan.errored.to_string())
        .done())
}

// ----- check results -----

/// The module and the kind-specific part of a configuration object's
/// address: `module.a.module.b` and `output.o`. Names hold no dots, so the
/// last two parts are the object's own.
fn split_named(addr: &str) -> (&str, &str) {
    let mut parts = addr.rsplitn(3, '.');
    let (Some(name), Some(kind)) = (parts.next(), parts.next()) else {
        return ("", addr);
    };
    let module = parts.next().unwrap_or("");
    let own = &addr[module.len() + usize::from(!module.is_empty())..];
    debug_assert_eq!(own.len(), kind.len() + 1 + name.len());
    (module, own)
}

/// The `address` of one configuration object in `checks`: Go writes
/// these maps with their keys in lexical order.
fn check_config_address(kind: CheckableKind, addr: &str) -> String {
    let mut fields: BTreeMap<&str, String> = BTreeMap::new();
    fields.insert("kind", quote(kind.json_name()));
    fields.insert("to_display", quote(addr));
    if kind == CheckableKind::Resource {
        if let Ok(r) = terrace_addrs::ConfigResource::parse_str(addr) {
            fields.insert("mode", quote(mode_name(r.resource.mode)));
            fields.insert("type", quote(&r.resource.type_name));
            fields.insert("name", quote(&r.resource.name));
            if !r.module.is_root() {
                fields.insert("module", quote(&r.module.to_string()));
            }
        }
    } else {
        let (module, own) = split_named(addr);
        if let Some((_, name)) = own.split_once('.') {
            fields.insert("name", quote(name));
        }
        if !module.is_empty() {
            fields.insert("module", quote(module));
        }
    }
    map_json(fields)
}

/// The `address` of one dynamic object in `checks`.
fn check_object_address(kind: CheckableKind, addr: &str) -> String {
    let mut fields: BTreeMap<&str, String> = BTreeMap::new();
    fields.insert("to_display", quote(addr));
    if kind == CheckableKind::Resource {
        if let Ok(r) = terrace_addrs::AbsResourceInstance::parse_str(addr) {
            if !r.module.is_root() {
                fields.insert("module", quote(&r.module.to_string()));
            }
            if let Some(key) = index_json(&r.resource.key) {
                fields.insert("instance_key", key);
            }
        }
    } else {
        let (module, _) = split_named(addr);
        if !module.is_empty() {
            fields.insert("module", quote(module));
        }
    }
    map_json(fields)
}

fn map_json(fields: BTreeMap<&str, String>) -> String {
    let mut o = Obj::new();
    for (k, v) in fields {
        o = o.raw(k, v);
    }
    o.done()
}

/// `checks` of `show -json`: every configuration object with conditions
/// and each of its objects, in the order of their displayed addresses,
/// failure messages as `problems`.
fn checks_json(results: Option<&CheckResults>) -> Option<String> {
    let results = results.filter(|r| !r.is_empty())?;
    let mut configs: Vec<&ConfigCheckResult> = results.configs().iter().collect();
    configs.sort_by(|a, b| a.config_addr.cmp(&b.config_addr));
    let items = configs.into_iter().map(|c| {
        let instances = c.objects.as_ref().filter(|o| !o.is_empty()).map(|objects| {
            let mut objects: Vec<_> = objects.iter().collect();
            objects.sort_by(|a, b| a.object_addr.cmp(&b.object_addr));
            array(objects.into_iter().map(|o| {
                let mut messages: Vec<&String> = o.failure_messages.iter().collect();
                messages.sort();
                let problems = (!messages.is_empty()).then(|| {
                    array(
                        messages
                            .into_iter()
                            .map(|m| Obj::new().str("message", m).done()),
                    )
                });
                Obj::new()
                    .raw("address", check_object_address(c.kind, &o.object_addr))
                    .str("status", o.status.as_str())
                    .opt("problems", problems)
                    .done()
            }))
        });
        Obj::new()
            .raw("address", check_config_address(c.kind, &c.config_addr))
            .str("status", c.status.as_str())
            .opt("instances", instances)
            .done()
    });
    Some(array(items))
}

// ----- states -----

fn state_resource(
    addr: &AbsResource,
    key: &InstanceKey,
    provider: &terrace_addrs::Provider,
    object: &ObjectState,
    deposed: Option<&str>,
    schemas: &dyn SchemaLookup,
) -> Result<String, JsonError> {
    let r = &addr.resource;
    let inst = addr.instance(key.clone());
    let schema = schema_of(schemas, provider, r.mode, &r.type_name, &addr.to_string())?;
    let value = object
        .decode(&schema.implied_type())
        .map_err(|e| JsonError(format!("{inst}: {e}")))?;
    let sensitive =
        jsonval::sensitive_as_bool(&value, &SchemaNode::Block(&schema.block)).to_compact();
    let (plain, _) = value.unmark_deep();
    let depends = (!object.dependencies.is_empty())
        .then(|| array(object.dependencies.iter().map(|d| quote(&d.to_string()))));
    Ok(Obj::new()
        .str("address", &inst.to_string())
        .str("mode", mode_name(r.mode))
        .str("type", &r.type_name)
        .str("name", &r.name)
        .opt("index", index_json(key))
        .str("provider_name", &provider.to_string())
        .raw("schema_version", object.schema_version.to_string())
        .opt("values", attribute_values(&plain))
        .raw("sensitive_values", sensitive)
        .opt("depends_on", depends)
        .opt(
            "tainted",
            (object.status == ObjectStatus::Tainted).then(|| "true".to_string()),
        )
        .opt("deposed_key", deposed.map(quote))
        .done())
}

fn state_module(
    state: &State,
    m: &ModuleInstance,
    children: &BTreeMap<ModuleInstance, Vec<ModuleInstance>>,
    schemas: &dyn SchemaLookup,
) -> Result<String, JsonError> {
    let mut rs = Vec::new();
    for (addr, res) in state.resources_in_module(m) {
        for (key, inst) in &res.instances {
            if let Some(obj) = &inst.current {
                rs.push(state_resource(
                    addr,
                    key,
                    &res.provider.provider,
                    obj,
                    None,
                    schemas,
                )?);
            }
            for (dk, obj) in &inst.deposed {
                rs.push(state_resource(
                    addr,
                    key,
                    &res.provider.provider,
                    obj,
                    Some(dk.as_str()),
                    schemas,
                )?);
            }
        }
    }
    let mut kids = Vec::new();
    if let Some(cs) = children.get(m) {
        let mut cs: Vec<&ModuleInstance> = cs.iter().collect();
        cs.sort_by_cached_key(|c| c.to_string());
        for c in cs {
            kids.push(state_module(state, c, children, schemas)?);
        }
    }
    Ok(Obj::new()
        .opt("resources", (!rs.is_empty()).then(|| array(rs)))
        .opt("address", (!m.is_root()).then(|| quote(&m.to_string())))
        .opt("child_modules", (!kids.is_empty()).then(|| array(kids)))
        .done())
}

/// Whether a state document carries the state's check results: a plan's
/// `prior_state` does not (the plan has its own `checks`).
#[derive(PartialEq)]
enum StateChecks {
    Include,
    Omit,
}

fn state_json_with_version(
    state: &State,
    schemas: &dyn SchemaLookup,
    checks: StateChecks,
) -> Result<String, JsonError> {
    let mut outputs = Obj::new();
    for (name, o) in &state.outputs {
        let (plain, _) = o.value.unmark_deep();
        outputs = outputs.raw(
            name,
            Obj::new()
                .raw("sensitive", o.sensitive.to_string())
                .raw(
                    "value",
                    value_json(&plain)
                        .ok_or_else(|| JsonError(format!("output {name}: value is not known")))?,
                )
                .raw("type", type_json(&plain))
                .done(),
        );
    }
    let mut children: BTreeMap<ModuleInstance, Vec<ModuleInstance>> = BTreeMap::new();
    for m in state.modules() {
        let mut c = m;
        while !c.is_root() {
            let p = c.parent();
            let list = children.entry(p.clone()).or_default();
            if !list.contains(&c) {
                list.push(c.clone());
            }
            c = p;
        }
    }
    let values = Obj::new()
        .opt(
            "outputs",
            (!state.outputs.is_empty()).then(|| outputs.done()),
        )
        .raw(
            "root_module",
            state_module(state, &ModuleInstance::root(), &children, schemas)?,
        )
        .done();
    Ok(Obj::new()
        .str("format_version", STATE_FORMAT_VERSION)
        .opt("terraform_version", nonempty_str(&state.terraform_version))
        .raw("values", values)
        .opt(
            "checks",
            (checks == StateChecks::Include)
                .then(|| checks_json(state.check_results.as_ref()))
                .flatten(),
        )
        .done())
}

/// The `show -json` document of a state; `None` (no state at all) and
/// an empty state give just the format version.
pub fn state_json(state: Option<&State>, schemas: &dyn SchemaLookup) -> Result<String, JsonError> {
    match state {
        Some(s) if !s.is_empty() => state_json_with_version(s, schemas, StateChecks::Include),
        _ => Ok(Obj::new()
            .str("format_version", STATE_FORMAT_VERSION)
            .done()),
    }
}

#[cfg(test)]
mod tests;
