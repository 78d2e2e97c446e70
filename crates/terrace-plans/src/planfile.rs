//! terrace's saved plan (`plan -out FILE`, `apply FILE`). Not Terraform's
//! zip format: a JSON document holding the whole [`Plan`], in which every
//! value is its cty type JSON plus its MessagePack encoding (so unknown
//! values and refinements survive) plus the paths of its marks, and both
//! states are embedded as state files. Beside the plan it keeps what the
//! plan was made from ([`PlanContext`]): the configuration's files, the
//! dependency lock file, the backend and the state snapshot, so that an
//! apply of the file uses exactly that, and refuses a state that moved on.

use crate::model::{
    Action, ActionReason, OutputChange, Plan, PlanMode, ResourceAttr, ResourceInstanceChange,
};
use base64::Engine as _;
use serde_json::{json, Map, Value as Json};
use std::collections::BTreeMap;
use std::fmt;
use terrace_addrs::{AbsProviderInstance, AbsResourceInstance, Target};
use terrace_providers::{AttributePath, PathStep};
use terrace_states::{statefile, DeposedKey, State};
use terrace_syntax::Diagnostic;
use terrace_value::{Marks, Type, Value};

/// The format's version; a reader refuses any other.
pub const FORMAT_VERSION: u64 = 2;

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

/// Why a plan file could not be written or read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanFileError(pub String);

impl fmt::Display for PlanFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PlanFileError {}

fn err(msg: impl Into<String>) -> PlanFileError {
    PlanFileError(msg.into())
}

/// The backend a plan's state came from, as configured.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SavedBackend {
    pub type_name: String,
    /// The settings that are set (null ones left out), as text.
    pub config: BTreeMap<String, String>,
    pub workspace: String,
}

/// Everything besides the plan itself that applying it depends on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlanContext {
    /// The configuration's files: module directory (as the loader names
    /// it) → file name → text.
    pub config_files: BTreeMap<String, BTreeMap<String, String>>,
    /// `.terraform/modules/modules.json`, when there was one.
    pub module_manifest: Option<String>,
    /// The dependency lock file's text, when there was one.
    pub dependency_locks: Option<String>,
    pub backend: SavedBackend,
    /// The lineage and serial of the state planned against; `None` when
    /// there was no state yet.
    pub state: Option<(String, u64)>,
    /// Ephemeral variables that were set for the plan: their values are
    /// not kept, so applying it needs them set again.
    pub apply_time_variables: Vec<String>,
}

/// A plan read back from a file, with what it was made from.
#[derive(Clone, Debug)]
pub struct PlanFile {
    pub plan: Plan,
    pub context: PlanContext,
    /// The terrace version that wrote the file.
    pub terrace_version: String,
}

impl PlanFile {
    /// Why the plan may not be applied to the state now stored (`current`:
    /// its lineage and serial, `None` when there is none), or `None` when
    /// it may; OpenTofu's checks and wording. A plan made without a state
    /// applies only while there still is none.
    pub fn check_state(&self, current: Option<(&str, u64)>) -> Option<Diagnostic> {
        // No state file reads as an empty state: no lineage, serial 0.
        let (lineage, serial) = current.unwrap_or(("", 0));
        let stale = || {
            Diagnostic::error(
                "Saved plan is stale",
                "The given plan file can no longer be applied because the state was changed by another operation after the plan was created.",
            )
        };
        match &self.context.state {
            None if serial == 0 => None,
            None => Some(stale()),
            Some((planned_lineage, _)) if planned_lineage != lineage => Some(Diagnostic::error(
                "Saved plan does not match the given state",
                "The given plan file can not be applied because it was created from a different state lineage.",
            )),
            Some((_, planned_serial)) if *planned_serial != serial => Some(stale()),
            Some(_) => None,
        }
    }
}

// ----- values -----

