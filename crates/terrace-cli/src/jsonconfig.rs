//! The `configuration` object of `show -json` for a plan: the loaded module
//! tree described as Terraform 1.11 writes it (OpenTofu's `jsonconfig`
//! gives the structure), with expressions reduced to a constant value or
//! the list of references they make, keyed by the provider's schema.
//!
//! Go writes maps sorted by key and structs in field order, leaving out
//! empty fields; every object here is built in that order and written as
//! compact text with Go's string escaping, so the bytes match Terraform's.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use terrace_addrs::Provider;
use terrace_config::body::{Body, BodySchema};
use terrace_config::expr::Expression;
use terrace_config::loader::Config;
use terrace_config::model::{Resource, StaticTraversal};
use terrace_lang::references::{parse_ref, InstanceKey, ResourceMode, Subject};
use terrace_lang::scope::MapScope;
use terrace_providers::schema::{Attribute, Block, NestingMode, ProviderSchema};
use terrace_syntax::ast::{SourceFile, TraversalStep};
use terrace_syntax::diagnostic::has_errors;
use terrace_value::{gostr, Type, Value};

/// The provider schemas the expressions are read with; `None` for a
/// provider whose schema is not available (its expressions are left out).
pub type ProviderSchemas<'a> = dyn Fn(&Provider) -> Option<Arc<ProviderSchema>> + 'a;

/// The `configuration` object of the plan document, as compact JSON text.
pub fn configuration_json(config: &Config, schemas: &ProviderSchemas<'_>) -> String {
    let reqs = crate::commands::providers::requirements_by_module(config).0;
    let mut pcs = BTreeMap::new();
    provider_configs(config, &reqs, None, schemas, &mut pcs);
    let mut root = module(config, schemas);
    normalize_provider_keys(&mut root, &pcs);
    let provider_config: Vec<(String, J)> = pcs
        .into_iter()
        .filter(|(_, pc)| pc.parent_key.is_none())
        .map(|(k, pc)| (k, pc.json()))
        .collect();
    let mut out = Vec::new();
    if !provider_config.is_empty() {
        out.push(("provider_config".to_string(), J::Obj(provider_config)));
    }
    out.push(("root_module".to_string(), root.json()));
    let mut text = String::new();
    J::Obj(out).write(&mut text);
    text
}

// ----- JSON text -----

/// A JSON value in the order it is written; `Raw` is already encoded.
enum J {
    Raw(String),
    Obj(Vec<(String, J)>),
    Arr(Vec<J>),
}

impl J {
    fn str(s: &str) -> J {
        J::Raw(go_string(s))
    }

    fn write(&self, out: &mut String) {
        match self {
            J::Raw(text) => out.push_str(text),
            J::Obj(fields) => {
                out.push('{');
                for (i, (k, v)) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&go_string(k));
                    out.push(':');
                    v.write(out);
                }
                out.push('}');
            }
            J::Arr(items) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    v.write(out);
                }
                out.push(']');
            }
        }
    }
}

/// A JSON string as Go's `json.Marshal` escapes it (`<`, `>`, `&`,
/// U+2028/9), which is what cty's encoder already produces.
fn go_string(s: &str) -> String {
    terrace_value::json::to_json(&Value::string(s), &Type::String)
        .unwrap_or_else(|_| serde_json::Value::String(s.to_string()).to_string())
}

/// Builds an object, leaving out what Go's `omitempty` leaves out.
#[derive(Default)]
struct Fields(Vec<(String, J)>);

impl Fields {
    fn put(&mut self, key: &str, value: J) {
        self.0.push((key.to_string(), value));
    }

    fn str(&mut self, key: &str, value: &str) {
        if !value.is_empty() {
            self.put(key, J::str(value));
        }
    }

    fn flag(&mut self, key: &str, value: bool) {
        if value {
            self.put(key, J::Raw("true".into()));
        }
    }

    fn strings(&mut self, key: &str, values: &[String]) {
        if !values.is_empty() {
            self.put(key, J::Arr(values.iter().map(|s| J::str(s)).collect()));
        }
    }

    fn map(&mut self, key: &str, values: Vec<(String, J)>) {
        if !values.is_empty() {
            self.put(key, J::Obj(values));
        }
    }

    fn done(self) -> J {
        J::Obj(self.0)
    }
}

// ----- expressions -----

