//! The in-memory state: what a state snapshot holds (root outputs, and for
//! every resource its instances, each with a current object and deposed
//! ones), keyed by address so the engine finds an instance in O(log n).
//!
//! Resource attributes stay as the JSON text the file (or the provider)
//! gave, because a state file carries no types: only the engine, after
//! `UpgradeResourceState`, knows the schema to decode them with.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use terrace_addrs::{
    AbsProviderConfig, AbsProviderInstance, AbsResource, AbsResourceInstance, ConfigResource,
    InstanceKey, ModuleInstance,
};
use terrace_value::convert::PathStep;
use terrace_value::json::{self as vjson, CodecError};
use terrace_value::{Marks, Type, Value};

/// The version a fresh state records as its writer until the caller says
/// otherwise: the Terraform release terrace is compatible with.
pub use terrace_syntax::TERRAFORM_VERSION;

/// A whole state snapshot.
#[derive(Clone, Debug)]
pub struct State {
    pub serial: u64,
    pub lineage: String,
    /// As read from the file; the writer writes whatever is here.
    pub terraform_version: String,
    /// Root module outputs only: the v4 format keeps no others.
    pub outputs: BTreeMap<String, OutputState>,
    pub resources: BTreeMap<AbsResource, ResourceState>,
    /// The results of custom conditions the last apply recorded (`None`
    /// writes `null`).
    pub check_results: Option<crate::checks::CheckResults>,
}

/// A root output value.
#[derive(Clone, Debug)]
pub struct OutputState {
    /// Typed with the type recorded in the file; unmarked.
    pub value: Value,
    pub sensitive: bool,
}

/// One resource (all its instances) in one module instance.
#[derive(Clone, Debug)]
pub struct ResourceState {
    /// The provider configuration every instance uses; when the
    /// configuration has `for_each`, the instances differ only in
    /// `provider_key`.
    pub provider: AbsProviderConfig,
    pub each_mode: EachMode,
    /// Shared: copying a state (a plan keeps the state it started from
    /// and the refreshed one) copies the maps, not every object; a change
    /// copies the one instance it touches (`Arc::make_mut`). It also keeps
    /// map nodes small: a node has room for eleven entries, and with the
    /// instance inline a single-instance resource cost about 2 KB.
    pub instances: BTreeMap<InstanceKey, Arc<InstanceState>>,
}

/// How the instances of a resource are keyed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum EachMode {
    /// No `count` or `for_each`: the only instance has no key.
    #[default]
    NoEach,
    /// `count`: integer keys (`"each": "list"`).
    List,
    /// `for_each`: string keys (`"each": "map"`).
    Map,
}

impl EachMode {
    /// The mode that instance keys of this kind imply.
    pub fn for_key(key: &InstanceKey) -> EachMode {
        match key {
            InstanceKey::None => EachMode::NoEach,
            InstanceKey::Int(_) => EachMode::List,
            InstanceKey::String(_) => EachMode::Map,
        }
    }
}

/// One instance of a resource: its current object, if any, and objects
/// deposed by create-before-destroy replacements not yet destroyed.
#[derive(Clone, Debug, Default)]
pub struct InstanceState {
    pub current: Option<ObjectState>,
    pub deposed: BTreeMap<DeposedKey, ObjectState>,
    /// The key of the provider instance this instance is bound to;
    /// `InstanceKey::None` unless the provider configuration has
    /// `for_each`.
    pub provider_key: InstanceKey,
}

impl InstanceState {
    /// No current and no deposed object: nothing left to keep.
    pub fn is_empty(&self) -> bool {
        self.current.is_none() && self.deposed.is_empty()
    }
}

/// The key of a deposed object: 8 hexadecimal digits, random.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DeposedKey(pub Arc<str>);

impl DeposedKey {
    /// A fresh random key, unlikely to collide with `existing` and never
    /// equal to any of them.
    pub fn generate(existing: &BTreeMap<DeposedKey, ObjectState>) -> Result<DeposedKey, String> {
        loop {
            let mut bytes = [0u8; 4];
            getrandom::fill(&mut bytes).map_err(|e| format!("no random source: {e}"))?;
            let key = DeposedKey(Arc::from(hex(&bytes)));
            if !existing.contains_key(&key) {
                return Ok(key);
            }
        }
    }

