//! How a resource object may change, as OpenTofu's `plans/objchange`
//! decides it: the proposed new state sent to `PlanResourceChange`
//! (`proposed_new`), the checks that a provider's plan respects the
//! configuration (`assert_plan_valid`) and that its apply result keeps the
//! plan's promises (`assert_object_compatible`), and the clean-up of
//! objects from providers built on the legacy SDK
//! (`normalize_object_from_legacy_sdk`).
//!
//! The checks return [`ObjectError`]s, a path and a message with OpenTofu's
//! exact wording; [`check_planned_state`] and [`check_apply_result`] wrap
//! them into the diagnostics OpenTofu reports, including the legacy-SDK
//! tolerance (errors become a log warning when the provider's response set
//! `legacy_type_system`, which the plugin protocol calls
//! `UnsafeToUseLegacyTypeSystem`).

mod compatible;
pub mod gostring;
mod normalize;
mod plan_valid;
mod proposed;
mod walk;

pub use compatible::assert_object_compatible;
pub use normalize::normalize_object_from_legacy_sdk;
pub use plan_valid::assert_plan_valid;
pub use proposed::{empty_value, planned_unknown_object, proposed_new};

use crate::diagnostics::{Diagnostic, Diagnostics};
use std::fmt;
use terrace_value::convert::{format_path, PathStep};
use terrace_value::{Type, Value};

/// A problem found in an object, at a path into it (cty's `PathError`).
#[derive(Clone, Debug)]
pub struct ObjectError {
    pub path: Vec<PathStep>,
    pub message: String,
}

impl ObjectError {
    pub(crate) fn new(path: &[PathStep], message: impl Into<String>) -> ObjectError {
        ObjectError {
            path: path.to_vec(),
            message: message.into(),
        }
    }

    /// OpenTofu's `tfdiags.FormatErrorPrefixed`: `prefix.path: message`,
    /// or `prefix: message` at the root.
    pub fn format_prefixed(&self, prefix: &str) -> String {
        if self.path.is_empty() {
            format!("{prefix}: {}", self.message)
        } else {
            format!("{prefix}{}: {}", format_path(&self.path), self.message)
        }
    }
}

/// OpenTofu's `tfdiags.FormatError`: `.path: message`, or the message alone
/// at the root.
impl fmt::Display for ObjectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", format_path(&self.path), self.message)
        }
    }
}

impl std::error::Error for ObjectError {}

/// What the engine reports after checking a provider's answer: error
/// diagnostics, or (for a legacy-SDK provider, whose inconsistencies are
/// tolerated) a warning meant for the log only.
#[derive(Clone, Debug, Default)]
pub struct Consistency {
    pub diagnostics: Diagnostics,
    pub log_warning: Option<String>,
}

/// cty's `Type.TestConformance`: how `given` departs from `want`, where
/// `dynamic` in `want` accepts anything.
pub fn test_conformance(given: &Type, want: &Type) -> Vec<ObjectError> {
    let mut errors = Vec::new();
    conformance(given, want, &mut Vec::new(), &mut errors);
    errors
}

fn conformance(given: &Type, want: &Type, path: &mut Vec<PathStep>, errors: &mut Vec<ObjectError>) {
    if want.is_dynamic() || given == want {
        return;
    }
    match (given, want) {
        (Type::Object(g), Type::Object(w)) => {
            for name in g.attributes.keys() {
                if !w.attributes.contains_key(name) {
                    errors.push(ObjectError::new(
                        path,
                        format!(
                            "unsupported attribute {}",
                            terrace_value::gostr::quote(name)
                        ),
                    ));
                }
            }
            for name in w.attributes.keys() {
                if !g.attributes.contains_key(name) {
                    errors.push(ObjectError::new(
                        path,
                        format!(
                            "missing required attribute {}",
                            terrace_value::gostr::quote(name)
                        ),
                    ));
                }
            }
            for (name, wt) in &w.attributes {
                if let Some(gt) = g.attributes.get(name) {
                    path.push(PathStep::Attr(name.clone()));
                    conformance(gt, wt, path, errors);
                    path.pop();
                }
            }
        }
        (Type::Tuple(g), Type::Tuple(w)) => {
            if g.len() != w.len() {
                errors.push(ObjectError::new(
                    path,
                    format!("{} elements are required, but got {}", w.len(), g.len()),
                ));
                return;
            }
            for (i, (gt, wt)) in g.iter().zip(w.iter()).enumerate() {
                path.push(PathStep::Index(Value::int(i as i64)));
                conformance(gt, wt, path, errors);
                path.pop();
            }
        }
        (Type::List(g), Type::List(w)) => {
            path.push(PathStep::Index(Value::unknown(Type::Number)));
            conformance(g, w, path, errors);
            path.pop();
        }
        (Type::Map(g), Type::Map(w)) => {
            path.push(PathStep::Index(Value::unknown(Type::String)));
            conformance(g, w, path, errors);
            path.pop();
        }
        (Type::Set(g), Type::Set(w)) => {
            path.push(PathStep::Index(Value::unknown((**g).clone())));
            conformance(g, w, path, errors);
            path.pop();
        }
        _ => errors.push(ObjectError::new(
            path,
            format!(
                "{} required, but received {}",
                want.friendly_name(),
                given.friendly_name()
            ),
        )),
    }
}