/// One expression: its value when it evaluates without any variables or
/// functions, and the references it makes, each reference followed by
/// its shorter prefixes down to the referenced object.
fn expression(expr: &Expression) -> J {
    let mut f = Fields::default();
    let (value, diags) = expr.constant_value();
    if !has_errors(&diags) {
        if let Ok(text) = terrace_value::json::to_json(&value, value.ty()) {
            f.put("constant_value", J::Raw(text));
        }
    }
    let mut refs = Vec::new();
    for traversal in expr.variables() {
        let (Some(r), _) = parse_ref(&traversal, expr.file()) else {
            continue;
        };
        let subject = r.subject.to_string();
        for len in (1..=r.remaining.len()).rev() {
            refs.push(format!(
                "{subject}{}",
                steps_string(&r.remaining[..len], expr.file())
            ));
        }
        refs.push(subject);
        match &r.subject {
            Subject::ModuleCallInstance { call, key } if *key != InstanceKey::None => {
                refs.push(format!("module.{call}"));
            }
            Subject::ResourceInstance { resource, key } if *key != InstanceKey::None => {
                refs.push(resource.to_string());
            }
            Subject::ModuleCallInstanceOutput { call, key, .. } => {
                refs.push(format!("module.{call}{key}"));
            }
            _ => {}
        }
    }
    f.strings("references", &refs);
    f.done()
}

/// Traversal steps after a reference's subject, as Terraform writes them
/// (`.attr`, `["key"]`, `[0]`, and `[...]` for any other key).
fn steps_string(steps: &[TraversalStep], file: &SourceFile) -> String {
    let mut s = String::new();
    for step in steps {
        match step {
            TraversalStep::Attr { name, .. } => {
                s.push('.');
                s.push_str(name);
            }
            TraversalStep::Index { key, .. } => {
                let (value, diags) = terrace_lang::eval::evaluate(key, file, &MapScope::constant());
                s.push('[');
                match (has_errors(&diags), value.as_str(), value.as_number()) {
                    (false, Some(text), _) => s.push_str(&gostr::quote(text)),
                    (false, _, Some(n)) => s.push_str(&n.text('g', 10)),
                    _ => s.push_str("..."),
                }
                s.push(']');
            }
        }
    }
    s
}

/// The arguments and nested blocks of `body` that `schema` declares,
/// sorted by name; `dynamic` blocks and anything else are left out.
fn expressions(body: &Body, schema: &Block) -> Vec<(String, J)> {
    let mut low = BodySchema::new();
    for name in schema.attributes.keys() {
        low = low.attr(name);
    }
    for (name, nested) in &schema.block_types {
        low = match nested.nesting {
            NestingMode::Map => low.labeled_block(name, &["key"]),
            _ => low.block(name),
        };
    }
    let (content, _, _) = body.partial_content(&low);
    let mut out: BTreeMap<String, J> = BTreeMap::new();
    for attr in &content.attributes {
        out.insert(attr.name.clone(), expression(&attr.expr));
    }
    let mut lists: BTreeMap<String, Vec<J>> = BTreeMap::new();
    let mut maps: BTreeMap<String, BTreeMap<String, J>> = BTreeMap::new();
    for block in &content.blocks {
        let Some(nested) = schema.block_types.get(&block.block_type) else {
            continue;
        };
        let inner = J::Obj(expressions(&block.body, &nested.block));
        match nested.nesting {
            NestingMode::Single | NestingMode::Group => {
                out.insert(block.block_type.clone(), inner);
            }
            NestingMode::List | NestingMode::Set => {
                lists
                    .entry(block.block_type.clone())
                    .or_default()
                    .push(inner);
            }
            NestingMode::Map => {
                if let Some(label) = block.labels.first() {
                    maps.entry(block.block_type.clone())
                        .or_default()
                        .insert(label.clone(), inner);
                }
            }
        }
    }
    for (name, items) in lists {
        out.insert(name, J::Arr(items));
    }
    for (name, items) in maps {
        out.insert(name, J::Obj(items.into_iter().collect()));
    }
    out.into_iter().collect()
}

