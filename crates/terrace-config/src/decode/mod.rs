//! Decoding of one configuration file's blocks, following OpenTofu's
//! `configs` package (`parser_config.go` and the per-block files): the
//! same schemas, the same checks in the same order, and the same
//! diagnostics, so a configuration that OpenTofu rejects is rejected here
//! with the same summary at the same place.

use crate::body::{Attribute, Block, Body, BodyContent, BodySchema};
use crate::expr::{Expression, PRODUCT};
use crate::model::*;
use crate::version::{Constraints, Version};
use crate::OPENTOFU_LANGUAGE_VERSION;
use std::sync::LazyLock;
use terrace_lang::references::{references, ResourceMode, Subject};
use terrace_lang::typeexpr::type_constraint_with_defaults;
use terrace_syntax::ast::{Expr, ExprKind, ObjectKey, Traversal, TraversalStep};
use terrace_syntax::diagnostic::has_errors;
use terrace_syntax::{Diagnostic, Diagnostics, SourceRange, Span};
use terrace_value::convert::{apply_defaults, convert};
use terrace_value::gostr::quote;
use terrace_value::{Type, Value};

mod checks;
mod meta;
mod module_calls;
mod named_values;
mod providers;
mod provisioners;
mod refactoring;
mod resources;
mod schemas;
#[cfg(test)]
mod tests;
mod versions;

use checks::*;
use meta::*;
pub(crate) use module_calls::*;
use named_values::*;
pub(crate) use providers::*;
use provisioners::*;
use refactoring::*;
use resources::*;
pub(crate) use schemas::*;
pub(crate) use versions::*;

/// The blocks of one file, before they are combined into a module.
#[derive(Clone, Debug, Default)]
pub struct File {
    pub backends: Vec<Backend>,
    pub cloud_configs: Vec<CloudConfig>,
    pub provider_configs: Vec<Provider>,
    pub provider_metas: Vec<ProviderMeta>,
    pub required_providers: Vec<RequiredProviders>,
    pub encryptions: Vec<Encryption>,
    pub variables: Vec<Variable>,
    pub locals: Vec<Local>,
    pub outputs: Vec<Output>,
    pub module_calls: Vec<ModuleCall>,
    pub managed_resources: Vec<Resource>,
    pub data_resources: Vec<Resource>,
    pub ephemeral_resources: Vec<Resource>,
    pub moved: Vec<Moved>,
    pub imports: Vec<Import>,
    pub removed: Vec<Removed>,
    pub checks: Vec<Check>,
    /// "Incompatible module" errors: when any file of a module has one,
    /// they replace every other diagnostic of the module, since the rest
    /// probably describes language features of a newer version.
    pub incompatibilities: Diagnostics,
    /// `terraform { required_version }` of a `.tf` file: the Terraform
    /// versions the file is written for.
    pub terraform_version_constraints: Vec<VersionConstraint>,
}

pub(crate) const BAD_IDENTIFIER_DETAIL: &str = "A name must start with a letter or underscore and may contain only letters, digits, underscores, and dashes.";

/// HCL's `ValidIdentifier`.
pub fn valid_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c == '_' || unicode_ident::is_xid_start(c) => {}
        _ => return false,
    }
    chars.all(|c| c == '-' || unicode_ident::is_xid_continue(c))
}

fn error(
    summary: impl Into<String>,
    detail: impl Into<String>,
    subject: &SourceRange,
) -> Diagnostic {
    Diagnostic::error(summary, detail).with_subject(subject.clone())
}

fn warning(
    summary: impl Into<String>,
    detail: impl Into<String>,
    subject: &SourceRange,
) -> Diagnostic {
    Diagnostic::warning(summary, detail).with_subject(subject.clone())
}

fn range_between(a: &SourceRange, b: &SourceRange) -> SourceRange {
    let (first, last) = if a.start.byte <= b.start.byte {
        (a, b)
    } else {
        (b, a)
    };
    SourceRange {
        filename: first.filename.clone(),
        start: first.start,
        end: if last.end.byte >= first.end.byte {
            last.end
        } else {
            first.end
        },
    }
}

/// The value of one decoding step, its diagnostics added to `diags`.
fn gather<T>(diags: &mut Diagnostics, (value, more): (T, Diagnostics)) -> T {
    diags.extend(more);
    value
}

/// gohcl's `DecodeExpression` with a nil context into a value of `want`
/// (a primitive type): the value, or the diagnostics explaining why not.
fn decode_constant(expr: &Expression, want: &Type) -> (Option<Value>, Diagnostics) {
    let (value, mut diags) = expr.constant_value();
    let unsuitable = |detail: String| {
        Diagnostic::error(
            "Unsuitable value type",
            format!("Unsuitable value: {detail}"),
        )
        .with_subject(expr.start_range())
        .with_context(expr.range())
    };
    let value = match convert(&value, want) {
        Ok(v) => v,
        Err(e) => {
            diags.push(unsuitable(e.to_string()));
            return (None, diags);
        }
    };
    if value.is_null() {
        diags.push(unsuitable("null value is not allowed".into()));
        return (None, diags);
    }
    if !value.is_known() {
        diags.push(unsuitable("value must be known".into()));
        return (None, diags);
    }
    (Some(value.unmark_deep().0), diags)
}