    /// Accepts what the state file format allows: exactly 8 hex digits.
    pub fn parse(s: &str) -> Option<DeposedKey> {
        (s.len() == 8 && s.bytes().all(|b| b.is_ascii_hexdigit())).then(|| DeposedKey(Arc::from(s)))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for DeposedKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Whether an object is usable or must be replaced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ObjectStatus {
    #[default]
    Ready,
    /// `terraform taint`, or a create that failed part-way.
    Tainted,
}

/// One remote object as the state records it.
#[derive(Clone, Debug)]
pub struct ObjectState {
    pub schema_version: u64,
    pub attributes: AttrsJson,
    /// Paths to the parts of the attributes that are sensitive
    /// (`sensitive_attributes`).
    pub sensitive_paths: Vec<SensitivePath>,
    /// The provider's opaque private data.
    pub private: Option<Vec<u8>>,
    pub status: ObjectStatus,
    /// Resources this object depended on when it was last applied; sorted
    /// and without duplicates.
    pub dependencies: Vec<ConfigResource>,
    pub create_before_destroy: bool,
}

impl ObjectState {
    /// An object recording `value` (typed with the schema's implied type):
    /// its sensitive marks become `sensitive_paths`, the unmarked value the
    /// attribute JSON. Everything else takes its default.
    pub fn from_value(value: &Value, schema_version: u64) -> Result<ObjectState, CodecError> {
        let mut sensitive_paths = Vec::new();
        collect_sensitive_paths(value, &mut Vec::new(), &mut sensitive_paths);
        Ok(ObjectState {
            schema_version,
            attributes: AttrsJson::from_value(value)?,
            sensitive_paths,
            private: None,
            status: ObjectStatus::Ready,
            dependencies: Vec::new(),
            create_before_destroy: false,
        })
    }

    /// The attributes as a value of type `ty` with `sensitive_paths`
    /// marked sensitive. Paths that do not exist in the value are ignored,
    /// as cty's `MarkWithPaths` ignores them.
    pub fn decode(&self, ty: &Type) -> Result<Value, CodecError> {
        let mut value = self.attributes.decode(ty)?;
        for path in &self.sensitive_paths {
            value = value.mark_at_path(&path.0, Marks::SENSITIVE);
        }
        Ok(value)
    }

    /// Sets `dependencies`, sorting them and dropping duplicates.
    pub fn set_dependencies(&mut self, deps: impl IntoIterator<Item = ConfigResource>) {
        let mut deps: Vec<ConfigResource> = deps.into_iter().collect();
        deps.sort_by_key(|d| d.to_string());
        deps.dedup();
        self.dependencies = deps;
    }

    fn content_eq(&self, other: &ObjectState) -> bool {
        self.schema_version == other.schema_version
            && self.attributes == other.attributes
            && self.sensitive_paths.len() == other.sensitive_paths.len()
            && self
                .sensitive_paths
                .iter()
                .zip(&other.sensitive_paths)
                .all(|(a, b)| a.raw_equals(b))
            && self.private == other.private
            && self.status == other.status
            && self.dependencies == other.dependencies
            && self.create_before_destroy == other.create_before_destroy
    }
}

/// The attributes of an object as they are stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AttrsJson {
    /// A JSON object, compact (no insignificant whitespace).
    Json(Arc<str>),
    /// The legacy flatmap (`attributes_flat`) of states upgraded from
    /// format version 3.
    Flat(Arc<BTreeMap<String, String>>),
}

impl AttrsJson {
    /// The JSON of `value` (marks removed) as cty's JSON codec writes it,
    /// object attributes sorted by name.
    pub fn from_value(value: &Value) -> Result<AttrsJson, CodecError> {
        let (plain, _) = value.unmark_deep();
        let text = vjson::to_json(&plain, plain.ty())?;
        Ok(AttrsJson::Json(Arc::from(text)))
    }