/// The arguments of the built-in provisioners, which have no provider to
/// ask for a schema.
fn provisioner_schema(type_name: &str) -> Option<Block> {
    let names: &[&str] = match type_name {
        "local-exec" => &[
            "command",
            "interpreter",
            "working_dir",
            "environment",
            "quiet",
        ],
        "remote-exec" => &["inline", "script", "scripts"],
        "file" => &["source", "content", "destination"],
        _ => return None,
    };
    let mut block = Block::default();
    for name in names {
        block
            .attributes
            .insert(name.to_string(), Attribute::new(Type::Dynamic));
    }
    Some(block)
}

/// `depends_on` entries as the addresses they name.
fn depends_on(list: &[StaticTraversal]) -> Vec<String> {
    list.iter()
        .filter_map(|d| parse_ref(&d.traversal, &d.file).0)
        .map(|r| r.subject.to_string())
        .collect()
}

// ----- provider configurations -----

struct ProviderConfig {
    name: String,
    full_name: String,
    alias: String,
    version_constraint: String,
    module_address: String,
    expressions: Vec<(String, J)>,
    /// The configuration in a calling module this one stands for; such
    /// entries are dropped from the output and resources are pointed at
    /// the parent instead.
    parent_key: Option<String>,
}

impl ProviderConfig {
    fn new(name: &str, full_name: String, module_address: String) -> ProviderConfig {
        ProviderConfig {
            name: name.to_string(),
            full_name,
            alias: String::new(),
            version_constraint: String::new(),
            module_address,
            expressions: Vec::new(),
            parent_key: None,
        }
    }

    fn json(self) -> J {
        let mut f = Fields::default();
        f.str("name", &self.name);
        f.str("full_name", &self.full_name);
        f.str("alias", &self.alias);
        f.str("version_constraint", &self.version_constraint);
        f.str("module_address", &self.module_address);
        f.map("expressions", self.expressions);
        f.done()
    }
}

/// `module.a:aws.west`, or `aws.west` in the root module.
fn provider_key(provider: &str, module_addr: &str) -> String {
    if module_addr.is_empty() {
        provider.to_string()
    } else {
        format!("{module_addr}:{provider}")
    }
}

/// Follows parent links from `start` while they lead to configurations of
/// the same provider; the last one found is where the configuration comes
/// from.
fn source_provider_key(
    start: String,
    full_name: &str,
    m: &BTreeMap<String, ProviderConfig>,
) -> Option<String> {
    let mut found = None;
    let mut key = Some(start);
    // Parent links point up the module tree, so the chain is no longer
    // than the map; the bound only guards against a malformed map.
    for _ in 0..=m.len() {
        let Some(k) = key else { break };
        match m.get(&k) {
            Some(parent) if parent.full_name == full_name => {
                key = parent.parent_key.clone();
                found = Some(k);
            }
            _ => break,
        }
    }
    found
}

fn provider_configs(
    c: &Config,
    reqs: &crate::commands::providers::ModuleRequirements,
    parent_path: Option<&str>,
    schemas: &ProviderSchemas<'_>,
    m: &mut BTreeMap<String, ProviderConfig>,
) {
    let module = &c.module;
    let path = c.path_string();
    let constraint = |fqn: &Provider| {
        reqs.requirements
            .get(fqn)
            .map(|v| v.to_string())
            .unwrap_or_default()
    };

    for (k, pc) in &module.provider_configs {
        let fqn = module.provider_for_local_name(&pc.name);
        let schema = fqn.as_ref().and_then(schemas);
        let mut p = ProviderConfig::new(
            &pc.name,
            fqn.as_ref().map(|f| f.to_string()).unwrap_or_default(),
            path.clone(),
        );
        p.alias = pc.alias.clone().unwrap_or_default();
        if let Some(schema) = schema {
            p.expressions = expressions(&pc.config, &schema.provider.block);
        }
        if let Some(fqn) = &fqn {
            p.version_constraint = constraint(fqn);
        }
        m.insert(provider_key(k, &path), p);
    }

    for (local_name, rp) in &module.required_providers.providers {
        let full_name = rp
            .provider
            .as_ref()
            .map(|p| p.to_string())
            .unwrap_or_default();
        let version = rp.provider.as_ref().map(&constraint).unwrap_or_default();
        for alias in &rp.aliases {
            let key = provider_key(&alias.to_string(), &path);
            if m.contains_key(&key) {
                continue;
            }
            let mut p = ProviderConfig::new(&rp.name, full_name.clone(), path.clone());
            p.version_constraint = version.clone();
            m.insert(key, p);
        }
        let key = provider_key(local_name, &path);
        if m.contains_key(&key) {
            continue;
        }
        let mut p = ProviderConfig::new(&rp.name, full_name.clone(), path.clone());
        p.version_constraint = version;
        if let Some(parent) = parent_path {
            p.parent_key = source_provider_key(provider_key(&rp.name, parent), &full_name, m);
        }
        m.insert(key, p);
    }

    // Default configurations exist implicitly for every provider the
    // module needs, inherited from the caller when it has one.
    for fqn in reqs.requirements.keys() {
        let key = provider_key(fqn.type_name(), &path);
        if m.contains_key(&key) {
            continue;
        }
        let full_name = fqn.to_string();
        let mut p = ProviderConfig::new(fqn.type_name(), full_name.clone(), path.clone());
        if let Some(parent) = parent_path {
            p.parent_key =
                source_provider_key(provider_key(fqn.type_name(), parent), &full_name, m);
        }
        m.insert(key, p);
    }

    for (name, call) in &module.module_calls {
        let (Some(child), Some(child_reqs)) = (c.children.get(name), reqs.children.get(name))
        else {
            continue;
        };
        let child_path = child.path_string();
        for passed in &call.providers {
            let in_child = passed.in_child.config_key();
            let fqn = child.module.provider_for_local_name(&passed.in_child.name);
            let full_name = fqn.map(|f| f.to_string()).unwrap_or_default();
            let mut p = ProviderConfig::new(&in_child, full_name.clone(), child_path.clone());
            p.parent_key = source_provider_key(
                provider_key(&passed.in_parent.config_key(), &path),
                &full_name,
                m,
            );
            m.insert(provider_key(&in_child, &child_path), p);
        }
        provider_configs(child, child_reqs, Some(&path), schemas, m);
    }
}

