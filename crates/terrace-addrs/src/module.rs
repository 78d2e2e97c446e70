//! Module paths: the static path through `module` blocks (`Module`,
//! `module.a.module.b`), the dynamic path through their instances
//! (`ModuleInstance`, `module.a["k"].module.b[0]`), and the addresses of
//! the calls themselves.

use crate::instance_key::InstanceKey;
use crate::parse::{self, Ranges};
use crate::resource::{AbsResource, AbsResourceInstance, ConfigResource, Resource, ResourceMode};
use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;
use terrace_syntax::ast::{SourceFile, Traversal};
use terrace_syntax::diagnostic::has_errors;
use terrace_syntax::Diagnostics;

/// A path through the static module call tree; the root module is the
/// empty path. Cloning is O(1): the names are shared.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Module(Arc<[Arc<str>]>);

impl Module {
    pub fn root() -> Module {
        Module::default()
    }

    pub fn from_names<S: Into<Arc<str>>>(names: impl IntoIterator<Item = S>) -> Module {
        Module(names.into_iter().map(Into::into).collect())
    }

    /// The call names from the root down.
    pub fn names(&self) -> &[Arc<str>] {
        &self.0
    }

    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn child(&self, name: impl Into<Arc<str>>) -> Module {
        let mut names = self.0.to_vec();
        names.push(name.into());
        Module(names.into())
    }

    /// The parent module; the root is its own parent.
    pub fn parent(&self) -> Module {
        match self.0.split_last() {
            Some((_, rest)) => Module(rest.into()),
            None => self.clone(),
        }
    }

    /// The calling module and the call that leads here; none for the root.
    pub fn call(&self) -> Option<(Module, ModuleCall)> {
        let (last, rest) = self.0.split_last()?;
        Some((Module(rest.into()), ModuleCall::new(last.clone())))
    }

    /// The root, then every ancestor down to this module itself.
    pub fn ancestors(&self) -> Vec<Module> {
        (0..=self.0.len())
            .map(|i| Module(self.0[..i].into()))
            .collect()
    }

    /// The same path with no instance keys (OpenTofu's
    /// `UnkeyedInstanceShim`).
    pub fn unkeyed_instance(&self) -> ModuleInstance {
        ModuleInstance(
            self.0
                .iter()
                .map(|name| ModuleInstanceStep {
                    name: name.clone(),
                    key: InstanceKey::None,
                })
                .collect(),
        )
    }

    pub fn resource(
        &self,
        mode: ResourceMode,
        type_name: impl Into<Arc<str>>,
        name: impl Into<Arc<str>>,
    ) -> ConfigResource {
        ConfigResource {
            module: self.clone(),
            resource: Resource::new(mode, type_name, name),
        }
    }

    /// OpenTofu's `ParseModule`: `module.a.module.b`, refusing instance keys
    /// and anything after the path.
    pub fn parse(traversal: &Traversal, file: &SourceFile) -> Result<Module, Diagnostics> {
        let steps = parse::steps(traversal);
        let ranges = Ranges { file };
        let (module, remain, mut diags) = parse::module_prefix(&steps, &ranges);
        if !has_errors(&diags) {
            if let Some(first) = remain.first() {
                diags.push(ranges.error(
                    "Module address expected",
                    "It's not allowed to reference anything other than module here.",
                    Some(ranges.span(first.span())),
                ));
            }
        }
        if has_errors(&diags) {
            Err(diags)
        } else {
            Ok(module)
        }
    }

    /// OpenTofu's `ParseModuleStr`.
    pub fn parse_str(s: &str) -> Result<Module, Diagnostics> {
        parse::parse_str(s, Module::parse)
    }
}

/// Shorter paths first, then by call name from the root down (the order
/// OpenTofu gives module instances).
impl Ord for Module {
    fn cmp(&self, other: &Module) -> Ordering {
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.cmp(&other.0))
    }
}

impl PartialOrd for Module {
    fn partial_cmp(&self, other: &Module) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// `module.a.module.b`; empty for the root.
impl fmt::Display for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, name) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(".")?;
            }
            write!(f, "module.{name}")?;
        }
        Ok(())
    }
}

impl std::str::FromStr for Module {
    type Err = Diagnostics;

    fn from_str(s: &str) -> Result<Module, Diagnostics> {
        Module::parse_str(s)
    }
}

/// One step of a module instance path: a call name and the instance key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ModuleInstanceStep {
    pub name: Arc<str>,
    pub key: InstanceKey,
}

impl ModuleInstanceStep {
    pub fn new(name: impl Into<Arc<str>>, key: InstanceKey) -> ModuleInstanceStep {
        ModuleInstanceStep {
            name: name.into(),
            key,
        }
    }
}

