//! `-target` addresses: what `ParseTarget` reads (a module instance, a
//! resource or a resource instance) and the containment rules that decide
//! which objects a target selects.

use crate::instance_key::InstanceKey;
use crate::module::{Module, ModuleInstance};
use crate::parse::{self, Ranges, Step};
use crate::resource::{resource_type_and_name, AbsResource, AbsResourceInstance, ConfigResource};
use std::fmt;
use terrace_syntax::ast::{SourceFile, Traversal};
use terrace_syntax::diagnostic::has_errors;
use terrace_syntax::{Diagnostic, Diagnostics, SourceRange};

/// An address that can be targeted. Parsing yields `ModuleInstance`,
/// `AbsResource` or `AbsResourceInstance`; the static forms exist for
/// configuration-level selection.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Targetable {
    Module(Module),
    ModuleInstance(ModuleInstance),
    ConfigResource(ConfigResource),
    AbsResource(AbsResource),
    AbsResourceInstance(AbsResourceInstance),
}

impl Targetable {
    /// OpenTofu's `TargetContains`: whether targeting `self` selects
    /// `other`.
    pub fn target_contains(&self, other: &Targetable) -> bool {
        use Targetable as T;
        match self {
            T::Module(m) => match other {
                T::Module(to) => module_contains_module(m, to),
                T::ModuleInstance(to) => module_contains_module(m, &to.module()),
                T::ConfigResource(to) => module_contains_module(m, &to.module),
                T::AbsResource(to) => module_contains_module(m, &to.module.module()),
                T::AbsResourceInstance(to) => module_contains_module(m, &to.module.module()),
            },
            T::ModuleInstance(m) => match other {
                T::Module(to) => instance_contains_module(m, to),
                T::ModuleInstance(to) => instance_contains_instance(m, to),
                T::ConfigResource(to) => instance_contains_module(m, &to.module),
                T::AbsResource(to) => instance_contains_instance(m, &to.module),
                T::AbsResourceInstance(to) => instance_contains_instance(m, &to.module),
            },
            T::ConfigResource(r) => match other {
                T::ConfigResource(to) => to.to_string() == r.to_string(),
                T::AbsResource(to) => to.config().to_string() == r.to_string(),
                T::AbsResourceInstance(to) => {
                    to.containing_resource().config().to_string() == r.to_string()
                }
                _ => false,
            },
            // OpenTofu compares these by their strings, so a whole resource
            // and its no-key instance select each other.
            T::AbsResource(r) => match other {
                T::AbsResource(_) | T::ConfigResource(_) => other.to_string() == r.to_string(),
                T::AbsResourceInstance(to) => to.containing_resource().to_string() == r.to_string(),
                _ => false,
            },
            T::AbsResourceInstance(r) => match other {
                T::AbsResourceInstance(_) | T::ConfigResource(_) | T::AbsResource(_) => {
                    other.to_string() == r.to_string()
                }
                _ => false,
            },
        }
    }

    /// The module instance part of the address (OpenTofu's
    /// `Target.ModuleAddr`); a static module is taken as unkeyed.
    pub fn module_addr(&self) -> ModuleInstance {
        match self {
            Targetable::Module(m) => m.unkeyed_instance(),
            Targetable::ModuleInstance(m) => m.clone(),
            Targetable::ConfigResource(r) => r.module.unkeyed_instance(),
            Targetable::AbsResource(r) => r.module.clone(),
            Targetable::AbsResourceInstance(r) => r.module.clone(),
        }
    }
}

fn module_contains_module(m: &Module, to: &Module) -> bool {
    to.len() >= m.len() && m.names().iter().zip(to.names()).all(|(a, b)| a == b)
}

/// A keyed step cannot contain a whole static module.
fn instance_contains_module(m: &ModuleInstance, to: &Module) -> bool {
    to.len() >= m.len()
        && m.steps()
            .iter()
            .zip(to.names())
            .all(|(ours, theirs)| ours.key.is_none() && ours.name == *theirs)
}