// ----- modules -----

struct ModuleJson {
    outputs: Vec<(String, J)>,
    resources: Vec<ResourceJson>,
    module_calls: Vec<(String, CallJson)>,
    variables: Vec<(String, J)>,
}

impl ModuleJson {
    fn json(self) -> J {
        let mut f = Fields::default();
        f.map("outputs", self.outputs);
        if !self.resources.is_empty() {
            f.put(
                "resources",
                J::Arr(self.resources.into_iter().map(ResourceJson::json).collect()),
            );
        }
        f.map(
            "module_calls",
            self.module_calls
                .into_iter()
                .map(|(k, c)| (k, c.json()))
                .collect(),
        );
        f.map("variables", self.variables);
        f.done()
    }
}

struct ResourceJson {
    provider_config_key: String,
    /// Everything before `provider_config_key`.
    head: Fields,
    /// Everything after it.
    tail: Fields,
}

impl ResourceJson {
    fn json(self) -> J {
        let mut f = self.head;
        f.str("provider_config_key", &self.provider_config_key);
        f.0.extend(self.tail.0);
        f.done()
    }
}

struct CallJson {
    head: Fields,
    module: ModuleJson,
    tail: Fields,
}

impl CallJson {
    fn json(self) -> J {
        let mut f = self.head;
        f.put("module", self.module.json());
        f.0.extend(self.tail.0);
        f.done()
    }
}

