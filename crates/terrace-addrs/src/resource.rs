//! Resource addresses: a `resource`/`data`/`ephemeral` block
//! (`aws_s3_bucket.b`, `data.x.y`), one of its instances (`…[0]`), and both
//! placed in a module instance (`module.a["k"].aws_s3_bucket.b[0]`) or in a
//! static module (`ConfigResource`).

use crate::instance_key::InstanceKey;
use crate::module::{Module, ModuleInstance};
use crate::parse::{self, Ranges, Step};
use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;
use terrace_syntax::ast::{SourceFile, Traversal};
use terrace_syntax::diagnostic::has_errors;
use terrace_syntax::{Diagnostic, Diagnostics};

/// Which kind of block declares a resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ResourceMode {
    /// `resource` blocks.
    Managed,
    /// `data` blocks.
    Data,
    /// `ephemeral` blocks.
    Ephemeral,
}

impl ResourceMode {
    /// The block type that declares this mode (`resource`, `data`,
    /// `ephemeral`).
    pub fn block_name(self) -> &'static str {
        match self {
            ResourceMode::Managed => "resource",
            ResourceMode::Data => "data",
            ResourceMode::Ephemeral => "ephemeral",
        }
    }

    fn rank(self) -> u8 {
        match self {
            ResourceMode::Ephemeral => 0,
            ResourceMode::Data => 1,
            ResourceMode::Managed => 2,
        }
    }
}

/// OpenTofu's `ResourceModeLess`: ephemeral, then data, then managed.
impl Ord for ResourceMode {
    fn cmp(&self, other: &ResourceMode) -> Ordering {
        self.rank().cmp(&other.rank())
    }
}

impl PartialOrd for ResourceMode {
    fn partial_cmp(&self, other: &ResourceMode) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// A resource block within a module. The derived order is OpenTofu's
/// `Resource.Less`: mode, type, name.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Resource {
    pub mode: ResourceMode,
    pub type_name: Arc<str>,
    pub name: Arc<str>,
}

impl Resource {
    pub fn new(
        mode: ResourceMode,
        type_name: impl Into<Arc<str>>,
        name: impl Into<Arc<str>>,
    ) -> Resource {
        Resource {
            mode,
            type_name: type_name.into(),
            name: name.into(),
        }
    }

    pub fn instance(&self, key: InstanceKey) -> ResourceInstance {
        ResourceInstance {
            resource: self.clone(),
            key,
        }
    }

    pub fn absolute(&self, module: ModuleInstance) -> AbsResource {
        AbsResource {
            module,
            resource: self.clone(),
        }
    }

    pub fn in_module(&self, module: Module) -> ConfigResource {
        ConfigResource {
            module,
            resource: self.clone(),
        }
    }

    /// The provider local name the type implies: the type up to its first
    /// underscore (`aws` for `aws_instance`).
    pub fn implied_provider(&self) -> &str {
        match self.type_name.find('_') {
            Some(i) => &self.type_name[..i],
            None => &self.type_name,
        }
    }
}

/// `type.name`, `data.type.name`, `ephemeral.type.name`.
impl fmt::Display for Resource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.mode {
            ResourceMode::Managed => write!(f, "{}.{}", self.type_name, self.name),
            ResourceMode::Data => write!(f, "data.{}.{}", self.type_name, self.name),
            ResourceMode::Ephemeral => write!(f, "ephemeral.{}.{}", self.type_name, self.name),
        }
    }
}

/// One instance of a resource within a module.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ResourceInstance {
    pub resource: Resource,
    pub key: InstanceKey,
}

impl ResourceInstance {
    pub fn absolute(&self, module: ModuleInstance) -> AbsResourceInstance {
        AbsResourceInstance {
            module,
            resource: self.clone(),
        }
    }
}

impl fmt::Display for ResourceInstance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.resource, self.key)
    }
}

/// `MODULE.REST`, or just `REST` in the root module.
fn with_module(
    f: &mut fmt::Formatter<'_>,
    module_is_root: bool,
    module: &dyn fmt::Display,
    rest: &dyn fmt::Display,
) -> fmt::Result {
    if module_is_root {
        write!(f, "{rest}")
    } else {
        write!(f, "{module}.{rest}")
    }
}

