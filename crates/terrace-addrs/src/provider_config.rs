//! Provider configuration addresses: a `provider` block as its module
//! refers to it (`aws`, `aws.west`), the same block placed in the module
//! tree with its provider's FQN (`module.x.provider["registry.terraform.io/
//! hashicorp/aws"].west`, as state files record it), and one instance of a
//! configuration with `for_each` (`…by_region["us"]`).
//!
//! An instance is modelled as [`AbsProviderInstance`], a configuration plus
//! an [`InstanceKey`] that is `None` for single-instance configurations,
//! rather than an optional key inside [`AbsProviderConfig`]: a configuration
//! and one of its instances are different things to key maps by (the
//! engine keys provider processes by instance, configuration decoding keys
//! blocks by configuration), and the no-key instance prints exactly as its
//! configuration, as both state forms of provider instances require (on the resource,
//! and on each instance).

use crate::instance_key::InstanceKey;
use crate::module::Module;
use crate::parse::{self, Ranges, Step};
use crate::provider::Provider;
use std::fmt;
use std::sync::Arc;
use terrace_syntax::ast::{SourceFile, Traversal};
use terrace_syntax::diagnostic::has_errors;
use terrace_syntax::Diagnostics;
use terrace_value::gostr;

/// A provider configuration as the module containing it refers to it: its
/// local name and optional alias.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocalProviderConfig {
    pub local_name: Arc<str>,
    pub alias: Option<Arc<str>>,
}

impl LocalProviderConfig {
    /// The default (unaliased) configuration of `local_name`.
    pub fn new(local_name: impl Into<Arc<str>>) -> LocalProviderConfig {
        LocalProviderConfig {
            local_name: local_name.into(),
            alias: None,
        }
    }

    pub fn aliased(
        local_name: impl Into<Arc<str>>,
        alias: impl Into<Arc<str>>,
    ) -> LocalProviderConfig {
        LocalProviderConfig {
            local_name: local_name.into(),
            alias: Some(alias.into()),
        }
    }

    /// The form written in configuration and read by
    /// [`LocalProviderConfig::parse_compact`]: `aws`, `aws.west`.
    pub fn compact(&self) -> String {
        match &self.alias {
            Some(alias) => format!("{}.{alias}", self.local_name),
            None => self.local_name.to_string(),
        }
    }

    /// OpenTofu's `ParseProviderConfigCompact`: `NAME` or `NAME.ALIAS`. As
    /// in OpenTofu, steps after an alias are ignored.
    pub fn parse_compact(
        traversal: &Traversal,
        file: &SourceFile,
    ) -> Result<LocalProviderConfig, Diagnostics> {
        let ranges = Ranges { file };
        let steps = parse::steps(traversal);
        let mut ret = LocalProviderConfig::new(traversal.root.as_str());
        let Some(alias_step) = steps.get(1) else {
            return Ok(ret);
        };
        if let Some(alias) = alias_step.name() {
            ret.alias = Some(Arc::from(alias));
            return Ok(ret);
        }
        let mut diags = vec![ranges.error(
            "Invalid provider configuration address",
            "The provider type name must either stand alone or be followed by an alias name separated with a dot.",
            Some(ranges.span(alias_step.span())),
        )];
        if steps.len() > 2 {
            diags.push(ranges.error(
                "Invalid provider configuration address",
                "Extraneous extra operators after provider configuration address.",
                ranges.steps(&steps[2..]),
            ));
        }
        Err(diags)
    }

    /// OpenTofu's `ParseProviderConfigCompactStr`.
    pub fn parse_compact_str(s: &str) -> Result<LocalProviderConfig, Diagnostics> {
        parse::parse_str(s, LocalProviderConfig::parse_compact)
    }
}

/// OpenTofu's `String`: `provider.aws`, `provider.aws.west`.
impl fmt::Display for LocalProviderConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.local_name.is_empty() {
            return f.write_str("provider.<invalid>");
        }
        write!(f, "provider.{}", self.compact())
    }
}

/// A provider configuration in the module tree. Configurations live in
/// static modules: a module with `count`/`for_each` cannot declare one.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AbsProviderConfig {
    pub module: Module,
    pub provider: Provider,
    pub alias: Option<Arc<str>>,
}

impl AbsProviderConfig {
    pub fn new(module: Module, provider: Provider, alias: Option<Arc<str>>) -> AbsProviderConfig {
        AbsProviderConfig {
            module,
            provider,
            alias,
        }
    }

    pub fn instance(&self, key: InstanceKey) -> AbsProviderInstance {
        AbsProviderInstance {
            config: self.clone(),
            key,
        }
    }

    /// The configuration this one could inherit from in the parent module:
    /// only default configurations outside the root inherit.
    pub fn inherited(&self) -> Option<AbsProviderConfig> {
        if self.module.is_root() || self.alias.is_some() {
            return None;
        }
        Some(AbsProviderConfig {
            module: self.module.parent(),
            provider: self.provider.clone(),
            alias: None,
        })
    }