fn module(c: &Config, schemas: &ProviderSchemas<'_>) -> ModuleJson {
    let m = &c.module;
    let path = c.path_string();
    let mut resources = resources_of(&m.managed_resources, &path, schemas);
    resources.extend(resources_of(&m.data_resources, &path, schemas));
    resources.extend(resources_of(&m.ephemeral_resources, &path, schemas));

    let outputs = m
        .outputs
        .iter()
        .map(|(name, o)| {
            let mut f = Fields::default();
            f.flag("sensitive", o.sensitive);
            f.put(
                "expression",
                o.expr
                    .as_ref()
                    .map(expression)
                    .unwrap_or(J::Obj(Vec::new())),
            );
            f.strings("depends_on", &depends_on(&o.depends_on));
            f.str("description", o.description.as_deref().unwrap_or_default());
            (name.clone(), f.done())
        })
        .collect();

    let module_calls = m
        .module_calls
        .iter()
        .map(|(name, call)| {
            let child = c.children.get(name);
            let mut head = Fields::default();
            head.str(
                "source",
                call.source_addr_raw.as_deref().unwrap_or_default(),
            );
            let mut vars = Block::default();
            if let Some(child) = child {
                for v in child.module.variables.values() {
                    // Only the names matter: a missing argument is not
                    // this document's concern.
                    vars.attributes
                        .insert(v.name.clone(), Attribute::new(Type::Dynamic));
                }
            }
            head.map("expressions", expressions(&call.config, &vars));
            meta_expressions(&mut head, call.count.as_ref(), call.for_each.as_ref());
            let mut tail = Fields::default();
            if let Some(v) = &call.version {
                tail.str("version_constraint", &v.required.to_string());
            }
            tail.strings("depends_on", &depends_on(&call.depends_on));
            let module = match child {
                Some(child) => module(child, schemas),
                None => ModuleJson {
                    outputs: Vec::new(),
                    resources: Vec::new(),
                    module_calls: Vec::new(),
                    variables: Vec::new(),
                },
            };
            (name.clone(), CallJson { head, module, tail })
        })
        .collect();

    let variables = m
        .variables
        .iter()
        .map(|(name, v)| {
            let mut f = Fields::default();
            if let Some(default) = &v.default {
                let (plain, _) = default.unmark_deep();
                if let Ok(text) = terrace_value::json::to_json(&plain, plain.ty()) {
                    f.put("default", J::Raw(text));
                }
            }
            f.str("description", v.description.as_deref().unwrap_or_default());
            f.flag("sensitive", v.sensitive);
            (name.clone(), f.done())
        })
        .collect();

    ModuleJson {
        outputs,
        resources,
        module_calls,
        variables,
    }
}

/// `count_expression`, or else `for_each_expression`, when it says
/// anything.
fn meta_expressions(f: &mut Fields, count: Option<&Expression>, for_each: Option<&Expression>) {
    let nonempty = |e: Option<&Expression>| {
        e.map(expression)
            .filter(|j| !matches!(j, J::Obj(fields) if fields.is_empty()))
    };
    if let Some(j) = nonempty(count) {
        f.put("count_expression", j);
    } else if let Some(j) = nonempty(for_each) {
        f.put("for_each_expression", j);
    }
}

fn resources_of(
    resources: &BTreeMap<String, Resource>,
    module_addr: &str,
    schemas: &ProviderSchemas<'_>,
) -> Vec<ResourceJson> {
    resources_sorted(resources.values().collect(), module_addr, schemas)
}

/// One mode's resources, sorted by address.
fn resources_sorted(
    mut list: Vec<&Resource>,
    module_addr: &str,
    schemas: &ProviderSchemas<'_>,
) -> Vec<ResourceJson> {
    list.sort_by_key(|r| r.address());
    let mut cache: HashMap<Provider, Option<Arc<ProviderSchema>>> = HashMap::new();
    list.into_iter()
        .map(|r| {
            let mut head = Fields::default();
            head.str("address", &r.address());
            head.str(
                "mode",
                match r.mode {
                    ResourceMode::Managed => "managed",
                    ResourceMode::Data => "data",
                    ResourceMode::Ephemeral => "ephemeral",
                },
            );
            head.str("type", &r.type_name);
            head.str("name", &r.name);

            let mut tail = Fields::default();
            if let Some(managed) = &r.managed {
                let provisioners: Vec<J> = managed
                    .provisioners
                    .iter()
                    .map(|p| {
                        let mut f = Fields::default();
                        f.str("type", &p.type_name);
                        if let Some(schema) = provisioner_schema(&p.type_name) {
                            f.map("expressions", expressions(&p.config, &schema));
                        }
                        f.done()
                    })
                    .collect();
                if !provisioners.is_empty() {
                    tail.put("provisioners", J::Arr(provisioners));
                }
            }
            let schema = r
                .provider
                .as_ref()
                .and_then(|p| cache.entry(p.clone()).or_insert_with(|| schemas(p)).clone());
            let resource_schema = schema.as_ref().and_then(|s| match r.mode {
                ResourceMode::Managed => s.resource_types.get(&r.type_name),
                ResourceMode::Data => s.data_sources.get(&r.type_name),
                ResourceMode::Ephemeral => s.ephemeral_resources.get(&r.type_name),
            });
            if let Some(rs) = resource_schema {
                tail.map("expressions", expressions(&r.config, &rs.block));
                tail.put("schema_version", J::Raw(rs.version.max(0).to_string()));
            }
            meta_expressions(&mut tail, r.count.as_ref(), r.for_each.as_ref());
            tail.strings("depends_on", &depends_on(&r.depends_on));
            ResourceJson {
                provider_config_key: provider_key(&r.provider_config_key(), module_addr),
                head,
                tail,
            }
        })
        .collect()
}