/// Where marks sit inside a value: attribute names and map keys as
/// strings, list and tuple indices as numbers.
fn collect_marks(v: &Value, path: &mut Vec<Json>, out: &mut Vec<Json>) {
    let marks = v.marks();
    let mut names = Vec::new();
    if marks.is_sensitive() {
        names.push("sensitive");
    }
    if marks.is_ephemeral() {
        names.push("ephemeral");
    }
    if !names.is_empty() {
        out.push(json!({ "path": path.clone(), "marks": names }));
    }
    if v.is_null() || !v.is_known() {
        return;
    }
    let ty = v.ty();
    if ty.is_set() {
        // cty keeps no marks inside sets: they belong to the set itself.
        let inner = v
            .as_elements()
            .unwrap_or_default()
            .iter()
            .fold(Marks::NONE, |m, e| m.union(e.deep_marks()));
        if !inner.without(marks).is_empty() {
            let mut names = Vec::new();
            if inner.is_sensitive() {
                names.push("sensitive");
            }
            if inner.is_ephemeral() {
                names.push("ephemeral");
            }
            if !names.is_empty() {
                out.push(json!({ "path": path.clone(), "marks": names }));
            }
        }
    } else if ty.is_object() || ty.is_map() {
        for (k, e) in v.as_attributes().into_iter().flatten() {
            path.push(Json::String(k.clone()));
            collect_marks(e, path, out);
            path.pop();
        }
    } else if ty.is_list() || ty.is_tuple() {
        for (i, e) in v.as_elements().unwrap_or_default().iter().enumerate() {
            path.push(Json::from(i as u64));
            collect_marks(e, path, out);
            path.pop();
        }
    }
}

fn mark_at(v: &Value, path: &[Json], marks: Marks) -> Value {
    let Some((step, rest)) = path.split_first() else {
        return v.clone().mark(marks);
    };
    if v.is_null() || !v.is_known() {
        return v.clone();
    }
    let outer = v.marks();
    let ty = v.ty().clone();
    match (step, &ty) {
        (Json::String(k), Type::Object(_) | Type::Map(_)) => {
            let Some(attrs) = v.as_attributes() else {
                return v.clone();
            };
            if !attrs.contains_key(k) {
                return v.clone();
            }
            let mut attrs = attrs.to_map();
            if let Some(e) = attrs.get_mut(k) {
                *e = mark_at(e, rest, marks);
            }
            match &ty {
                Type::Map(ety) => Value::map((**ety).clone(), attrs).mark(outer),
                _ => Value::object(attrs).mark(outer),
            }
        }
        (Json::Number(n), Type::List(_) | Type::Tuple(_)) => {
            let elems = v.as_elements().unwrap_or_default();
            let Some(i) = n.as_u64().map(|i| i as usize).filter(|i| *i < elems.len()) else {
                return v.clone();
            };
            let mut elems = elems.to_vec();
            elems[i] = mark_at(&elems[i], rest, marks);
            match &ty {
                Type::List(ety) => Value::list((**ety).clone(), elems).mark(outer),
                _ => Value::tuple(elems).mark(outer),
            }
        }
        _ => v.clone(),
    }
}

fn encode_value(v: &Value) -> Result<Json, PlanFileError> {
    let mut marks = Vec::new();
    collect_marks(v, &mut Vec::new(), &mut marks);
    let (plain, _) = v.unmark_deep();
    let ty = plain.ty().clone();
    let bytes = terrace_value::msgpack::encode(&plain, &ty)
        .map_err(|e| err(format!("cannot encode a value: {e}")))?;
    let type_json: Json = serde_json::from_str(&terrace_value::typejson::type_to_json(&ty))
        .map_err(|e| err(format!("cannot encode a type: {e}")))?;
    let mut o = Map::new();
    o.insert("type".into(), type_json);
    o.insert("msgpack".into(), Json::String(B64.encode(bytes)));
    if !marks.is_empty() {
        o.insert("marks".into(), Json::Array(marks));
    }
    Ok(Json::Object(o))
}

fn decode_value(j: &Json, what: &str) -> Result<Value, PlanFileError> {
    let bad = |m: String| err(format!("{what}: {m}"));
    let ty_text = serde_json::to_string(j.get("type").ok_or_else(|| bad("no type".into()))?)
        .map_err(|e| bad(e.to_string()))?;
    let ty = terrace_value::typejson::type_from_json(ty_text.as_bytes())
        .map_err(|e| bad(format!("invalid type: {e}")))?;
    let bytes = B64
        .decode(j.get("msgpack").and_then(Json::as_str).unwrap_or_default())
        .map_err(|e| bad(format!("invalid encoding: {e}")))?;
    let mut v = terrace_value::msgpack::decode(&bytes, &ty)
        .map_err(|e| bad(format!("invalid value: {e}")))?;
    for m in j
        .get("marks")
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
    {
        let path = m
            .get("path")
            .and_then(Json::as_array)
            .cloned()
            .unwrap_or_default();
        let mut marks = Marks::NONE;
        for name in m
            .get("marks")
            .and_then(Json::as_array)
            .into_iter()
            .flatten()
        {
            match name.as_str() {
                Some("sensitive") => marks = marks.union(Marks::SENSITIVE),
                Some("ephemeral") => marks = marks.union(Marks::EPHEMERAL),
                _ => return Err(bad(format!("unknown mark {name}"))),
            }
        }
        v = mark_at(&v, &path, marks);
    }
    Ok(v)
}