    /// The attributes as a value of type `ty` (usually the schema's
    /// implied type), unmarked.
    pub fn decode(&self, ty: &Type) -> Result<Value, CodecError> {
        match self {
            AttrsJson::Json(text) => vjson::from_json(text.as_bytes(), ty),
            AttrsJson::Flat(map) => crate::flatmap::decode(map, ty),
        }
    }

    /// The JSON text, when stored as JSON.
    pub fn as_json(&self) -> Option<&str> {
        match self {
            AttrsJson::Json(text) => Some(text),
            AttrsJson::Flat(_) => None,
        }
    }
}

/// One path to a sensitive part of an object's attributes, as cty paths
/// go: attribute names and index keys (numbers for lists and tuples,
/// strings for maps).
#[derive(Clone, Debug, Default)]
pub struct SensitivePath(pub Vec<PathStep>);

impl SensitivePath {
    /// Equal step by step, index keys compared as cty `RawEquals` does.
    pub fn raw_equals(&self, other: &SensitivePath) -> bool {
        self.0.len() == other.0.len()
            && self.0.iter().zip(&other.0).all(|(a, b)| match (a, b) {
                (PathStep::Attr(x), PathStep::Attr(y)) => x == y,
                (PathStep::Index(x), PathStep::Index(y)) => x.raw_equals(y),
                _ => false,
            })
    }
}

fn collect_sensitive_paths(value: &Value, path: &mut Vec<PathStep>, out: &mut Vec<SensitivePath>) {
    if value.is_sensitive() {
        out.push(SensitivePath(path.clone()));
    }
    let ty = value.ty();
    if ty.is_object() {
        if let Some(attrs) = value.as_attributes() {
            for (name, v) in attrs.iter() {
                path.push(PathStep::Attr(name.clone()));
                collect_sensitive_paths(v, path, out);
                path.pop();
            }
        }
    } else if ty.is_map() {
        if let Some(elems) = value.as_attributes() {
            for (key, v) in elems.iter() {
                path.push(PathStep::Index(Value::string(key)));
                collect_sensitive_paths(v, path, out);
                path.pop();
            }
        }
    } else if ty.is_list() || ty.is_tuple() {
        if let Some(elems) = value.as_elements() {
            for (i, v) in elems.iter().enumerate() {
                path.push(PathStep::Index(Value::int(i as i64)));
                collect_sensitive_paths(v, path, out);
                path.pop();
            }
        }
    }
    // Sets hold no marks inside: cty moves them onto the set itself.
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A random (version 4) UUID in its usual text form, as Terraform makes
/// lineages.
pub fn new_lineage() -> Result<String, String> {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b).map_err(|e| format!("no random source: {e}"))?;
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    Ok(format!(
        "{}-{}-{}-{}-{}",
        hex(&b[0..4]),
        hex(&b[4..6]),
        hex(&b[6..8]),
        hex(&b[8..10]),
        hex(&b[10..16])
    ))
}

impl State {
    /// An empty state with a fresh lineage, serial 0.
    pub fn new_empty() -> State {
        // Without a random source there is nothing better than a lineage
        // derived from the clock and process, which is still unique enough
        // to tell two states apart.
        let lineage = new_lineage().unwrap_or_else(|_| fallback_lineage());
        State::new_with_lineage(lineage)
    }

    /// An empty state with the given lineage, serial 0.
    pub fn new_with_lineage(lineage: impl Into<String>) -> State {
        State {
            serial: 0,
            lineage: lineage.into(),
            terraform_version: TERRAFORM_VERSION.to_string(),
            outputs: BTreeMap::new(),
            resources: BTreeMap::new(),
            check_results: None,
        }
    }

    /// No resources and no outputs.
    pub fn is_empty(&self) -> bool {
        self.resources.is_empty() && self.outputs.is_empty()
    }

    pub fn resource(&self, addr: &AbsResource) -> Option<&ResourceState> {
        self.resources.get(addr)
    }

    pub fn instance(&self, addr: &AbsResourceInstance) -> Option<&InstanceState> {
        self.resources
            .get(&addr.containing_resource())?
            .instances
            .get(&addr.resource.key)
            .map(|is| &**is)
    }

    /// The current object of an instance.
    pub fn object(&self, addr: &AbsResourceInstance) -> Option<&ObjectState> {
        self.instance(addr)?.current.as_ref()
    }