/// Points resources whose provider configuration is passed or inherited
/// from a calling module at the configuration it comes from.
fn normalize_provider_keys(m: &mut ModuleJson, pcs: &BTreeMap<String, ProviderConfig>) {
    for r in &mut m.resources {
        if let Some(parent) = pcs
            .get(&r.provider_config_key)
            .and_then(|pc| pc.parent_key.as_ref())
        {
            if pcs.contains_key(parent) {
                r.provider_config_key = parent.clone();
            }
        }
    }
    for (_, call) in &mut m.module_calls {
        normalize_provider_keys(&mut call.module, pcs);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use terrace_config::loader::{load_config, LoadOptions};
    use terrace_providers::schema::{NestedBlock, Schema};
    use terrace_syntax::ast::SourceFile;

    fn text(j: &J) -> String {
        let mut s = String::new();
        j.write(&mut s);
        s
    }

    fn expr_json(src: &str) -> String {
        let file = SourceFile::new("t.tf", src);
        let (e, diags) = terrace_syntax::parse_expression(&file);
        assert!(!has_errors(&diags), "{src}: {diags:?}");
        text(&expression(&Expression::native(&file, e)))
    }

    #[test]
    fn expressions_are_constants_or_reference_lists() {
        let cases = [
            ("1.5", r#"{"constant_value":1.5}"#),
            ("null", r#"{"constant_value":null}"#),
            (r#""<&>""#, r#"{"constant_value":"\u003c\u0026\u003e"}"#),
            (
                r#"{ b = [true], a = "x" }"#,
                r#"{"constant_value":{"a":"x","b":[true]}}"#,
            ),
            ("upper(\"x\")", "{}"),
            ("var.x", r#"{"references":["var.x"]}"#),
            (
                r#"var.m["k"][0].z"#,
                r#"{"references":["var.m[\"k\"][0].z","var.m[\"k\"][0]","var.m[\"k\"]","var.m"]}"#,
            ),
            (
                "aws_instance.a[1].id",
                r#"{"references":["aws_instance.a[1].id","aws_instance.a[1]","aws_instance.a"]}"#,
            ),
            (
                "aws_instance.a.id",
                r#"{"references":["aws_instance.a.id","aws_instance.a"]}"#,
            ),
            (
                "aws_instance.a[*].id",
                r#"{"references":["aws_instance.a"]}"#,
            ),
            (
                "data.d.n.out",
                r#"{"references":["data.d.n.out","data.d.n"]}"#,
            ),
            (
                r#"module.m["k"].o"#,
                r#"{"references":["module.m[\"k\"].o","module.m[\"k\"]"]}"#,
            ),
            (
                "module.m[2]",
                r#"{"references":["module.m[2]","module.m"]}"#,
            ),
            ("module.m.o", r#"{"references":["module.m.o","module.m"]}"#),
            (
                "[for v in var.l : v if v != local.y]",
                r#"{"references":["var.l","local.y"]}"#,
            ),
            (
                "count.index + each.key",
                r#"{"references":["count.index","each.key"]}"#,
            ),
            // Not a valid reference: left out, as Terraform's parser drops it.
            ("nope", "{}"),
        ];
        for (src, want) in cases {
            assert_eq!(expr_json(src), want, "{src}");
        }
    }

    #[test]
    fn source_keys_follow_parents_of_the_same_provider() {
        let mut m = BTreeMap::new();
        let pc = |full: &str, parent: Option<&str>| {
            let mut p = ProviderConfig::new("aws", full.to_string(), String::new());
            p.parent_key = parent.map(str::to_string);
            p
        };
        m.insert("aws".to_string(), pc("hashicorp/aws", None));
        m.insert("module.a:aws".to_string(), pc("hashicorp/aws", Some("aws")));
        m.insert("module.b:aws".to_string(), pc("other/aws", Some("aws")));
        let find = |k: &str, full: &str| source_provider_key(k.to_string(), full, &m);
        assert_eq!(
            find("module.a:aws", "hashicorp/aws").as_deref(),
            Some("aws")
        );
        assert_eq!(find("module.b:aws", "hashicorp/aws"), None);
        assert_eq!(find("missing", "hashicorp/aws"), None);
        assert_eq!(provider_key("aws.west", ""), "aws.west");
        assert_eq!(
            provider_key("aws", "module.a.module.b"),
            "module.a.module.b:aws"
        );
    }

    /// A provider whose config has one block of each nesting mode.
    fn fake_schema() -> Arc<ProviderSchema> {
        let mut inner = Block::default();
        inner
            .attributes
            .insert("v".into(), Attribute::new(Type::String));
        let mut provider = Block::default();
        provider
            .attributes
            .insert("region".into(), Attribute::new(Type::String));
        for (name, nesting) in [
            ("single", NestingMode::Single),
            ("list", NestingMode::List),
            ("map", NestingMode::Map),
        ] {
            provider.block_types.insert(
                name.into(),
                NestedBlock {
                    nesting,
                    block: inner.clone(),
                    min_items: 0,
                    max_items: 0,
                },
            );
        }
        let mut resource = Block::default();
        resource
            .attributes
            .insert("name".into(), Attribute::new(Type::String));
        Arc::new(ProviderSchema {
            provider: Schema {
                version: 0,
                block: provider,
            },
            resource_types: BTreeMap::from([(
                "fake_thing".to_string(),
                Schema {
                    version: 3,
                    block: resource,
                },
            )]),
            ..Default::default()
        })
    }

    #[test]
    fn provider_configs_modules_and_blocks() {
        let dir = std::env::temp_dir().join(format!("terrace-jsonconfig-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("child")).expect("create test directory");
        let root = r#"
terraform {
  required_providers {
    fake = { source = "example/fake", version = "~> 1.2" }
  }
}
provider "fake" {
  region = var.r
  list { v = "a" }
  list { v = "b" }
  map "k2" { v = "y" }
  map "k1" { v = "x" }
  single { v = "s" }
  dynamic "list" {
    for_each = [1]
    content { v = "d" }
  }
}
provider "fake" {
  alias = "two"
}
variable "r" {}
module "c" {
  source    = "./child"
  providers = { fake = fake.two }
  x         = 1
  unknown   = 2
}
resource "fake_thing" "t" {
  name       = "n"
  depends_on = [module.c]
}
"#;
        let child = r#"
terraform {
  required_providers {
    fake = { source = "example/fake" }
  }
}
variable "x" {}
resource "fake_thing" "u" {}
"#;
        std::fs::write(dir.join("main.tf"), root).expect("write main.tf");
        std::fs::write(dir.join("child/main.tf"), child).expect("write child");
        let (config, diags) = load_config(&dir, &LoadOptions::default());
        let _ = std::fs::remove_dir_all(&dir);
        assert!(!has_errors(&diags), "{diags:?}");
        let schema = fake_schema();
        let got = configuration_json(&config, &|p: &Provider| {
            (p.type_name() == "fake").then(|| schema.clone())
        });
        let want = concat!(
            r#"{"provider_config":{"#,
            r#""fake":{"name":"fake","full_name":"registry.terraform.io/example/fake","version_constraint":"~\u003e 1.2","expressions":{"#,
            r#""list":[{"v":{"constant_value":"a"}},{"v":{"constant_value":"b"}}],"#,
            r#""map":{"k1":{"v":{"constant_value":"x"}},"k2":{"v":{"constant_value":"y"}}},"#,
            r#""region":{"references":["var.r"]},"single":{"v":{"constant_value":"s"}}}},"#,
            r#""fake.two":{"name":"fake","full_name":"registry.terraform.io/example/fake","alias":"two","version_constraint":"~\u003e 1.2"}},"#,
            r#""root_module":{"resources":[{"address":"fake_thing.t","mode":"managed","type":"fake_thing","name":"t","provider_config_key":"fake","expressions":{"name":{"constant_value":"n"}},"schema_version":3,"depends_on":["module.c"]}],"#,
            r#""module_calls":{"c":{"source":"./child","expressions":{"x":{"constant_value":1}},"module":{"#,
            r#""resources":[{"address":"fake_thing.u","mode":"managed","type":"fake_thing","name":"u","provider_config_key":"fake.two","schema_version":3}],"#,
            r#""variables":{"x":{}}}}},"variables":{"r":{}}}}"#,
        );
        assert_eq!(got, want);
    }
}