fn encode_path(p: &AttributePath) -> Json {
    Json::Array(
        p.steps()
            .iter()
            .map(|s| match s {
                PathStep::Attribute(a) => json!({ "attr": a }),
                PathStep::Key(k) => json!({ "key": k }),
                PathStep::Index(i) => json!({ "index": i }),
            })
            .collect(),
    )
}

fn decode_path(j: &Json) -> Result<AttributePath, PlanFileError> {
    let mut p = AttributePath::root();
    for s in j.as_array().ok_or_else(|| err("invalid attribute path"))? {
        p = if let Some(a) = s.get("attr").and_then(Json::as_str) {
            p.attribute(a)
        } else if let Some(k) = s.get("key").and_then(Json::as_str) {
            p.key(k)
        } else if let Some(i) = s.get("index").and_then(Json::as_i64) {
            p.index(i)
        } else {
            return Err(err("invalid attribute path step"));
        };
    }
    Ok(p)
}

// ----- plans -----

fn mode_name(m: PlanMode) -> &'static str {
    m.ui_name()
}

fn str_field<'a>(j: &'a Json, key: &str) -> Result<&'a str, PlanFileError> {
    j.get(key)
        .and_then(Json::as_str)
        .ok_or_else(|| err(format!("missing {key:?}")))
}

fn opt_str(j: &Json, key: &str) -> Option<String> {
    j.get(key).and_then(Json::as_str).map(str::to_string)
}

fn parse_instance(s: &str) -> Result<AbsResourceInstance, PlanFileError> {
    AbsResourceInstance::parse_str(s).map_err(|_| err(format!("invalid resource address {s:?}")))
}

fn encode_change(c: &ResourceInstanceChange) -> Result<Json, PlanFileError> {
    let mut o = Map::new();
    o.insert("addr".into(), Json::String(c.addr.to_string()));
    o.insert(
        "prev_run_addr".into(),
        Json::String(c.prev_run_addr.to_string()),
    );
    if let Some(d) = &c.deposed {
        o.insert("deposed".into(), Json::String(d.to_string()));
    }
    o.insert("provider".into(), Json::String(c.provider.to_string()));
    o.insert("action".into(), json!(c.action.json_actions()));
    o.insert(
        "reason".into(),
        Json::String(c.action_reason.code().to_string()),
    );
    o.insert("before".into(), encode_value(&c.before)?);
    o.insert("after".into(), encode_value(&c.after)?);
    o.insert(
        "required_replace".into(),
        Json::Array(c.required_replace.iter().map(encode_path).collect()),
    );
    o.insert("private".into(), Json::String(B64.encode(&c.private)));
    if let Some(id) = &c.importing {
        o.insert("importing".into(), Json::String(id.clone()));
    }
    if let Some(g) = &c.generated_config {
        o.insert("generated_config".into(), Json::String(g.clone()));
    }
    o.insert("schema_version".into(), Json::from(c.schema_version));
    Ok(Json::Object(o))
}

fn decode_change(j: &Json) -> Result<ResourceInstanceChange, PlanFileError> {
    let addr = parse_instance(str_field(j, "addr")?)?;
    let actions: Vec<&str> = j
        .get("action")
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
        .filter_map(Json::as_str)
        .collect();
    let action = Action::from_json_actions(&actions)
        .ok_or_else(|| err(format!("{addr}: invalid action {actions:?}")))?;
    let reason = str_field(j, "reason")?
        .chars()
        .next()
        .and_then(ActionReason::from_code)
        .ok_or_else(|| err(format!("{addr}: invalid action reason")))?;
    let provider_text = str_field(j, "provider")?;
    let provider = AbsProviderInstance::parse_str(provider_text).map_err(|_| {
        err(format!(
            "{addr}: invalid provider address {provider_text:?}"
        ))
    })?;
    let deposed = match opt_str(j, "deposed") {
        Some(d) => {
            Some(DeposedKey::parse(&d).ok_or_else(|| err(format!("{addr}: invalid deposed key")))?)
        }
        None => None,
    };
    let what = addr.to_string();
    Ok(ResourceInstanceChange {
        prev_run_addr: parse_instance(str_field(j, "prev_run_addr")?)?,
        deposed,
        provider,
        action,
        action_reason: reason,
        before: decode_value(j.get("before").unwrap_or(&Json::Null), &what)?,
        after: decode_value(j.get("after").unwrap_or(&Json::Null), &what)?,
        required_replace: j
            .get("required_replace")
            .and_then(Json::as_array)
            .into_iter()
            .flatten()
            .map(decode_path)
            .collect::<Result<_, _>>()?,
        private: B64
            .decode(j.get("private").and_then(Json::as_str).unwrap_or_default())
            .map_err(|e| err(format!("{addr}: invalid private data: {e}")))?,
        importing: opt_str(j, "importing"),
        generated_config: opt_str(j, "generated_config"),
        schema_version: j.get("schema_version").and_then(Json::as_u64).unwrap_or(0),
        addr,
    })
}