/// A final step without a key contains every instance of that call, since
/// targets are parsed as instances even when meant as modules.
fn instance_contains_instance(m: &ModuleInstance, to: &ModuleInstance) -> bool {
    if to.len() < m.len() {
        return false;
    }
    let last = m.len().saturating_sub(1);
    for (i, (ours, theirs)) in m.steps().iter().zip(to.steps()).enumerate() {
        if ours.name != theirs.name {
            return false;
        }
        if i == last && ours.key.is_none() {
            return true;
        }
        if ours.key != theirs.key {
            return false;
        }
    }
    true
}

impl fmt::Display for Targetable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Targetable::Module(a) => a.fmt(f),
            Targetable::ModuleInstance(a) => a.fmt(f),
            Targetable::ConfigResource(a) => a.fmt(f),
            Targetable::AbsResource(a) => a.fmt(f),
            Targetable::AbsResourceInstance(a) => a.fmt(f),
        }
    }
}

/// A parsed target and where it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    pub subject: Targetable,
    pub source_range: SourceRange,
}

impl Target {
    /// OpenTofu's `ParseTarget`: a module instance path, optionally
    /// followed by `[data.|ephemeral.]TYPE.NAME[KEY]`. A resource without a
    /// key means the whole resource.
    pub fn parse(traversal: &Traversal, file: &SourceFile) -> Result<Target, Diagnostics> {
        let ranges = Ranges { file };
        let steps = parse::steps(traversal);
        let (path, remain, diags) = parse::module_instance_prefix(&steps, &ranges);
        if has_errors(&diags) {
            return Err(diags);
        }
        let source_range = ranges
            .steps(&steps)
            .unwrap_or_else(|| file.range(traversal.root_span));
        if remain.is_empty() {
            return Ok(Target {
                subject: Targetable::ModuleInstance(path),
                source_range,
            });
        }
        let instance =
            resource_instance_under_module(path, remain, &ranges).map_err(|d| vec![*d])?;
        let subject = if instance.resource.key.is_none() {
            Targetable::AbsResource(instance.containing_resource())
        } else {
            Targetable::AbsResourceInstance(instance)
        };
        Ok(Target {
            subject,
            source_range,
        })
    }

    /// OpenTofu's `ParseTargetStr`.
    pub fn parse_str(s: &str) -> Result<Target, Diagnostics> {
        parse::parse_str(s, Target::parse)
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.subject.fmt(f)
    }
}

/// OpenTofu's `parseResourceInstanceUnderModule`.
fn resource_instance_under_module(
    module: ModuleInstance,
    remain: &[Step<'_>],
    ranges: &Ranges<'_>,
) -> Result<AbsResourceInstance, Box<Diagnostic>> {
    let (mode, type_name, name, remain) = resource_type_and_name(remain, ranges)?;
    let key = match remain {
        [] => InstanceKey::None,
        [Step::Index { key, span }] => {
            let value = parse::literal_value(key);
            let parsed = match &value {
                Some(v) => InstanceKey::from_value(v).map_err(|e| e.to_string()),
                None => Err("either a string or an integer is required".to_string()),
            };
            parsed.map_err(|e| {
                Box::new(ranges.error(
                    "Invalid address",
                    format!("Invalid resource instance key: {e}."),
                    Some(ranges.span(*span)),
                ))
            })?
        }
        [only @ Step::Name { .. }] => {
            return Err(Box::new(ranges.error(
                "Invalid address",
                "Resource instance key must be given in square brackets.",
                Some(ranges.span(only.span())),
            )))
        }
        [_, second, ..] => {
            return Err(Box::new(ranges.error(
                "Invalid address",
                "Unexpected extra operators after address.",
                Some(ranges.span(second.span())),
            )))
        }
    };
    Ok(module.resource_instance(mode, type_name, name, key))
}

#[cfg(test)]
mod tests;