impl Ord for ModuleInstanceStep {
    fn cmp(&self, other: &ModuleInstanceStep) -> Ordering {
        self.name
            .cmp(&other.name)
            .then_with(|| self.key.cmp(&other.key))
    }
}

impl PartialOrd for ModuleInstanceStep {
    fn partial_cmp(&self, other: &ModuleInstanceStep) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// `a["k"]`: the name and key, without the `module.` keyword.
impl fmt::Display for ModuleInstanceStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.name, self.key)
    }
}

/// A path through the dynamic module tree, with instance keys; the root
/// module instance is the empty path. Cloning is O(1).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ModuleInstance(Arc<[ModuleInstanceStep]>);

impl ModuleInstance {
    pub fn root() -> ModuleInstance {
        ModuleInstance::default()
    }

    pub fn from_steps(steps: impl IntoIterator<Item = ModuleInstanceStep>) -> ModuleInstance {
        ModuleInstance(steps.into_iter().collect())
    }

    pub fn steps(&self) -> &[ModuleInstanceStep] {
        &self.0
    }

    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn child(&self, name: impl Into<Arc<str>>, key: InstanceKey) -> ModuleInstance {
        let mut steps = self.0.to_vec();
        steps.push(ModuleInstanceStep::new(name, key));
        ModuleInstance(steps.into())
    }

    pub fn child_call(&self, name: impl Into<Arc<str>>) -> AbsModuleCall {
        AbsModuleCall {
            module: self.clone(),
            call: ModuleCall::new(name),
        }
    }

    /// The parent instance; the root is its own parent.
    pub fn parent(&self) -> ModuleInstance {
        match self.0.split_last() {
            Some((_, rest)) => ModuleInstance(rest.into()),
            None => self.clone(),
        }
    }

    /// The static module this is an instance of.
    pub fn module(&self) -> Module {
        Module(self.0.iter().map(|s| s.name.clone()).collect())
    }

    /// The root, then every ancestor down to this instance itself.
    pub fn ancestors(&self) -> Vec<ModuleInstance> {
        (0..=self.0.len())
            .map(|i| ModuleInstance(self.0[..i].into()))
            .collect()
    }

    /// True when `other` lies strictly below this instance; a step here
    /// without a key matches any key there.
    pub fn is_ancestor(&self, other: &ModuleInstance) -> bool {
        if self.0.len() >= other.0.len() {
            return false;
        }
        self.0.iter().zip(other.0.iter()).all(|(mine, theirs)| {
            mine.name == theirs.name && (mine.key.is_none() || mine.key == theirs.key)
        })
    }

    /// The calling instance and the call leading here, dropping this
    /// step's key; none for the root.
    pub fn call(&self) -> Option<(ModuleInstance, ModuleCall)> {
        let (last, rest) = self.0.split_last()?;
        Some((
            ModuleInstance(rest.into()),
            ModuleCall::new(last.name.clone()),
        ))
    }

    /// The calling instance and the call instance leading here; none for
    /// the root.
    pub fn call_instance(&self) -> Option<(ModuleInstance, ModuleCallInstance)> {
        let (last, rest) = self.0.split_last()?;
        Some((
            ModuleInstance(rest.into()),
            ModuleCall::new(last.name.clone()).instance(last.key.clone()),
        ))
    }

    /// Both are instances of the same static module.
    pub fn has_same_module(&self, other: &ModuleInstance) -> bool {
        self.0.len() == other.0.len()
            && self
                .0
                .iter()
                .zip(other.0.iter())
                .all(|(a, b)| a.name == b.name)
    }

    /// This is an instance of `module`.
    pub fn is_for_module(&self, module: &Module) -> bool {
        self.0.len() == module.0.len()
            && self
                .0
                .iter()
                .zip(module.0.iter())
                .all(|(a, b)| a.name == *b)
    }

    /// This instance is one of those `call` declares.
    pub fn is_declared_by_call(&self, call: &AbsModuleCall) -> bool {
        let Some((last, rest)) = self.0.split_last() else {
            return false;
        };
        *rest == *call.module.0 && last.name == call.call.name
    }

    pub fn resource(
        &self,
        mode: ResourceMode,
        type_name: impl Into<Arc<str>>,
        name: impl Into<Arc<str>>,
    ) -> AbsResource {
        Resource::new(mode, type_name, name).absolute(self.clone())
    }

    pub fn resource_instance(
        &self,
        mode: ResourceMode,
        type_name: impl Into<Arc<str>>,
        name: impl Into<Arc<str>>,
        key: InstanceKey,
    ) -> AbsResourceInstance {
        Resource::new(mode, type_name, name)
            .instance(key)
            .absolute(self.clone())
    }