    /// The pre-0.13 form (`module.x.provider.aws.west`), for legacy and
    /// built-in providers only.
    pub fn legacy_string(&self) -> Option<String> {
        let type_name = self.provider.legacy_string()?;
        let mut s = String::new();
        if !self.module.is_root() {
            s.push_str(&self.module.to_string());
            s.push('.');
        }
        s.push_str("provider.");
        s.push_str(type_name);
        if let Some(alias) = &self.alias {
            s.push('.');
            s.push_str(alias);
        }
        Some(s)
    }

    /// OpenTofu's `ParseAbsProviderConfig`: like
    /// [`AbsProviderInstance::parse`] but refusing an instance key.
    pub fn parse(
        traversal: &Traversal,
        file: &SourceFile,
    ) -> Result<AbsProviderConfig, Diagnostics> {
        let ranges = Ranges { file };
        let steps = parse::steps(traversal);
        let (config, key, mut diags) = parse_instance(&steps, &ranges);
        if !key.is_none() {
            diags.push(ranges.error(
                "Invalid provider configuration address",
                "A provider address must not include an instance key.",
                ranges.steps(&steps),
            ));
        }
        match config {
            Some(config) if !has_errors(&diags) => Ok(config),
            _ => Err(diags),
        }
    }

    /// OpenTofu's `ParseAbsProviderConfigStr`.
    pub fn parse_str(s: &str) -> Result<AbsProviderConfig, Diagnostics> {
        parse::parse_str(s, AbsProviderConfig::parse)
    }

    /// OpenTofu's `ParseLegacyAbsProviderConfig`: the pre-0.13 state form
    /// `[module path.]provider.TYPE[.ALIAS]`, where every type is a legacy
    /// provider except `terraform`, the built-in one.
    pub fn parse_legacy(
        traversal: &Traversal,
        file: &SourceFile,
    ) -> Result<AbsProviderConfig, Diagnostics> {
        let ranges = Ranges { file };
        let steps = parse::steps(traversal);
        let (module_instance, remain, mut diags) = parse::module_instance_prefix(&steps, &ranges);
        let error = |diags: &mut Diagnostics, detail: &str, subject| {
            diags.push(ranges.error("Invalid provider configuration address", detail, subject));
        };
        if module_instance.steps().iter().any(|s| !s.key.is_none()) {
            error(
                &mut diags,
                "Provider address cannot contain module indexes",
                ranges.steps(remain),
            );
            return Err(diags);
        }
        if remain.len() < 2 || parse::root_name(remain) != "provider" {
            error(
                &mut diags,
                "Provider address must begin with \"provider.\", followed by a provider type name.",
                ranges.steps(remain),
            );
            return Err(diags);
        }
        if remain.len() > 3 {
            error(
                &mut diags,
                "Extraneous operators after provider configuration alias.",
                ranges.steps(&remain[3..]),
            );
            return Err(diags);
        }
        let provider = match remain[1] {
            Step::Name {
                name: "terraform", ..
            } => Provider::new_builtin("terraform").ok(),
            Step::Name { name, .. } => Some(Provider::new_legacy(name)),
            Step::Index { .. } => None,
        };
        let Some(provider) = provider else {
            error(
                &mut diags,
                "The prefix \"provider.\" must be followed by a provider type name.",
                Some(ranges.span(remain[1].span())),
            );
            return Err(diags);
        };
        let mut alias = None;
        if let Some(step) = remain.get(2) {
            match step.name() {
                Some(name) => alias = Some(Arc::from(name)),
                None => {
                    error(
                        &mut diags,
                        "Provider type name must be followed by a configuration alias name.",
                        Some(ranges.span(step.span())),
                    );
                    return Err(diags);
                }
            }
        }
        if has_errors(&diags) {
            return Err(diags);
        }
        Ok(AbsProviderConfig {
            module: module_instance.module(),
            provider,
            alias,
        })
    }

    /// OpenTofu's `ParseLegacyAbsProviderConfigStr`.
    pub fn parse_legacy_str(s: &str) -> Result<AbsProviderConfig, Diagnostics> {
        parse::parse_str(s, AbsProviderConfig::parse_legacy)
    }
}

/// `module.x.provider["registry.terraform.io/hashicorp/aws"].west`.
impl fmt::Display for AbsProviderConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.module.is_root() {
            write!(f, "{}.", self.module)?;
        }
        write!(f, "provider[{}]", gostr::quote(&self.provider.to_string()))?;
        if let Some(alias) = &self.alias {
            write!(f, ".{alias}")?;
        }
        Ok(())
    }
}

impl std::str::FromStr for AbsProviderConfig {
    type Err = Diagnostics;

    fn from_str(s: &str) -> Result<AbsProviderConfig, Diagnostics> {
        AbsProviderConfig::parse_str(s)
    }
}