    /// A deposed object of an instance.
    pub fn deposed_object(
        &self,
        addr: &AbsResourceInstance,
        key: &DeposedKey,
    ) -> Option<&ObjectState> {
        self.instance(addr)?.deposed.get(key)
    }

    /// The provider instance an instance is bound to.
    pub fn provider_instance(&self, addr: &AbsResourceInstance) -> Option<AbsProviderInstance> {
        let rs = self.resources.get(&addr.containing_resource())?;
        let is = rs.instances.get(&addr.resource.key)?;
        Some(rs.provider.instance(is.provider_key.clone()))
    }

    /// Sets (or with `None` removes) the current object of an instance,
    /// creating the resource and instance as needed and dropping them when
    /// nothing is left. The resource's provider configuration becomes
    /// `provider` and the instance's provider key `provider_key`; the
    /// each-mode follows the instance key.
    pub fn set_current(
        &mut self,
        addr: &AbsResourceInstance,
        provider: AbsProviderConfig,
        provider_key: InstanceKey,
        object: Option<ObjectState>,
    ) {
        self.update_instance(addr, provider, provider_key, object.is_some(), |is| {
            is.current = object;
        });
    }

    /// Sets (or with `None` removes) a deposed object of an instance, as
    /// `set_current` does for the current one.
    pub fn set_deposed(
        &mut self,
        addr: &AbsResourceInstance,
        key: DeposedKey,
        provider: AbsProviderConfig,
        provider_key: InstanceKey,
        object: Option<ObjectState>,
    ) {
        self.update_instance(
            addr,
            provider,
            provider_key,
            object.is_some(),
            |is| match object {
                Some(obj) => {
                    is.deposed.insert(key, obj);
                }
                None => {
                    is.deposed.remove(&key);
                }
            },
        );
    }

    /// Moves the current object of an instance to a new deposed key and
    /// returns that key; `None` when there is no current object.
    pub fn depose_current(
        &mut self,
        addr: &AbsResourceInstance,
    ) -> Result<Option<DeposedKey>, String> {
        let Some(rs) = self.resources.get_mut(&addr.containing_resource()) else {
            return Ok(None);
        };
        let Some(is) = rs.instances.get_mut(&addr.resource.key).map(Arc::make_mut) else {
            return Ok(None);
        };
        let Some(obj) = is.current.take() else {
            return Ok(None);
        };
        let key = match DeposedKey::generate(&is.deposed) {
            Ok(key) => key,
            Err(e) => {
                is.current = Some(obj);
                return Err(e);
            }
        };
        is.deposed.insert(key.clone(), obj);
        Ok(Some(key))
    }

    fn update_instance(
        &mut self,
        addr: &AbsResourceInstance,
        provider: AbsProviderConfig,
        provider_key: InstanceKey,
        adding: bool,
        f: impl FnOnce(&mut InstanceState),
    ) {
        let raddr = addr.containing_resource();
        let key = addr.resource.key.clone();
        if !adding {
            // Removing: touch nothing that does not exist.
            let Some(rs) = self.resources.get_mut(&raddr) else {
                return;
            };
            let Some(is) = rs.instances.get_mut(&key).map(Arc::make_mut) else {
                return;
            };
            f(is);
            if is.is_empty() {
                rs.instances.remove(&key);
            }
            if rs.instances.is_empty() {
                self.resources.remove(&raddr);
            }
            return;
        }
        let rs = self
            .resources
            .entry(raddr)
            .or_insert_with(|| ResourceState {
                provider: provider.clone(),
                each_mode: EachMode::for_key(&key),
                instances: BTreeMap::new(),
            });
        rs.provider = provider;
        rs.each_mode = EachMode::for_key(&key);
        let is = Arc::make_mut(rs.instances.entry(key).or_default());
        is.provider_key = provider_key;
        f(is);
    }

    /// Removes a resource with all its instances; returns it.
    pub fn remove_resource(&mut self, addr: &AbsResource) -> Option<ResourceState> {
        self.resources.remove(addr)
    }

