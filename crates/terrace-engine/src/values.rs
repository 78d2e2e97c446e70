//! The values a walk has computed so far, keyed by address: variables,
//! locals and outputs per module instance, each resource's aggregate value
//! (built once when the resource node finishes), and how module calls
//! expanded. Readers take a read lock for one lookup; values are
//! `Arc`-shared, so handing one out is O(1).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, RwLock};
use terrace_addrs::{InstanceKey, Module, ModuleInstance};
use terrace_value::Value;

/// `count.index`, `each.key` and `each.value` of one instance.
#[derive(Clone, Debug, Default)]
pub(crate) struct Repetition {
    pub count_index: Option<Value>,
    pub each_key: Option<Value>,
    pub each_value: Option<Value>,
}

impl Repetition {
    pub fn for_key(key: &InstanceKey, each_value: Option<Value>) -> Repetition {
        match key {
            InstanceKey::None => Repetition::default(),
            InstanceKey::Int(_) if each_value.is_none() => Repetition {
                count_index: key.to_value(),
                ..Repetition::default()
            },
            _ => Repetition {
                count_index: None,
                each_key: key.to_value(),
                each_value,
            },
        }
    }
}

/// How a resource or module call was expanded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EachKind {
    Single,
    Count,
    ForEach,
}

type Named = RwLock<HashMap<ModuleInstance, HashMap<String, Value>>>;

#[derive(Default)]
pub(crate) struct Values {
    vars: Named,
    locals: Named,
    outputs: Named,
    /// Keyed by the resource's address within its module
    /// (`type.name`, `data.type.name`).
    resources: Named,
    /// The instances of every static module, once its call has expanded.
    module_instances: RwLock<HashMap<Module, Arc<Vec<ModuleInstance>>>>,
    /// The repetition data of each module instance's call.
    module_reps: RwLock<HashMap<ModuleInstance, Repetition>>,
    /// How each call expanded within each instance of its module.
    call_kinds: RwLock<HashMap<ModuleInstance, HashMap<String, EachKind>>>,
    /// `check` blocks (by module instance and name) whose scoped data
    /// source failed: their assertions are not evaluated.
    failed_checks: RwLock<HashSet<(ModuleInstance, String)>>,
}

fn get(map: &Named, module: &ModuleInstance, name: &str) -> Option<Value> {
    let guard = map.read().ok()?;
    guard.get(module)?.get(name).cloned()
}

fn set(map: &Named, module: &ModuleInstance, name: &str, value: Value) {
    if let Ok(mut guard) = map.write() {
        guard
            .entry(module.clone())
            .or_default()
            .insert(name.to_string(), value);
    }
}

impl Values {
    pub fn new() -> Values {
        let v = Values::default();
        v.set_module_instances(Module::root(), vec![ModuleInstance::root()]);
        v
    }

    pub fn var(&self, m: &ModuleInstance, name: &str) -> Option<Value> {
        get(&self.vars, m, name)
    }
    pub fn set_var(&self, m: &ModuleInstance, name: &str, v: Value) {
        set(&self.vars, m, name, v)
    }
    pub fn local(&self, m: &ModuleInstance, name: &str) -> Option<Value> {
        get(&self.locals, m, name)
    }
    pub fn set_local(&self, m: &ModuleInstance, name: &str, v: Value) {
        set(&self.locals, m, name, v)
    }
    pub fn output(&self, m: &ModuleInstance, name: &str) -> Option<Value> {
        get(&self.outputs, m, name)
    }
    pub fn set_output(&self, m: &ModuleInstance, name: &str, v: Value) {
        set(&self.outputs, m, name, v)
    }
    pub fn resource(&self, m: &ModuleInstance, key: &str) -> Option<Value> {
        get(&self.resources, m, key)
    }
    pub fn set_resource(&self, m: &ModuleInstance, key: &str, v: Value) {
        set(&self.resources, m, key, v)
    }

    /// The instances of `module`; none until its call has expanded (and
    /// none when the call expanded to nothing).
    pub fn module_instances(&self, module: &Module) -> Arc<Vec<ModuleInstance>> {
        self.module_instances
            .read()
            .ok()
            .and_then(|g| g.get(module).cloned())
            .unwrap_or_default()
    }

    pub fn set_module_instances(&self, module: Module, instances: Vec<ModuleInstance>) {
        if let Ok(mut g) = self.module_instances.write() {
            g.insert(module, Arc::new(instances));
        }
    }

    pub fn module_rep(&self, m: &ModuleInstance) -> Repetition {
        self.module_reps
            .read()
            .ok()
            .and_then(|g| g.get(m).cloned())
            .unwrap_or_default()
    }

    pub fn set_module_rep(&self, m: ModuleInstance, rep: Repetition) {
        if let Ok(mut g) = self.module_reps.write() {
            g.insert(m, rep);
        }
    }

    pub fn call_kind(&self, m: &ModuleInstance, call: &str) -> Option<EachKind> {
        self.call_kinds
            .read()
            .ok()
            .and_then(|g| g.get(m).and_then(|c| c.get(call)).copied())
    }

    pub fn set_call_kind(&self, m: &ModuleInstance, call: &str, kind: EachKind) {
        if let Ok(mut g) = self.call_kinds.write() {
            g.entry(m.clone())
                .or_default()
                .insert(call.to_string(), kind);
        }
    }

    /// The object of one module instance's outputs, unknown where an output
    /// has not been evaluated (yet).
    pub fn module_object(&self, child: &ModuleInstance, output_names: &[String]) -> Value {
        let mut attrs = BTreeMap::new();
        for name in output_names {
            let v = self.output(child, name).unwrap_or_else(Value::dynamic);
            attrs.insert(name.clone(), v);
        }
        Value::object(attrs)
    }

    pub fn fail_check(&self, m: &ModuleInstance, name: &str) {
        if let Ok(mut g) = self.failed_checks.write() {
            g.insert((m.clone(), name.to_string()));
        }
    }

    pub fn check_failed(&self, m: &ModuleInstance, name: &str) -> bool {
        self.failed_checks
            .read()
            .map(|g| g.contains(&(m.clone(), name.to_string())))
            .unwrap_or(false)
    }
}