/// One instance of a provider configuration; the key is `None` unless the
/// configuration has `for_each`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AbsProviderInstance {
    pub config: AbsProviderConfig,
    pub key: InstanceKey,
}

impl AbsProviderInstance {
    /// OpenTofu's `ParseAbsProviderConfigInstance`: both forms of a
    /// provider reference in state, `…provider["FQN"]` and
    /// `…provider["FQN"].ALIAS["KEY"]`.
    pub fn parse(
        traversal: &Traversal,
        file: &SourceFile,
    ) -> Result<AbsProviderInstance, Diagnostics> {
        let ranges = Ranges { file };
        let steps = parse::steps(traversal);
        let (config, key, diags) = parse_instance(&steps, &ranges);
        match config {
            Some(config) if !has_errors(&diags) => Ok(AbsProviderInstance { config, key }),
            _ => Err(diags),
        }
    }

    /// OpenTofu's `ParseAbsProviderConfigInstanceStr`.
    pub fn parse_str(s: &str) -> Result<AbsProviderInstance, Diagnostics> {
        parse::parse_str(s, AbsProviderInstance::parse)
    }
}

/// The configuration followed by the key, if any:
/// `provider["registry.terraform.io/hashicorp/aws"].by_region["us"]`.
impl fmt::Display for AbsProviderInstance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.config, self.key)
    }
}

impl std::str::FromStr for AbsProviderInstance {
    type Err = Diagnostics;

    fn from_str(s: &str) -> Result<AbsProviderInstance, Diagnostics> {
        AbsProviderInstance::parse_str(s)
    }
}

/// OpenTofu's `ParseAbsProviderConfigInstance`. The configuration is none
/// when the address is unusable; a bad instance key is reported with the
/// configuration still read, as in OpenTofu.
fn parse_instance(
    steps: &[Step<'_>],
    ranges: &Ranges<'_>,
) -> (Option<AbsProviderConfig>, InstanceKey, Diagnostics) {
    const SUMMARY: &str = "Invalid provider configuration address";
    let (module_instance, remain, mut diags) = parse::module_instance_prefix(steps, ranges);
    let fail = |mut diags: Diagnostics, detail: &str, subject| {
        diags.push(ranges.error(SUMMARY, detail, subject));
        (None, InstanceKey::None, diags)
    };
    if module_instance.steps().iter().any(|s| !s.key.is_none()) {
        return fail(
            diags,
            "A provider configuration must not appear in a module instance that uses count or for_each.",
            ranges.steps(remain),
        );
    }
    if remain.len() < 2 || parse::root_name(remain) != "provider" {
        return fail(
            diags,
            "Provider address must begin with \"provider.\", followed by a provider type name.",
            ranges.steps(remain),
        );
    }
    if remain.len() > 4 {
        return fail(
            diags,
            "Extraneous operators after provider configuration reference.",
            ranges.steps(&remain[4..]),
        );
    }
    let source = match remain[1] {
        Step::Index { key, .. } => parse::string_key(key),
        Step::Name { .. } => None,
    };
    let Some(source) = source else {
        return fail(
            diags,
            "The prefix \"provider.\" must be followed by a provider type name.",
            Some(ranges.span(remain[1].span())),
        );
    };
    let provider = match Provider::parse_source_str(&source) {
        Ok(p) => p,
        Err(source_diags) => {
            // OpenTofu's source diagnostics carry no range; the index step
            // is where the bad source was written.
            let subject = ranges.span(remain[1].span());
            diags.extend(
                source_diags
                    .into_iter()
                    .map(|d| d.with_subject(subject.clone())),
            );
            return (None, InstanceKey::None, diags);
        }
    };
    let mut alias = None;
    if let Some(step) = remain.get(2) {
        match step.name() {
            Some(name) => alias = Some(Arc::from(name)),
            None => {
                return fail(
                    diags,
                    "Provider type name must be followed by a configuration alias name.",
                    Some(ranges.span(step.span())),
                )
            }
        }
    }
    let mut key = InstanceKey::None;
    if let Some(step) = remain.get(3) {
        match step {
            Step::Index { key: key_expr, span } => {
                let parsed = match parse::literal_value(key_expr) {
                    Some(v) => InstanceKey::from_value(&v).map_err(|e| e.to_string()),
                    None => Err("either a string or an integer is required".to_string()),
                };
                match parsed {
                    Ok(k) => key = k,
                    Err(e) => diags.push(ranges.error(
                        SUMMARY,
                        format!("Invalid provider instance key: {e}."),
                        Some(ranges.span(*span)),
                    )),
                }
            }
            Step::Name { span, .. } => {
                return fail(
                    diags,
                    "A provider configuration alias can be followed only by an instance key in brackets.",
                    Some(ranges.span(*span)),
                )
            }
        }
    }
    let config = AbsProviderConfig {
        module: module_instance.module(),
        provider,
        alias,
    };
    (Some(config), key, diags)
}

#[cfg(test)]
mod tests;