    /// Removes one instance (current and deposed objects); returns it.
    pub fn remove_instance(&mut self, addr: &AbsResourceInstance) -> Option<InstanceState> {
        let raddr = addr.containing_resource();
        let rs = self.resources.get_mut(&raddr)?;
        let removed = rs.instances.remove(&addr.resource.key);
        if rs.instances.is_empty() {
            self.resources.remove(&raddr);
        }
        removed.map(Arc::unwrap_or_clone)
    }

    /// The resources of one module instance, in address order.
    pub fn resources_in_module<'a>(
        &'a self,
        module: &'a ModuleInstance,
    ) -> impl Iterator<Item = (&'a AbsResource, &'a ResourceState)> + 'a {
        self.resources
            .iter()
            .filter(move |(addr, _)| &addr.module == module)
    }

    /// The module instances that have resources in the state.
    pub fn modules(&self) -> Vec<ModuleInstance> {
        let mut mods: Vec<ModuleInstance> =
            self.resources.keys().map(|a| a.module.clone()).collect();
        mods.dedup();
        mods.sort();
        mods.dedup();
        mods
    }

    /// Every instance with its address, in address order.
    pub fn all_instances(
        &self,
    ) -> impl Iterator<Item = (AbsResourceInstance, &ResourceState, &InstanceState)> + '_ {
        self.resources.iter().flat_map(|(raddr, rs)| {
            rs.instances
                .iter()
                .map(move |(key, is)| (raddr.instance(key.clone()), rs, &**is))
        })
    }

    /// Sets a root output, or removes it with `None`.
    pub fn set_output(&mut self, name: impl Into<String>, output: Option<OutputState>) {
        let name = name.into();
        match output {
            Some(o) => {
                self.outputs.insert(name, o);
            }
            None => {
                self.outputs.remove(&name);
            }
        }
    }

    /// Same content apart from the serial (and the writer's version): what
    /// decides whether persisting a state needs a new serial.
    pub fn deep_eq_ignoring_serial(&self, other: &State) -> bool {
        self.lineage == other.lineage
            && self.check_results == other.check_results
            && self.outputs.len() == other.outputs.len()
            && self
                .outputs
                .iter()
                .zip(&other.outputs)
                .all(|((n1, o1), (n2, o2))| {
                    n1 == n2 && o1.sensitive == o2.sensitive && o1.value.raw_equals(&o2.value)
                })
            && self.resources.len() == other.resources.len()
            && self
                .resources
                .iter()
                .zip(&other.resources)
                .all(|((a1, r1), (a2, r2))| a1 == a2 && resource_eq(r1, r2))
    }
}

fn resource_eq(a: &ResourceState, b: &ResourceState) -> bool {
    a.provider == b.provider
        && a.each_mode == b.each_mode
        && a.instances.len() == b.instances.len()
        && a.instances
            .iter()
            .zip(&b.instances)
            .all(|((k1, i1), (k2, i2))| {
                k1 == k2
                    && i1.provider_key == i2.provider_key
                    && match (&i1.current, &i2.current) {
                        (None, None) => true,
                        (Some(x), Some(y)) => x.content_eq(y),
                        _ => false,
                    }
                    && i1.deposed.len() == i2.deposed.len()
                    && i1
                        .deposed
                        .iter()
                        .zip(&i2.deposed)
                        .all(|((d1, o1), (d2, o2))| d1 == d2 && o1.content_eq(o2))
            })
}