/// A resource in a module instance: all its instances.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AbsResource {
    pub module: ModuleInstance,
    pub resource: Resource,
}

impl AbsResource {
    pub fn instance(&self, key: InstanceKey) -> AbsResourceInstance {
        AbsResourceInstance {
            module: self.module.clone(),
            resource: self.resource.instance(key),
        }
    }

    /// The block that declares it.
    pub fn config(&self) -> ConfigResource {
        ConfigResource {
            module: self.module.module(),
            resource: self.resource.clone(),
        }
    }

    /// OpenTofu's `ParseAbsResource`: a target that names a whole resource.
    pub fn parse(traversal: &Traversal, file: &SourceFile) -> Result<AbsResource, Diagnostics> {
        let ranges = Ranges { file };
        let steps = parse::steps(traversal);
        let target = crate::target::Target::parse(traversal, file)?;
        match target.subject {
            crate::Targetable::AbsResource(r) => Ok(r),
            crate::Targetable::AbsResourceInstance(_) => Err(vec![ranges.error(
                "Invalid address",
                "A resource address is required. This instance key identifies a specific resource instance, which is not expected here.",
                steps.last().map(|s| ranges.span(s.span())),
            )]),
            crate::Targetable::ModuleInstance(_) => Err(vec![ranges.error(
                "Invalid address",
                "A resource address is required here. The module path must be followed by a resource specification.",
                ranges.steps(&steps),
            )]),
            _ => Err(vec![ranges.error(
                "Invalid address",
                "A resource address is required here.",
                ranges.steps(&steps),
            )]),
        }
    }

    /// OpenTofu's `ParseAbsResourceStr`.
    pub fn parse_str(s: &str) -> Result<AbsResource, Diagnostics> {
        parse::parse_str(s, AbsResource::parse)
    }
}

/// `module.a["k"].aws_s3_bucket.b`.
impl fmt::Display for AbsResource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        with_module(f, self.module.is_root(), &self.module, &self.resource)
    }
}

impl std::str::FromStr for AbsResource {
    type Err = Diagnostics;

    fn from_str(s: &str) -> Result<AbsResource, Diagnostics> {
        AbsResource::parse_str(s)
    }
}

/// One resource instance in a module instance: what state records and the
/// engine indexes by.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AbsResourceInstance {
    pub module: ModuleInstance,
    pub resource: ResourceInstance,
}

impl AbsResourceInstance {
    pub fn containing_resource(&self) -> AbsResource {
        AbsResource {
            module: self.module.clone(),
            resource: self.resource.resource.clone(),
        }
    }

    pub fn config_resource(&self) -> ConfigResource {
        ConfigResource {
            module: self.module.module(),
            resource: self.resource.resource.clone(),
        }
    }

    /// OpenTofu's `ParseAbsResourceInstance`: a resource or resource
    /// instance target; a whole resource means its no-key instance.
    pub fn parse(
        traversal: &Traversal,
        file: &SourceFile,
    ) -> Result<AbsResourceInstance, Diagnostics> {
        let ranges = Ranges { file };
        let steps = parse::steps(traversal);
        let target = crate::target::Target::parse(traversal, file)?;
        match target.subject {
            crate::Targetable::AbsResource(r) => Ok(r.instance(InstanceKey::None)),
            crate::Targetable::AbsResourceInstance(r) => Ok(r),
            crate::Targetable::ModuleInstance(_) => Err(vec![ranges.error(
                "Invalid address",
                "A resource instance address is required here. The module path must be followed by a resource instance specification.",
                ranges.steps(&steps),
            )]),
            _ => Err(vec![ranges.error(
                "Invalid address",
                "A resource address is required here.",
                ranges.steps(&steps),
            )]),
        }
    }

    /// OpenTofu's `ParseAbsResourceInstanceStr`.
    pub fn parse_str(s: &str) -> Result<AbsResourceInstance, Diagnostics> {
        parse::parse_str(s, AbsResourceInstance::parse)
    }
}

/// `module.a["k"].aws_s3_bucket.b[0]`.
impl fmt::Display for AbsResourceInstance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        with_module(f, self.module.is_root(), &self.module, &self.resource)
    }
}