fn encode_state(s: &State) -> Result<Json, PlanFileError> {
    let (bytes, diags) = statefile::write_with_diagnostics(s);
    if let Some(d) = diags.iter().find(|d| d.is_error()) {
        return Err(err(format!(
            "cannot save the state in the plan: {}",
            d.summary
        )));
    }
    String::from_utf8(bytes)
        .map(Json::String)
        .map_err(|e| err(format!("cannot save the state in the plan: {e}")))
}

fn decode_state(j: Option<&Json>, what: &str) -> Result<State, PlanFileError> {
    let text = j
        .and_then(Json::as_str)
        .ok_or_else(|| err(format!("missing {what}")))?;
    statefile::read(text.as_bytes())
        .map(|(s, _)| s)
        .map_err(|d| {
            err(format!(
                "invalid {what}: {}",
                d.first().map(|d| d.summary.clone()).unwrap_or_default()
            ))
        })
}

fn targets(ts: &[Target]) -> Json {
    Json::Array(ts.iter().map(|t| Json::String(t.to_string())).collect())
}

fn parse_targets(j: Option<&Json>) -> Result<Vec<Target>, PlanFileError> {
    j.and_then(Json::as_array)
        .into_iter()
        .flatten()
        .map(|t| {
            let s = t.as_str().unwrap_or_default();
            Target::parse_str(s).map_err(|_| err(format!("invalid target {s:?}")))
        })
        .collect()
}

fn encode_context(c: &PlanContext) -> Json {
    let modules: Map<String, Json> = c
        .config_files
        .iter()
        .map(|(dir, files)| {
            let files: Map<String, Json> = files
                .iter()
                .map(|(name, text)| (name.clone(), Json::String(text.clone())))
                .collect();
            (dir.clone(), Json::Object(files))
        })
        .collect();
    let backend_config: Map<String, Json> = c
        .backend
        .config
        .iter()
        .map(|(k, v)| (k.clone(), Json::String(v.clone())))
        .collect();
    json!({
        "configuration": modules,
        "module_manifest": c.module_manifest,
        "dependency_locks": c.dependency_locks,
        "backend": {
            "type": c.backend.type_name,
            "config": backend_config,
            "workspace": c.backend.workspace,
        },
        "state": c.state.as_ref().map(|(lineage, serial)| json!({ "lineage": lineage, "serial": serial })),
        "apply_time_variables": c.apply_time_variables,
    })
}

fn decode_context(j: &Json) -> Result<PlanContext, PlanFileError> {
    let strings =
        |j: Option<&Json>, what: &str| -> Result<BTreeMap<String, String>, PlanFileError> {
            j.and_then(Json::as_object)
                .ok_or_else(|| err(format!("missing {what}")))?
                .iter()
                .map(|(k, v)| {
                    v.as_str()
                        .map(|v| (k.clone(), v.to_string()))
                        .ok_or_else(|| err(format!("invalid {what}")))
                })
                .collect()
        };
    let mut config_files = BTreeMap::new();
    for (dir, files) in j
        .get("configuration")
        .and_then(Json::as_object)
        .ok_or_else(|| err("missing the configuration"))?
    {
        config_files.insert(dir.clone(), strings(Some(files), "configuration files")?);
    }
    let backend = j.get("backend").ok_or_else(|| err("missing the backend"))?;
    let state = match j.get("state") {
        None | Some(Json::Null) => None,
        Some(s) => Some((
            str_field(s, "lineage")?.to_string(),
            s.get("serial")
                .and_then(Json::as_u64)
                .ok_or_else(|| err("invalid state serial"))?,
        )),
    };
    Ok(PlanContext {
        config_files,
        module_manifest: opt_str(j, "module_manifest"),
        dependency_locks: opt_str(j, "dependency_locks"),
        backend: SavedBackend {
            type_name: str_field(backend, "type")?.to_string(),
            config: strings(backend.get("config"), "backend configuration")?,
            workspace: str_field(backend, "workspace")?.to_string(),
        },
        state,
        apply_time_variables: j
            .get("apply_time_variables")
            .and_then(Json::as_array)
            .into_iter()
            .flatten()
            .map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| err("invalid apply-time variable"))
            })
            .collect::<Result<_, _>>()?,
    })
}