fn fallback_lineage() -> String {
    use std::time::{SystemTime, UNIX_EPOCH};
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let mut b = [0u8; 16];
    b.copy_from_slice(&(nanos ^ (u128::from(std::process::id()) << 64)).to_le_bytes());
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    format!(
        "{}-{}-{}-{}-{}",
        hex(&b[0..4]),
        hex(&b[4..6]),
        hex(&b[6..8]),
        hex(&b[8..10]),
        hex(&b[10..16])
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use terrace_addrs::Provider;

    fn provider() -> AbsProviderConfig {
        AbsProviderConfig::parse_str("provider[\"registry.terraform.io/hashicorp/null\"]").unwrap()
    }

    fn addr(s: &str) -> AbsResourceInstance {
        AbsResourceInstance::parse_str(s).unwrap()
    }

    fn obj(id: &str) -> ObjectState {
        ObjectState::from_value(
            &Value::object([("id".to_string(), Value::string(id))].into()),
            0,
        )
        .unwrap()
    }

    #[test]
    fn lineages_are_uuid_v4() {
        let l = new_lineage().unwrap();
        let parts: Vec<&str> = l.split('-').collect();
        assert_eq!(
            parts.iter().map(|p| p.len()).collect::<Vec<_>>(),
            [8, 4, 4, 4, 12]
        );
        assert!(parts[2].starts_with('4'));
        assert!(matches!(parts[3].as_bytes()[0], b'8' | b'9' | b'a' | b'b'));
        assert_ne!(State::new_empty().lineage, State::new_empty().lineage);
        assert_eq!(fallback_lineage().len(), 36);
    }

    #[test]
    fn set_current_creates_and_drops() {
        let mut s = State::new_with_lineage("l");
        assert!(s.is_empty());
        let a0 = addr("null_resource.r[0]");
        let a1 = addr("null_resource.r[1]");
        s.set_current(&a0, provider(), InstanceKey::None, Some(obj("a")));
        s.set_current(&a1, provider(), InstanceKey::None, Some(obj("b")));
        assert_eq!(s.resources.len(), 1);
        assert_eq!(
            s.resource(&a0.containing_resource()).unwrap().each_mode,
            EachMode::List
        );
        assert_eq!(
            s.object(&a1).unwrap().attributes.as_json(),
            Some(r#"{"id":"b"}"#)
        );
        s.set_current(&a0, provider(), InstanceKey::None, None);
        assert!(s.instance(&a0).is_none());
        s.set_current(&a1, provider(), InstanceKey::None, None);
        assert!(s.resources.is_empty());
        // Removing what is not there changes nothing.
        s.set_current(&a1, provider(), InstanceKey::None, None);
        assert!(s.is_empty());
    }

    #[test]
    fn deposed_objects_keep_the_instance() {
        let mut s = State::new_with_lineage("l");
        let a = addr("module.m[\"x\"].null_resource.r");
        s.set_current(&a, provider(), InstanceKey::string("k"), Some(obj("old")));
        let dk = s.depose_current(&a).unwrap().unwrap();
        assert_eq!(dk.as_str().len(), 8);
        assert!(DeposedKey::parse(dk.as_str()).is_some());
        assert!(s.object(&a).is_none());
        assert!(s.deposed_object(&a, &dk).is_some());
        assert_eq!(
            s.provider_instance(&a).unwrap().key,
            InstanceKey::string("k")
        );
        s.set_current(&a, provider(), InstanceKey::string("k"), Some(obj("new")));
        s.set_deposed(&a, dk.clone(), provider(), InstanceKey::string("k"), None);
        assert!(s.instance(&a).unwrap().deposed.is_empty());
        assert_eq!(s.depose_current(&addr("null_resource.none")).unwrap(), None);
        assert!(DeposedKey::parse("xyz").is_none());
        assert!(DeposedKey::parse("0000000g").is_none());
    }

    #[test]
    fn iteration_and_module_filtering() {
        let mut s = State::new_with_lineage("l");
        for a in [
            "null_resource.a",
            "module.m.null_resource.b",
            "module.m.null_resource.c[\"k\"]",
        ] {
            s.set_current(&addr(a), provider(), InstanceKey::None, Some(obj(a)));
        }
        let all: Vec<String> = s.all_instances().map(|(a, _, _)| a.to_string()).collect();
        assert_eq!(all.len(), 3);
        let m = ModuleInstance::parse_str("module.m").unwrap();
        assert_eq!(s.resources_in_module(&m).count(), 2);
        assert_eq!(s.modules().len(), 2);
        assert!(s.remove_instance(&addr("null_resource.a")).is_some());
        assert!(s
            .remove_resource(&AbsResource::parse_str("module.m.null_resource.b").unwrap())
            .is_some());
        assert_eq!(s.all_instances().count(), 1);
    }

    #[test]
    fn equality_ignores_only_the_serial() {
        let mut a = State::new_with_lineage("l");
        a.set_current(
            &addr("null_resource.a"),
            provider(),
            InstanceKey::None,
            Some(obj("x")),
        );
        a.set_output(
            "o",
            Some(OutputState {
                value: Value::string("v"),
                sensitive: false,
            }),
        );
        let mut b = a.clone();
        b.serial = 9;
        b.terraform_version = "0.0.1".into();
        assert!(a.deep_eq_ignoring_serial(&b));
        let mut c = b.clone();
        c.set_output(
            "o",
            Some(OutputState {
                value: Value::string("v"),
                sensitive: true,
            }),
        );
        assert!(!a.deep_eq_ignoring_serial(&c));
        let mut d = b.clone();
        d.set_current(
            &addr("null_resource.a"),
            provider(),
            InstanceKey::None,
            Some(obj("y")),
        );
        assert!(!a.deep_eq_ignoring_serial(&d));
        let mut e = b.clone();
        let other = AbsProviderConfig::new(
            terrace_addrs::Module::root(),
            Provider::parse_source_str("hashicorp/other").unwrap(),
            None,
        );
        e.set_current(
            &addr("null_resource.a"),
            other,
            InstanceKey::None,
            Some(obj("x")),
        );
        assert!(!a.deep_eq_ignoring_serial(&e));
        let mut f = b;
        f.lineage = "other".into();
        assert!(!a.deep_eq_ignoring_serial(&f));
    }

    #[test]
    fn sensitive_marks_become_paths_and_back() {
        let v = Value::object(
            [
                ("a".to_string(), Value::string("x").mark(Marks::SENSITIVE)),
                (
                    "l".to_string(),
                    Value::list(
                        Type::String,
                        vec![
                            Value::string("p"),
                            Value::string("q").mark(Marks::SENSITIVE),
                        ],
                    ),
                ),
                (
                    "s".to_string(),
                    Value::set(
                        Type::String,
                        vec![Value::string("z").mark(Marks::SENSITIVE)],
                    ),
                ),
                ("n".to_string(), Value::null(Type::map(Type::String))),
            ]
            .into(),
        );
        let o = ObjectState::from_value(&v, 3).unwrap();
        assert_eq!(o.schema_version, 3);
        assert_eq!(o.sensitive_paths.len(), 3);
        assert_eq!(
            o.attributes.as_json(),
            Some(r#"{"a":"x","l":["p","q"],"n":null,"s":["z"]}"#)
        );
        let back = o.decode(v.ty()).unwrap();
        let attrs = back.as_attributes().unwrap();
        assert!(attrs["a"].is_sensitive());
        assert!(!attrs["l"].is_sensitive());
        assert!(attrs["l"].as_elements().unwrap()[1].is_sensitive());
        assert!(attrs["s"].is_sensitive());
        // Paths into nothing are ignored.
        let mut stray = o.clone();
        stray.sensitive_paths.push(SensitivePath(vec![
            PathStep::Attr("n".into()),
            PathStep::Index(Value::string("k")),
        ]));
        stray
            .sensitive_paths
            .push(SensitivePath(vec![PathStep::Attr("missing".into())]));
        stray.sensitive_paths.push(SensitivePath(vec![
            PathStep::Attr("l".into()),
            PathStep::Index(Value::int(7)),
        ]));
        let back = stray.decode(v.ty()).unwrap();
        assert!(!back
            .as_attributes()
            .unwrap()
            .get("n")
            .unwrap()
            .is_sensitive());
        assert!(back.raw_equals(&o.decode(v.ty()).unwrap()));
        // A deposed key and dependencies as the engine sets them.
        let mut o2 = o;
        o2.set_dependencies([
            ConfigResource::parse_str("b.x").unwrap(),
            ConfigResource::parse_str("a.x").unwrap(),
            ConfigResource::parse_str("b.x").unwrap(),
        ]);
        let deps: Vec<String> = o2.dependencies.iter().map(|d| d.to_string()).collect();
        assert_eq!(deps, ["a.x", "b.x"]);
    }

    #[test]
    fn unknown_values_cannot_be_stored() {
        assert!(ObjectState::from_value(&Value::unknown(Type::String), 0).is_err());
        assert!(AttrsJson::Json(Arc::from("{"))
            .decode(&Type::empty_object())
            .is_err());
    }
}