const PROVIDER_BUG: &str =
    "This is a bug in the provider, which should be reported in the provider's own issue tracker.";

fn invalid_plan(provider: &str, addr: &str, error: &ObjectError) -> Diagnostic {
    Diagnostic::error(
        "Provider produced invalid plan",
        format!(
            "Provider {} planned an invalid value for {}.\n\n{PROVIDER_BUG}",
            terrace_value::gostr::quote(provider),
            error.format_prefixed(addr)
        ),
    )
}

fn tolerated(kind: &str, provider: &str, addr: &str, errors: &[ObjectError]) -> String {
    let mut text = format!(
        "[WARN] Provider {} produced {kind} for {addr}, but we are tolerating it because it is using the legacy plugin SDK.\n    The following problems may be the cause of any confusing errors from downstream operations:",
        terrace_value::gostr::quote(provider)
    );
    for error in errors {
        text.push_str(&format!("\n      - {error}"));
    }
    text
}

/// The checks OpenTofu makes on a `PlanResourceChange` answer: the planned
/// value must conform to the schema's type (always an error), and must be
/// a valid plan for the configuration (`assert_plan_valid`; tolerated with
/// a log warning when `legacy_type_system`). `provider` is the provider
/// instance as OpenTofu names it in messages
/// (`provider["registry.terraform.io/hashicorp/aws"]`), `addr` the resource
/// instance address. All values are expected unmarked.
pub fn check_planned_state(
    schema: &crate::schema::Block,
    prior: &Value,
    config: &Value,
    planned: &Value,
    legacy_type_system: bool,
    provider: &str,
    addr: &str,
) -> Consistency {
    let mut result = Consistency::default();
    for error in test_conformance(planned.ty(), &schema.implied_type()) {
        result
            .diagnostics
            .push(invalid_plan(provider, addr, &error));
    }
    if result.diagnostics.has_errors() {
        return result;
    }
    let errors = assert_plan_valid(schema, prior, config, planned);
    if errors.is_empty() {
        return result;
    }
    if legacy_type_system {
        result.log_warning = Some(tolerated("an invalid plan", provider, addr, &errors));
    } else {
        for error in &errors {
            result.diagnostics.push(invalid_plan(provider, addr, error));
        }
    }
    result
}

/// The check OpenTofu makes on an `ApplyResourceChange` result that is not
/// a destroy: the new object must be a valid completion of the planned one
/// (`assert_object_compatible`; tolerated with a log warning when
/// `legacy_type_system`).
pub fn check_apply_result(
    schema: &crate::schema::Block,
    planned: &Value,
    actual: &Value,
    legacy_type_system: bool,
    provider: &str,
    addr: &str,
) -> Consistency {
    let mut result = Consistency::default();
    let errors = assert_object_compatible(schema, planned, actual);
    if errors.is_empty() {
        return result;
    }
    if legacy_type_system {
        result.log_warning = Some(tolerated(
            "an unexpected new value",
            provider,
            addr,
            &errors,
        ));
    } else {
        for error in &errors {
            result.diagnostics.push(Diagnostic::error(
                "Provider produced inconsistent result after apply",
                format!(
                    "When applying changes to {addr}, provider {} produced an unexpected new value: {error}.\n\n{PROVIDER_BUG}",
                    terrace_value::gostr::quote(provider)
                ),
            ));
        }
    }
    result
}

#[cfg(test)]
mod tests;