/// The file for `plan`, with what it was made from.
pub fn write(plan: &Plan, context: &PlanContext) -> Result<Vec<u8>, PlanFileError> {
    let mut o = Map::new();
    o.insert("terrace_plan_format".into(), Json::from(FORMAT_VERSION));
    o.insert(
        "terrace_version".into(),
        Json::String(env!("CARGO_PKG_VERSION").into()),
    );
    o.insert("context".into(), encode_context(context));
    o.insert("mode".into(), Json::String(mode_name(plan.mode).into()));
    let mut vars = Map::new();
    for (k, v) in &plan.variable_values {
        vars.insert(k.clone(), encode_value(v)?);
    }
    o.insert("variables".into(), Json::Object(vars));
    o.insert(
        "changes".into(),
        Json::Array(
            plan.changes
                .iter()
                .map(encode_change)
                .collect::<Result<_, _>>()?,
        ),
    );
    o.insert(
        "drift".into(),
        Json::Array(
            plan.drift
                .iter()
                .map(encode_change)
                .collect::<Result<_, _>>()?,
        ),
    );
    let mut outputs = Vec::new();
    for oc in &plan.output_changes {
        outputs.push(json!({
            "name": oc.name,
            "action": oc.action.json_actions(),
            "before": encode_value(&oc.before)?,
            "after": encode_value(&oc.after)?,
            "sensitive": oc.sensitive,
        }));
    }
    o.insert("outputs".into(), Json::Array(outputs));
    o.insert(
        "relevant_attributes".into(),
        Json::Array(
            plan.relevant_attributes
                .iter()
                .map(|ra| json!({ "resource": ra.resource.to_string(), "attr": encode_path(&ra.attr) }))
                .collect(),
        ),
    );
    o.insert("prior_state".into(), encode_state(&plan.prior_state)?);
    o.insert("prev_run_state".into(), encode_state(&plan.prev_run_state)?);
    o.insert("targets".into(), targets(&plan.targets));
    o.insert("excludes".into(), targets(&plan.excludes));
    o.insert(
        "force_replace".into(),
        Json::Array(
            plan.force_replace
                .iter()
                .map(|a| Json::String(a.to_string()))
                .collect(),
        ),
    );
    o.insert("errored".into(), Json::Bool(plan.errored));
    o.insert("applyable".into(), Json::Bool(plan.applyable));
    o.insert("complete".into(), Json::Bool(plan.complete));
    o.insert("timestamp".into(), Json::String(plan.timestamp.clone()));
    if let Some(checks) = &plan.checks {
        o.insert("checks".into(), checks.to_json());
    }
    // What the plan left out, so that applying it says so as a plan
    // applied at once does.
    let names = |items: Vec<String>| Json::Array(items.into_iter().map(Json::String).collect());
    o.insert(
        "unavailable_providers".into(),
        names(
            plan.unavailable_providers
                .iter()
                .map(ToString::to_string)
                .collect(),
        ),
    );
    o.insert(
        "deferred_providers".into(),
        names(
            plan.deferred_providers
                .iter()
                .map(ToString::to_string)
                .collect(),
        ),
    );
    o.insert(
        "deferred_resources".into(),
        names(
            plan.deferred_resources
                .iter()
                .map(ToString::to_string)
                .collect(),
        ),
    );
    let mut bytes = serde_json::to_vec(&Json::Object(o)).map_err(|e| err(e.to_string()))?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// Reads a file [`write`] wrote.
pub fn read(bytes: &[u8]) -> Result<PlanFile, PlanFileError> {
    let j: Json =
        serde_json::from_slice(bytes).map_err(|_| err("the file is not a terrace plan file"))?;
    match j.get("terrace_plan_format").and_then(Json::as_u64) {
        Some(FORMAT_VERSION) => {}
        Some(v) => {
            return Err(err(format!(
            "the plan file has format version {v}, which this version of terrace does not support"
        )))
        }
        None => return Err(err("the file is not a terrace plan file")),
    }
    let mode = match str_field(&j, "mode")? {
        "normal" => PlanMode::Normal,
        "destroy" => PlanMode::Destroy,
        "refresh-only" => PlanMode::RefreshOnly,
        other => return Err(err(format!("invalid plan mode {other:?}"))),
    };
    let prior_state = decode_state(j.get("prior_state"), "prior state")?;
    let prev_run_state = decode_state(j.get("prev_run_state"), "previous run state")?;
    let mut plan = Plan::empty(mode, prior_state);
    plan.prev_run_state = prev_run_state;
    let mut vars = BTreeMap::new();
    for (k, v) in j
        .get("variables")
        .and_then(Json::as_object)
        .into_iter()
        .flatten()
    {
        vars.insert(k.clone(), decode_value(v, &format!("variable {k}"))?);
    }
    plan.variable_values = vars;
    let list = |key: &str| -> Vec<Json> {
        j.get(key)
            .and_then(Json::as_array)
            .cloned()
            .unwrap_or_default()
    };
    plan.changes = list("changes")
        .iter()
        .map(decode_change)
        .collect::<Result<_, _>>()?;
    plan.drift = list("drift")
        .iter()
        .map(decode_change)
        .collect::<Result<_, _>>()?;
    for oc in list("outputs") {
        let name = str_field(&oc, "name")?.to_string();
        let actions: Vec<&str> = oc
            .get("action")
            .and_then(Json::as_array)
            .into_iter()
            .flatten()
            .filter_map(Json::as_str)
            .collect();
        let what = format!("output {name}");
        plan.output_changes.push(OutputChange {
            action: Action::from_json_actions(&actions)
                .ok_or_else(|| err(format!("{what}: invalid action")))?,
            before: decode_value(oc.get("before").unwrap_or(&Json::Null), &what)?,
            after: decode_value(oc.get("after").unwrap_or(&Json::Null), &what)?,
            sensitive: oc.get("sensitive").and_then(Json::as_bool).unwrap_or(false),
            name,
        });
    }
    for ra in list("relevant_attributes") {
        plan.relevant_attributes.push(ResourceAttr {
            resource: parse_instance(str_field(&ra, "resource")?)?,
            attr: decode_path(ra.get("attr").unwrap_or(&Json::Null))?,
        });
    }
    plan.targets = parse_targets(j.get("targets"))?;
    plan.excludes = parse_targets(j.get("excludes"))?;
    plan.force_replace = list("force_replace")
        .iter()
        .map(|a| parse_instance(a.as_str().unwrap_or_default()))
        .collect::<Result<_, _>>()?;
    let flag = |key: &str| j.get(key).and_then(Json::as_bool).unwrap_or(false);
    plan.errored = flag("errored");
    plan.applyable = flag("applyable");
    plan.complete = flag("complete");
    plan.timestamp = opt_str(&j, "timestamp").unwrap_or_default();
    let texts = |key: &str| -> Vec<String> {
        list(key)
            .iter()
            .map(|v| v.as_str().unwrap_or_default().to_string())
            .collect()
    };
    plan.unavailable_providers = texts("unavailable_providers")
        .iter()
        .map(|s| {
            terrace_addrs::AbsProviderInstance::parse_str(s)
                .map_err(|_| err(format!("invalid provider instance address {s:?}")))
        })
        .collect::<Result<_, _>>()?;
    plan.deferred_providers = texts("deferred_providers")
        .iter()
        .map(|s| {
            terrace_addrs::AbsProviderConfig::parse_str(s)
                .map_err(|_| err(format!("invalid provider configuration address {s:?}")))
        })
        .collect::<Result<_, _>>()?;
    plan.deferred_resources = texts("deferred_resources")
        .iter()
        .map(|s| parse_instance(s))
        .collect::<Result<_, _>>()?;
    plan.checks = match j.get("checks") {
        None | Some(Json::Null) => None,
        Some(c) => Some(
            terrace_states::CheckResults::from_json(c)
                .map_err(|e| err(format!("invalid check results: {e}")))?,
        ),
    };
    Ok(PlanFile {
        plan,
        context: decode_context(j.get("context").unwrap_or(&Json::Null))?,
        terrace_version: opt_str(&j, "terrace_version").unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests;