    /// OpenTofu's `ParseModuleInstance`: `module.a["k"].module.b[0]` and
    /// nothing after it.
    pub fn parse(traversal: &Traversal, file: &SourceFile) -> Result<ModuleInstance, Diagnostics> {
        let steps = parse::steps(traversal);
        let ranges = Ranges { file };
        let (path, remain, mut diags) = parse::module_instance_prefix(&steps, &ranges);
        if !remain.is_empty() {
            let detail = if remain.len() == steps.len() {
                "A module instance address must begin with \"module.\"."
            } else {
                "The module instance address is followed by additional invalid content."
            };
            diags.push(ranges.error(
                "Invalid module instance address",
                detail,
                ranges.steps(remain),
            ));
        }
        if has_errors(&diags) {
            Err(diags)
        } else {
            Ok(path)
        }
    }

    /// OpenTofu's `ParseModuleInstanceStr`.
    pub fn parse_str(s: &str) -> Result<ModuleInstance, Diagnostics> {
        parse::parse_str(s, ModuleInstance::parse)
    }
}

/// OpenTofu's `ModuleInstance.Less`: shorter paths first, then step by
/// step by name and then instance key.
impl Ord for ModuleInstance {
    fn cmp(&self, other: &ModuleInstance) -> Ordering {
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.cmp(&other.0))
    }
}

impl PartialOrd for ModuleInstance {
    fn partial_cmp(&self, other: &ModuleInstance) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// `module.a["k"].module.b[0]`; empty for the root.
impl fmt::Display for ModuleInstance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, step) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(".")?;
            }
            write!(f, "module.{step}")?;
        }
        Ok(())
    }
}

impl std::str::FromStr for ModuleInstance {
    type Err = Diagnostics;

    fn from_str(s: &str) -> Result<ModuleInstance, Diagnostics> {
        ModuleInstance::parse_str(s)
    }
}

/// A `module` block, relative to the module that contains it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ModuleCall {
    pub name: Arc<str>,
}

impl ModuleCall {
    pub fn new(name: impl Into<Arc<str>>) -> ModuleCall {
        ModuleCall { name: name.into() }
    }

    pub fn instance(&self, key: InstanceKey) -> ModuleCallInstance {
        ModuleCallInstance {
            call: self.clone(),
            key,
        }
    }

    pub fn absolute(&self, module: ModuleInstance) -> AbsModuleCall {
        AbsModuleCall {
            module,
            call: self.clone(),
        }
    }
}

/// `module.NAME`.
impl fmt::Display for ModuleCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "module.{}", self.name)
    }
}

/// One instance of a module call, relative to the calling module.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ModuleCallInstance {
    pub call: ModuleCall,
    pub key: InstanceKey,
}

impl ModuleCallInstance {
    /// The module instance this call instance creates under `caller`.
    pub fn module_instance(&self, caller: &ModuleInstance) -> ModuleInstance {
        caller.child(self.call.name.clone(), self.key.clone())
    }

    pub fn output(&self, name: impl Into<Arc<str>>) -> ModuleCallInstanceOutput {
        ModuleCallInstanceOutput {
            call: self.clone(),
            name: name.into(),
        }
    }
}

/// `module.NAME[KEY]`.
impl fmt::Display for ModuleCallInstance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "module.{}{}", self.call.name, self.key)
    }
}

/// A `module` block relative to the root: every instance it declares.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AbsModuleCall {
    pub module: ModuleInstance,
    pub call: ModuleCall,
}

impl AbsModuleCall {
    pub fn instance(&self, key: InstanceKey) -> ModuleInstance {
        self.module.child(self.call.name.clone(), key)
    }
}

/// `module.a[0].module.NAME`.
impl fmt::Display for AbsModuleCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.module.is_root() {
            write!(f, "{}", self.call)
        } else {
            write!(f, "{}.{}", self.module, self.call)
        }
    }
}

/// An output of one module call instance, as the caller refers to it
/// (`module.NAME[KEY].OUTPUT`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ModuleCallInstanceOutput {
    pub call: ModuleCallInstance,
    pub name: Arc<str>,
}

impl ModuleCallInstanceOutput {
    /// The output's absolute address once resolved in `caller`.
    pub fn abs_output_value(&self, caller: &ModuleInstance) -> crate::AbsOutputValue {
        crate::AbsOutputValue {
            module: self.call.module_instance(caller),
            output: crate::OutputValue::new(self.name.clone()),
        }
    }
}

impl fmt::Display for ModuleCallInstanceOutput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.call, self.name)
    }
}

#[cfg(test)]
mod tests;