pub(crate) fn decode_bool(expr: &Expression) -> (Option<bool>, Diagnostics) {
    let (v, diags) = decode_constant(expr, &Type::Bool);
    (v.and_then(|v| v.as_bool()), diags)
}

pub(crate) fn decode_string(expr: &Expression) -> (Option<String>, Diagnostics) {
    let (v, diags) = decode_constant(expr, &Type::String);
    (v.and_then(|v| v.as_str().map(str::to_string)), diags)
}

/// OpenTofu's `checkProviderNameNormalized`.
pub(crate) fn check_provider_name_normalized(name: &str, range: &SourceRange) -> Diagnostics {
    match terrace_addrs::parse_provider_part(name) {
        Err(e) => vec![error(
            "Invalid provider local name",
            format!("{name} is an invalid provider local name: {e}"),
            range,
        )],
        Ok(normalized) if normalized != name => vec![error(
            "Invalid provider local name",
            format!(
                "Provider names must be normalized. Replace {} with {} to fix this error.",
                quote(name),
                quote(&normalized)
            ),
            range,
        )],
        Ok(_) => Vec::new(),
    }
}

// ----- files -----

/// OpenTofu's `loadConfigFileBody`: every top-level block of one file.
/// `filename` decides whether a `terraform { required_version }` is
/// OpenTofu's to check (only in `.tofu` files).
pub fn decode_file(body: &Body, filename: &str, is_override: bool) -> (File, Diagnostics) {
    let mut file = File::default();
    let mut diags = check_version_requirements(body, filename, &mut file.incompatibilities);
    diags.extend(file.incompatibilities.iter().cloned());
    let (content, content_diags) = body.content(&CONFIG_FILE_SCHEMA);
    diags.extend(content_diags);

    let d = &mut diags;
    for block in &content.blocks {
        match block.block_type.as_str() {
            "language" => d.extend(validate_language_block(block, is_override)),
            "terraform" => decode_terraform_block(block, filename, &mut file, d),
            "required_providers" => d.push(error(
                "Invalid required_providers block",
                "A \"required_providers\" block must be nested inside a \"terraform\" block.",
                &block.type_range,
            )),
            "provider" => file
                .provider_configs
                .extend(gather(d, decode_provider_block(block))),
            "variable" => file
                .variables
                .push(gather(d, decode_variable_block(block, is_override))),
            "locals" => file.locals.extend(gather(d, decode_locals_block(block))),
            "output" => file
                .outputs
                .push(gather(d, decode_output_block(block, is_override))),
            "module" => file
                .module_calls
                .push(gather(d, decode_module_block(block, is_override))),
            "resource" => file
                .managed_resources
                .push(gather(d, decode_resource_block(block, is_override))),
            "data" => file
                .data_resources
                .push(gather(d, decode_data_block(block, is_override, false))),
            "ephemeral" => file
                .ephemeral_resources
                .push(gather(d, decode_ephemeral_block(block, is_override))),
            "moved" => file.moved.push(gather(d, decode_moved_block(block))),
            "import" => file.imports.push(gather(d, decode_import_block(block))),
            "check" => file
                .checks
                .push(gather(d, decode_check_block(block, is_override))),
            "removed" => file.removed.push(gather(d, decode_removed_block(block))),
            _ => {}
        }
    }
    (file, diags)
}

fn decode_terraform_block(block: &Block, filename: &str, file: &mut File, diags: &mut Diagnostics) {
    let (content, content_diags) = block.body.content(&TERRAFORM_BLOCK_SCHEMA);
    diags.extend(content_diags);
    // required_version in an OpenTofu-specific file is checked by
    // check_version_requirements against the OpenTofu language version;
    // in a `.tf` file it constrains the Terraform version, checked once
    // the module tree is loaded (`check_terraform_versions`).
    // experiments and language are ignored, as OpenTofu does.
    let is_tofu = filename.ends_with(".tofu") || filename.ends_with(".tofu.json");
    if let (false, Some(attr)) = (is_tofu, content.attribute("required_version")) {
        let (constraint, d) = decode_version_constraint(attr);
        let failed = has_errors(&d);
        diags.extend(d);
        if let (false, Some(c)) = (failed, constraint) {
            let valid = validate_terraform_version_constraint(&c);
            let failed = has_errors(&valid);
            diags.extend(valid);
            if !failed {
                file.terraform_version_constraints.push(c);
            }
        }
    }
    for inner in &content.blocks {
        match inner.block_type.as_str() {
            "backend" => file.backends.push(Backend {
                type_name: inner.labels.first().cloned().unwrap_or_default(),
                config: inner.body.clone(),
                type_range: inner.label_ranges.first().cloned().unwrap_or_default(),
                decl_range: inner.def_range.clone(),
            }),
            "cloud" => file.cloud_configs.push(CloudConfig {
                config: inner.body.clone(),
                decl_range: inner.def_range.clone(),
            }),
            "required_providers" => file
                .required_providers
                .push(gather(diags, decode_required_providers_block(inner))),
            "provider_meta" => file
                .provider_metas
                .extend(gather(diags, decode_provider_meta_block(inner))),
            "encryption" => file.encryptions.push(Encryption {
                config: inner.body.clone(),
                decl_range: inner.def_range.clone(),
            }),
            _ => {}
        }
    }
}