impl std::str::FromStr for AbsResourceInstance {
    type Err = Diagnostics;

    fn from_str(s: &str) -> Result<AbsResourceInstance, Diagnostics> {
        AbsResourceInstance::parse_str(s)
    }
}

/// A resource block in the static module tree.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ConfigResource {
    pub module: Module,
    pub resource: Resource,
}

impl ConfigResource {
    pub fn absolute(&self, module: ModuleInstance) -> AbsResource {
        AbsResource {
            module,
            resource: self.resource.clone(),
        }
    }

    /// OpenTofu's `ParseConfigResource`: `module.a.data.b.c`, refusing
    /// instance keys anywhere.
    pub fn parse(traversal: &Traversal, file: &SourceFile) -> Result<ConfigResource, Diagnostics> {
        let ranges = Ranges { file };
        let steps = parse::steps(traversal);
        let (module, remain, diags) = parse::module_prefix(&steps, &ranges);
        if has_errors(&diags) {
            return Err(diags);
        }
        if remain.is_empty() {
            return Err(vec![ranges.error(
                "Module address is not allowed",
                "Expected reference to either resource or data block. Provided reference appears to be a module.",
                ranges.steps(&steps),
            )]);
        }
        let (mode, type_name, name, remain) =
            resource_type_and_name(remain, &ranges).map_err(|d| vec![*d])?;
        match remain {
            [] => Ok(ConfigResource {
                module,
                resource: Resource::new(mode, type_name, name),
            }),
            [only] => Err(vec![ranges.error(
                "Resource instance address with keys is not allowed",
                "Resource address cannot be a resource instance (e.g. \"null_resource.a[0]\"), it must be a resource instead (e.g. \"null_resource.a\").",
                Some(ranges.span(only.span())),
            )]),
            [_, second, ..] => Err(vec![ranges.error(
                "Invalid address",
                "Unexpected extra operators after address.",
                Some(ranges.span(second.span())),
            )]),
        }
    }

    /// [`ConfigResource::parse`] of a string.
    pub fn parse_str(s: &str) -> Result<ConfigResource, Diagnostics> {
        parse::parse_str(s, ConfigResource::parse)
    }
}

/// `module.a.aws_s3_bucket.b`.
impl fmt::Display for ConfigResource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        with_module(f, self.module.is_root(), &self.module, &self.resource)
    }
}

impl std::str::FromStr for ConfigResource {
    type Err = Diagnostics;

    fn from_str(s: &str) -> Result<ConfigResource, Diagnostics> {
        ConfigResource::parse_str(s)
    }
}

/// Reads `[data.|ephemeral.]TYPE.NAME` from the start of `remain`
/// (OpenTofu's `parseResourceTypeAndName` with the mode prefix), returning
/// the steps after the name.
pub(crate) fn resource_type_and_name<'s, 't>(
    remain: &'s [Step<'t>],
    ranges: &Ranges<'_>,
) -> Result<(ResourceMode, &'t str, &'t str, &'s [Step<'t>]), Box<Diagnostic>> {
    let (mode, remain) = match parse::root_name(remain) {
        "data" => (ResourceMode::Data, &remain[1..]),
        "ephemeral" => (ResourceMode::Ephemeral, &remain[1..]),
        _ => (ResourceMode::Managed, remain),
    };
    if remain.len() < 2 {
        return Err(Box::new(ranges.error(
            "Invalid address",
            "Resource specification must include a resource type and name.",
            ranges.steps(remain),
        )));
    }
    let Some(type_name) = remain[0].name() else {
        let detail = match mode {
            ResourceMode::Managed => "A resource type name is required.",
            ResourceMode::Data => "A data source name is required.",
            ResourceMode::Ephemeral => "An ephemeral resource name is required.",
        };
        return Err(Box::new(ranges.error(
            "Invalid address",
            detail,
            Some(ranges.span(remain[0].span())),
        )));
    };
    let Some(name) = remain[1].name() else {
        return Err(Box::new(ranges.error(
            "Invalid address",
            "A resource name is required.",
            Some(ranges.span(remain[1].span())),
        )));
    };
    Ok((mode, type_name, name, &remain[2..]))
}

#[cfg(test)]
mod tests;
