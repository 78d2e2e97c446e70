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

// ----- schemas -----

static CONFIG_FILE_SCHEMA: LazyLock<BodySchema> = LazyLock::new(|| {
    BodySchema::new()
        .block("language")
        .block("required_providers")
        .labeled_block("provider", &["name"])
        .labeled_block("variable", &["name"])
        .block("locals")
        .labeled_block("output", &["name"])
        .labeled_block("module", &["name"])
        .labeled_block("resource", &["type", "name"])
        .labeled_block("data", &["type", "name"])
        .labeled_block("ephemeral", &["type", "name"])
        .block("moved")
        .block("import")
        .labeled_block("check", &["name"])
        .block("removed")
        .block("terraform")
});

static TERRAFORM_BLOCK_SCHEMA: LazyLock<BodySchema> = LazyLock::new(|| {
    BodySchema::new()
        .attr("required_version")
        .attr("experiments")
        .attr("language")
        .labeled_block("backend", &["type"])
        .block("cloud")
        .block("required_providers")
        .labeled_block("provider_meta", &["provider"])
        .block("encryption")
});

static VARIABLE_BLOCK_SCHEMA: LazyLock<BodySchema> = LazyLock::new(|| {
    BodySchema::new()
        .attr("description")
        .attr("default")
        .attr("type")
        .attr("sensitive")
        .attr("ephemeral")
        .attr("const")
        .attr("deprecated")
        .attr("nullable")
        .block("validation")
});

static OUTPUT_BLOCK_SCHEMA: LazyLock<BodySchema> = LazyLock::new(|| {
    BodySchema::new()
        .attr("description")
        .required_attr("value")
        .attr("depends_on")
        .attr("sensitive")
        .attr("ephemeral")
        .attr("deprecated")
        .block("precondition")
        .block("postcondition")
});

static PROVIDER_BLOCK_SCHEMA: LazyLock<BodySchema> = LazyLock::new(|| {
    BodySchema::new()
        .attr("alias")
        .attr("version")
        .attr("for_each")
        .attr("count")
        .attr("depends_on")
        .attr("source")
        .block("_")
        .block("lifecycle")
        .block("locals")
});

pub(crate) static MODULE_BLOCK_SCHEMA: LazyLock<BodySchema> = LazyLock::new(|| {
    BodySchema::new()
        .required_attr("source")
        .attr("version")
        .attr("count")
        .attr("for_each")
        .attr("depends_on")
        .attr("providers")
        .block("_")
        .block("lifecycle")
        .block("locals")
        .labeled_block("provider", &["type"])
});

static MODULE_LIFECYCLE_SCHEMA: LazyLock<BodySchema> =
    LazyLock::new(|| BodySchema::new().attr("enabled"));

static RESOURCE_BLOCK_SCHEMA: LazyLock<BodySchema> = LazyLock::new(|| {
    BodySchema::new()
        .attr("count")
        .attr("for_each")
        .attr("provider")
        .attr("depends_on")
        .block("locals")
        .block("lifecycle")
        .block("connection")
        .labeled_block("provisioner", &["type"])
        .block("_")
});

static DATA_BLOCK_SCHEMA: LazyLock<BodySchema> = LazyLock::new(|| {
    BodySchema::new()
        .attr("count")
        .attr("for_each")
        .attr("provider")
        .attr("depends_on")
        .block("lifecycle")
        .block("locals")
        .block("_")
});

static RESOURCE_LIFECYCLE_SCHEMA: LazyLock<BodySchema> = LazyLock::new(|| {
    BodySchema::new()
        .attr("create_before_destroy")
        .attr("prevent_destroy")
        .attr("destroy")
        .attr("ignore_changes")
        .attr("replace_triggered_by")
        .attr("enabled")
        .block("precondition")
        .block("postcondition")
});

static CHECK_RULE_SCHEMA: LazyLock<BodySchema> = LazyLock::new(|| {
    BodySchema::new()
        .required_attr("condition")
        .required_attr("error_message")
});

static CHECK_BLOCK_SCHEMA: LazyLock<BodySchema> = LazyLock::new(|| {
    BodySchema::new()
        .labeled_block("data", &["type", "name"])
        .block("assert")
});

static PROVISIONER_BLOCK_SCHEMA: LazyLock<BodySchema> = LazyLock::new(|| {
    BodySchema::new()
        .attr("when")
        .attr("on_failure")
        .block("_")
        .block("connection")
        .block("lifecycle")
});

static MOVED_BLOCK_SCHEMA: LazyLock<BodySchema> =
    LazyLock::new(|| BodySchema::new().required_attr("from").required_attr("to"));

static REMOVED_BLOCK_SCHEMA: LazyLock<BodySchema> = LazyLock::new(|| {
    BodySchema::new()
        .required_attr("from")
        .block("lifecycle")
        .labeled_block("provisioner", &["type"])
});

static REMOVED_LIFECYCLE_SCHEMA: LazyLock<BodySchema> =
    LazyLock::new(|| BodySchema::new().attr("destroy"));

static IMPORT_BLOCK_SCHEMA: LazyLock<BodySchema> = LazyLock::new(|| {
    BodySchema::new()
        .attr("provider")
        .attr("id")
        .attr("identity")
        .required_attr("to")
        .attr("for_each")
});

static LANGUAGE_BLOCK_SCHEMA: LazyLock<BodySchema> = LazyLock::new(|| {
    BodySchema::new()
        .attr("edition")
        .attr("experiments")
        .block("compatible_with")
});

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

    for block in &content.blocks {
        match block.block_type.as_str() {
            "language" => diags.extend(validate_language_block(block, is_override)),
            "terraform" => decode_terraform_block(block, &mut file, &mut diags),
            "required_providers" => diags.push(error(
                "Invalid required_providers block",
                "A \"required_providers\" block must be nested inside a \"terraform\" block.",
                &block.type_range,
            )),
            "provider" => {
                let (p, d) = decode_provider_block(block);
                diags.extend(d);
                file.provider_configs.extend(p);
            }
            "variable" => {
                let (v, d) = decode_variable_block(block, is_override);
                diags.extend(d);
                file.variables.push(v);
            }
            "locals" => {
                let (l, d) = decode_locals_block(block);
                diags.extend(d);
                file.locals.extend(l);
            }
            "output" => {
                let (o, d) = decode_output_block(block, is_override);
                diags.extend(d);
                file.outputs.push(o);
            }
            "module" => {
                let (m, d) = decode_module_block(block, is_override);
                diags.extend(d);
                file.module_calls.push(m);
            }
            "resource" => {
                let (r, d) = decode_resource_block(block, is_override);
                diags.extend(d);
                file.managed_resources.push(r);
            }
            "data" => {
                let (r, d) = decode_data_block(block, is_override, false);
                diags.extend(d);
                file.data_resources.push(r);
            }
            "ephemeral" => {
                let (r, d) = decode_ephemeral_block(block, is_override);
                diags.extend(d);
                file.ephemeral_resources.push(r);
            }
            "moved" => {
                let (m, d) = decode_moved_block(block);
                diags.extend(d);
                file.moved.push(m);
            }
            "import" => {
                let (i, d) = decode_import_block(block);
                diags.extend(d);
                file.imports.push(i);
            }
            "check" => {
                let (c, d) = decode_check_block(block, is_override);
                diags.extend(d);
                file.checks.push(c);
            }
            "removed" => {
                let (r, d) = decode_removed_block(block);
                diags.extend(d);
                file.removed.push(r);
            }
            _ => {}
        }
    }
    (file, diags)
}

fn decode_terraform_block(block: &Block, file: &mut File, diags: &mut Diagnostics) {
    let (content, content_diags) = block.body.content(&TERRAFORM_BLOCK_SCHEMA);
    diags.extend(content_diags);
    // required_version is checked by check_version_requirements (and only
    // in OpenTofu-specific files); experiments and language belong to
    // OpenTofu's predecessor and are ignored, as OpenTofu does.
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
            "required_providers" => {
                let (r, d) = decode_required_providers_block(inner);
                diags.extend(d);
                file.required_providers.push(r);
            }
            "provider_meta" => {
                let (m, d) = decode_provider_meta_block(inner);
                diags.extend(d);
                file.provider_metas.extend(m);
            }
            "encryption" => file.encryptions.push(Encryption {
                config: inner.body.clone(),
                decl_range: inner.def_range.clone(),
            }),
            _ => {}
        }
    }
}

// ----- version requirements and language blocks -----

fn incompatible_module(range: &SourceRange) -> Diagnostic {
    error(
        "Incompatible module",
        format!("This module is not compatible with OpenTofu v{OPENTOFU_LANGUAGE_VERSION}, the version of the language {PRODUCT} implements.\n\nTo proceed, either choose another supported version or update this version constraint. Version constraints are normally set for good reason, so updating the constraint may lead to other errors or unexpected behavior."),
        range,
    )
}

fn language_version() -> Option<Version> {
    Version::parse(OPENTOFU_LANGUAGE_VERSION).ok()
}

/// OpenTofu's `checkVersionRequirements`: `language { compatible_with {
/// opentofu = ... } }` anywhere, and `terraform { required_version }` in
/// `.tofu` files, checked against the OpenTofu language version.
fn check_version_requirements(
    body: &Body,
    filename: &str,
    incompatibilities: &mut Diagnostics,
) -> Diagnostics {
    let sniff = BodySchema::new().block("terraform").block("language");
    let (root, _, mut diags) = body.partial_content(&sniff);
    let Some(current) = language_version() else {
        return diags;
    };
    for block in &root.blocks {
        match block.block_type.as_str() {
            "language" => {
                let (content, _, d) = block
                    .body
                    .partial_content(&BodySchema::new().block("compatible_with"));
                diags.extend(d);
                for nested in &content.blocks {
                    let (constraint, d) = decode_compatible_with(nested);
                    diags.extend(d);
                    if let Some(c) = constraint {
                        let valid = validate_core_version_constraint(&c);
                        let ok = !has_errors(&valid);
                        diags.extend(valid);
                        if ok && !c.required.check(&current) {
                            incompatibilities.push(incompatible_module(&c.decl_range));
                        }
                    }
                }
            }
            "terraform" => {
                let is_tofu = filename.ends_with(".tofu") || filename.ends_with(".tofu.json");
                if !is_tofu {
                    continue;
                }
                let (content, _, d) = block
                    .body
                    .partial_content(&BodySchema::new().attr("required_version"));
                diags.extend(d);
                let Some(attr) = content.attribute("required_version") else {
                    continue;
                };
                let (c, d) = decode_version_constraint(attr);
                let ok = !has_errors(&d);
                diags.extend(d);
                if let (true, Some(c)) = (ok, c) {
                    let valid = validate_core_version_constraint(&c);
                    let ok = !has_errors(&valid);
                    diags.extend(valid);
                    if ok && !c.required.check(&current) {
                        incompatibilities.push(incompatible_module(&c.decl_range));
                    }
                }
            }
            _ => {}
        }
    }
    diags
}

fn validate_core_version_constraint(c: &VersionConstraint) -> Diagnostics {
    c.required
        .iter()
        .filter(|r| r.is_prerelease())
        .map(|r| {
            error(
                "Invalid required_version constraint",
                format!("Prerelease version constraints are not supported: {}. Remove the prerelease information from the constraint. Prerelease versions of OpenTofu will match constraints using their version core only.", r.version()),
                &c.decl_range,
            )
        })
        .collect()
}

fn decode_compatible_with(block: &Block) -> (Option<VersionConstraint>, Diagnostics) {
    let (content, _, mut diags) = block
        .body
        .partial_content(&BodySchema::new().attr("opentofu"));
    let Some(attr) = content.attribute("opentofu") else {
        return (None, diags);
    };
    let (c, d) = decode_version_constraint(attr);
    let failed = has_errors(&d);
    diags.extend(d);
    (if failed { None } else { c }, diags)
}

const FIRST_EDITION: &str = "tofu2024";

fn validate_language_block(block: &Block, is_override: bool) -> Diagnostics {
    if is_override {
        return vec![error(
            "Language selections in override file",
            "Language-related settings in \"language\" blocks are not allowed in override files. Place these settings in a normal configuration file.",
            &block.def_range,
        )];
    }
    let (content, mut diags) = block.body.content(&LANGUAGE_BLOCK_SCHEMA);
    if let Some(attr) = content.attribute("edition") {
        let range = attr.expr.range();
        match attr.expr.as_keyword() {
            None => diags.push(error(
                "Invalid language edition",
                format!("The \"edition\" argument expects a bare language edition keyword. {PRODUCT} supports only language edition {FIRST_EDITION}, which is the default."),
                &range,
            )),
            Some(kw) if kw.starts_with("TF") => diags.push(error(
                "Unsupported language edition",
                format!("{PRODUCT} does not support language edition {}. This module may be intended for use with other software.", quote(&kw)),
                &range,
            )),
            Some(kw) if kw != FIRST_EDITION => {
                let rel = if kw.as_str() > FIRST_EDITION { "newer" } else { "different" };
                diags.push(error(
                    "Unsupported language edition",
                    format!("{PRODUCT} only supports language edition {FIRST_EDITION}. This module requires a {rel} version of {PRODUCT}."),
                    &range,
                ));
            }
            Some(_) => {}
        }
    }
    if let Some(attr) = content.attribute("experiments") {
        match attr.expr.list() {
            Err(d) => diags.extend(d),
            Ok(exprs) => {
                for e in exprs {
                    match e.as_keyword() {
                        None => diags.push(error(
                            "Invalid experiment keyword",
                            "Elements of \"experiments\" must all be keywords representing active experiments.",
                            &e.range(),
                        )),
                        Some(kw) => diags.push(error(
                            "Unknown experiment keyword",
                            format!("There is no current experiment with the keyword {}.", quote(&kw)),
                            &e.range(),
                        )),
                    }
                }
            }
        }
    }
    let mut seen: Option<VersionConstraint> = None;
    for nested in &content.blocks {
        if let Some(previous) = &seen {
            diags.push(error(
                "Duplicate compatible_with block",
                format!("Each language block may have at most one compatible_with block referring to OpenTofu. The OpenTofu version constraint was already declared at {}.", previous.decl_range),
                &block.def_range,
            ));
            continue;
        }
        let (c, d) = decode_compatible_with(nested);
        let failed = has_errors(&d);
        diags.extend(d);
        if let (false, Some(c)) = (failed, &c) {
            let before = Version::parse("1.11.0").ok();
            if before.is_some_and(|v| c.required.check(&v)) {
                diags.push(warning(
                    "Ineffective version constraint",
                    "The compatible_with block was added in OpenTofu v1.12.0, so any constraint specified this way should exclude earlier versions of OpenTofu, such as by including \">= 0.12.0\".\n\nIf your module must be compatible with earlier versions of OpenTofu, use the required_version argument in a \"terraform\" block in a file named with the .tofu suffix, which is an older way to specify OpenTofu version constraints.",
                    &c.decl_range,
                ));
            }
        }
        seen = c;
    }
    diags
}

// ----- version constraints -----

/// OpenTofu's `decodeVersionConstraint`: a constant string.
pub(crate) fn decode_version_constraint(
    attr: &Attribute,
) -> (Option<VersionConstraint>, Diagnostics) {
    let (value, diags) = attr.expr.constant_value();
    if has_errors(&diags) {
        return (None, diags);
    }
    let (c, more) = decode_version_constraint_value(attr, &value);
    let mut diags = diags;
    diags.extend(more);
    (c, diags)
}

/// OpenTofu's `decodeVersionConstraintValue`.
pub(crate) fn decode_version_constraint_value(
    attr: &Attribute,
    value: &Value,
) -> (Option<VersionConstraint>, Diagnostics) {
    let subject = attr.expr.range();
    let marks = value.deep_marks();
    if marks.is_sensitive() {
        return (None, vec![error(
            "Invalid version constraint",
            format!("Sensitive values, or values derived from sensitive values, cannot be used as {} arguments.", attr.name),
            &subject,
        )]);
    }
    if marks.is_ephemeral() {
        return (None, vec![error(
            "Invalid version constraint",
            format!("Ephemeral values, or values derived from ephemeral values, cannot be used as {} arguments.", attr.name),
            &subject,
        )]);
    }
    let empty = VersionConstraint {
        required: Constraints::default(),
        decl_range: attr.range.clone(),
    };
    let value = match convert(value, &Type::String) {
        Ok(v) => v,
        Err(_) => {
            return (
                None,
                vec![error(
                    "Invalid version constraint",
                    format!("A string value is required for {}.", attr.name),
                    &subject,
                )],
            )
        }
    };
    if value.is_null() || !value.is_wholly_known() {
        return (Some(empty), Vec::new());
    }
    let text = value.as_str().unwrap_or_default();
    match Constraints::parse(text) {
        Ok(required) => (
            Some(VersionConstraint {
                required,
                decl_range: attr.range.clone(),
            }),
            Vec::new(),
        ),
        Err(_) => (
            None,
            vec![error(
                "Invalid version constraint",
                "This string does not use correct version constraint syntax.",
                &subject,
            )],
        ),
    }
}

// ----- required_providers and provider_meta -----

fn decode_required_providers_block(block: &Block) -> (RequiredProviders, Diagnostics) {
    let mut ret = RequiredProviders {
        providers: Default::default(),
        decl_range: Some(block.def_range.clone()),
    };
    let (attrs, mut diags) = block.body.just_attributes();
    if has_errors(&diags) {
        return (ret, diags);
    }
    for attr in &attrs {
        let name = attr.name.clone();
        let mut rp = RequiredProvider {
            name: name.clone(),
            source: None,
            source_range: None,
            provider: None,
            requirement: None,
            decl_range: attr.expr.range(),
            aliases: Vec::new(),
            collections: Vec::new(),
        };
        // The legacy form: just a version constraint string.
        let (value, value_diags) = attr.expr.constant_value();
        if value_diags.is_empty() && value.ty().is_primitive() {
            let (vc, d) = decode_version_constraint(attr);
            diags.extend(d);
            match terrace_addrs::Provider::implied_for_unqualified_type(&name) {
                Err(e) => {
                    diags.push(error(
                        "Invalid provider name",
                        e.to_string(),
                        &attr.expr.range(),
                    ));
                    continue;
                }
                Ok(p) => rp.provider = Some(p),
            }
            rp.requirement = vc;
            ret.providers.insert(name, rp);
            continue;
        }
        let name_diags = check_provider_name_normalized(&name, &attr.expr.range());
        if has_errors(&name_diags) {
            diags.extend(name_diags);
            continue;
        }
        let Some(pairs) = attr.expr.as_map() else {
            diags.push(error(
                "Invalid required_providers object",
                "required_providers entries must be strings or objects.",
                &attr.expr.range(),
            ));
            continue;
        };
        for (key_expr, value_expr) in &pairs {
            let (key, key_diags) = key_expr.constant_value();
            if has_errors(&key_diags) {
                diags.extend(key_diags);
                continue;
            }
            let Some(key) = key.as_str().map(str::to_string) else {
                diags.push(error(
                    "Invalid Attribute",
                    format!(
                        "Invalid attribute value for provider requirement: {}",
                        key.ty().friendly_name()
                    ),
                    &key_expr.range(),
                ));
                continue;
            };
            match key.as_str() {
                "version" => {
                    let (constraint, d) = value_expr.constant_value();
                    if has_errors(&d) || constraint.ty() != &Type::String || constraint.is_null() {
                        diags.push(error(
                            "Invalid version constraint",
                            "Version must be specified as a string.",
                            &value_expr.range(),
                        ));
                        continue;
                    }
                    match Constraints::parse(constraint.as_str().unwrap_or_default()) {
                        Ok(required) => {
                            rp.requirement = Some(VersionConstraint {
                                required,
                                decl_range: attr.range.clone(),
                            })
                        }
                        Err(_) => {
                            diags.push(error(
                                "Invalid version constraint",
                                "This string does not use correct version constraint syntax.",
                                &value_expr.range(),
                            ));
                            continue;
                        }
                    }
                }
                "source" => {
                    let (source, d) = value_expr.constant_value();
                    if has_errors(&d) || source.ty() != &Type::String || source.is_null() {
                        diags.push(error(
                            "Invalid source",
                            "Source must be specified as a string.",
                            &value_expr.range(),
                        ));
                        continue;
                    }
                    let text = source.as_str().unwrap_or_default().to_string();
                    match terrace_addrs::Provider::parse_source_str(&text) {
                        Ok(p) => {
                            rp.source = Some(text);
                            rp.source_range = Some(value_expr.range());
                            rp.provider = Some(p);
                        }
                        Err(source_diags) => {
                            let range = value_expr.range();
                            diags.extend(source_diags.into_iter().map(|mut d| {
                                if d.subject.is_none() {
                                    d.subject = Some(range.clone());
                                }
                                d
                            }));
                            continue;
                        }
                    }
                }
                attribute @ ("configuration_aliases" | "configuration_collections") => {
                    let collections = attribute == "configuration_collections";
                    let exprs = match value_expr.list() {
                        Ok(e) => e,
                        Err(d) => {
                            diags.extend(d);
                            continue;
                        }
                    };
                    for e in exprs {
                        let traversal = match e.abs_traversal() {
                            Ok(t) => t,
                            Err(d) => {
                                diags.extend(d);
                                continue;
                            }
                        };
                        match parse_provider_config_compact(&traversal, &e) {
                            Err(_) => diags.push(error(
                                "Invalid configuration_aliases value",
                                "Configuration aliases can only contain references to local provider configuration names in the format of provider.alias",
                                &value_expr.range(),
                            )),
                            Ok(addr) if addr.local_name != name => diags.push(error(
                                "Invalid configuration_aliases value",
                                format!("Configuration aliases must be prefixed with the provider name. Expected {}, but found {}.", quote(&name), quote(&addr.local_name)),
                                &value_expr.range(),
                            )),
                            Ok(addr) if collections && addr.alias.is_none() => diags.push(error(
                                "Invalid configuration_collections value",
                                format!("A collection of provider instances needs an alias of its own, such as {}.by_region: the default configuration {} stands for a single instance.", name, quote(&name)),
                                &value_expr.range(),
                            )),
                            Ok(addr) => {
                                if collections {
                                    rp.collections.push(addr.clone());
                                }
                                rp.aliases.push(addr);
                            }
                        }
                    }
                }
                _ => {
                    diags.push(error(
                        "Invalid required_providers object",
                        "required_providers objects can only contain \"version\", \"source\" and \"configuration_aliases\" attributes. To configure a provider, use a \"provider\" block.",
                        &key_expr.range(),
                    ));
                    break;
                }
            }
        }
        // As in OpenTofu, an error anywhere so far keeps this entry out.
        if has_errors(&diags) {
            continue;
        }
        if rp.provider.is_none() {
            match terrace_addrs::Provider::implied_for_unqualified_type(&rp.name) {
                Ok(p) => rp.provider = Some(p),
                Err(e) => diags.push(error(
                    "Invalid provider name",
                    e.to_string(),
                    &attr.expr.range(),
                )),
            }
        }
        ret.providers.insert(rp.name.clone(), rp);
    }
    (ret, diags)
}

/// OpenTofu's `ParseProviderConfigCompact`: `aws` or `aws.alias`.
pub(crate) fn parse_provider_config_compact(
    traversal: &Traversal,
    expr: &Expression,
) -> Result<LocalProviderConfig, Diagnostics> {
    let file = expr.file();
    let whole = file.range(traversal_span(traversal));
    let mut ret = LocalProviderConfig {
        local_name: traversal.root.clone(),
        alias: None,
        range: whole,
    };
    let Some(first) = traversal.steps.first() else {
        return Ok(ret);
    };
    let mut diags = Vec::new();
    match first {
        TraversalStep::Attr { name, .. } => ret.alias = Some(name.clone()),
        TraversalStep::Index { span, .. } => diags.push(error(
            "Invalid provider configuration address",
            "The provider type name must either stand alone or be followed by an alias name separated with a dot.",
            &file.range(*span),
        )),
    }
    if traversal.steps.len() > 1 {
        let rest = traversal.steps[1].span().to(traversal
            .steps
            .last()
            .map(|s| s.span())
            .unwrap_or_default());
        diags.push(error(
            "Invalid provider configuration address",
            "Extraneous extra operators after provider configuration address.",
            &file.range(rest),
        ));
    }
    if diags.is_empty() {
        Ok(ret)
    } else {
        Err(diags)
    }
}

pub(crate) fn traversal_span(t: &Traversal) -> Span {
    t.root_span
        .to(t.steps.last().map(|s| s.span()).unwrap_or(t.root_span))
}

fn decode_provider_meta_block(block: &Block) -> (Option<ProviderMeta>, Diagnostics) {
    let (attrs, mut diags) = block.body.just_attributes();
    if has_errors(&diags) {
        return (None, diags);
    }
    for attr in &attrs {
        let (_, d) = attr.expr.constant_value();
        diags.extend(d);
    }
    let name = block.labels.first().cloned().unwrap_or_default();
    diags.extend(check_provider_name_normalized(&name, &block.def_range));
    if has_errors(&diags) {
        return (None, diags);
    }
    (
        Some(ProviderMeta {
            provider: name,
            config: block.body.clone(),
            provider_range: block.label_ranges.first().cloned().unwrap_or_default(),
            decl_range: block.def_range.clone(),
        }),
        diags,
    )
}

// ----- provider -----

pub(crate) fn decode_provider_block(block: &Block) -> (Option<Provider>, Diagnostics) {
    let (content, config, mut diags) = block.body.partial_content(&PROVIDER_BLOCK_SCHEMA);
    let name = block.labels.first().cloned().unwrap_or_default();
    let name_diags = check_provider_name_normalized(&name, &block.def_range);
    let invalid = has_errors(&name_diags);
    diags.extend(name_diags);
    if invalid {
        return (None, diags);
    }
    let mut provider = Provider {
        name,
        name_range: block.label_ranges.first().cloned().unwrap_or_default(),
        alias: None,
        alias_range: None,
        version: None,
        config,
        decl_range: block.def_range.clone(),
        for_each: None,
        instances: None,
        for_each_at_walk: false,
    };
    if let Some(attr) = content.attribute("alias") {
        let (alias, d) = decode_string(&attr.expr);
        diags.extend(d);
        let alias = alias.unwrap_or_default();
        provider.alias_range = Some(attr.expr.range());
        if !valid_identifier(&alias) {
            diags.push(Diagnostic::error(
                "Invalid provider configuration alias",
                format!("An alias must be a valid name. {BAD_IDENTIFIER_DETAIL}"),
            ));
        }
        provider.alias = (!alias.is_empty()).then_some(alias);
    }
    if let Some(attr) = content.attribute("version") {
        diags.push(warning(
            "Version constraints inside provider configuration blocks are deprecated",
            format!("Terraform 0.13 and earlier allowed provider version constraints inside the provider configuration block, but that is now deprecated and will be removed in a future version of {PRODUCT}. To silence this warning, move the provider version constraint into the required_providers block."),
            &attr.expr.range(),
        ));
        let (v, d) = decode_version_constraint(attr);
        diags.extend(d);
        provider.version = v;
    }
    if let Some(attr) = content.attribute("for_each") {
        provider.for_each = Some(attr.expr.clone());
    }
    if provider.alias.is_none() {
        if let Some(fe) = &provider.for_each {
            diags.push(error(
                "Alias required when using \"for_each\"",
                "The for_each argument is allowed only for provider configurations with an alias.",
                &fe.range(),
            ));
        }
    }
    for reserved in ["count", "depends_on", "source"] {
        if let Some(attr) = content.attribute(reserved) {
            diags.push(error(
                "Reserved argument name in provider block",
                format!("The provider argument name {} is reserved for use by {PRODUCT} in a future version.", quote(reserved)),
                &attr.name_range,
            ));
        }
    }
    let mut seen_escape: Option<&Block> = None;
    for b in &content.blocks {
        if b.block_type == "_" {
            if let Some(first) = seen_escape {
                diags.push(error(
                    "Duplicate escaping block",
                    format!("The special block type \"_\" can be used to force particular arguments to be interpreted as provider-specific rather than as meta-arguments, but each provider block can have only one such block. The first escaping block was at {}.", first.def_range),
                    &b.def_range,
                ));
                continue;
            }
            seen_escape = Some(b);
            provider.config = Body::merged(vec![provider.config.clone(), b.body.clone()]);
        } else {
            diags.push(error(
                "Reserved block type name in provider block",
                format!(
                    "The block type name {} is reserved for use by {PRODUCT} in a future version.",
                    quote(&b.block_type)
                ),
                &b.type_range,
            ));
        }
    }
    (Some(provider), diags)
}

/// OpenTofu's `decodeProviderConfigRef`: `aws`, `aws.west`,
/// `aws.west["key"]` or `aws.west[expression]`, in native syntax or in a
/// JSON string.
pub(crate) fn decode_provider_config_ref(
    expr: &Expression,
    arg_name: &str,
) -> (Option<ProviderConfigRef>, Diagnostics) {
    let mut diags = Vec::new();
    let expr = match expr.json_as_native() {
        Ok(e) => e,
        Err(d) => return (None, d),
    };
    let mut max_len = 3;
    let mut key_expr: Option<Expression> = None;
    let mut target = expr.clone();
    if let Some((collection, key)) = expr.as_index() {
        max_len = 2;
        key_expr = Some(key);
        target = collection;
    }
    let (target, shim_diags) = target.shim_traversal_in_string(false);
    diags.extend(shim_diags);
    let traversal = target.as_traversal();
    let len = traversal.as_ref().map(|t| t.steps.len() + 1).unwrap_or(0);
    let Some(traversal) = traversal.filter(|_| len <= max_len) else {
        if target.is_native_quoted_string() {
            diags.push(error(
                "Invalid provider configuration reference",
                "A provider configuration reference must not be given in quotes.",
                &target.range(),
            ));
            return (None, diags);
        }
        diags.push(error(
            "Invalid provider configuration reference",
            format!("The {arg_name} argument requires a provider type name, optionally followed by a period and then a configuration alias and optional instance key."),
            &target.range(),
        ));
        return (None, diags);
    };
    let file = target.file().clone();
    let name = traversal.root.clone();
    let name_range = file.range(traversal.root_span);
    diags.extend(check_provider_name_normalized(&name, &name_range));
    if has_errors(&diags) {
        return (None, diags);
    }
    let mut ret = ProviderConfigRef {
        name,
        name_range,
        alias: None,
        alias_range: None,
        key_expression: key_expr,
    };
    let whole = traversal_span(&traversal);
    if let Some(step) = traversal.steps.first() {
        match step {
            TraversalStep::Attr { name, span } => {
                ret.alias = Some(name.clone());
                ret.alias_range = Some(file.range(*span));
            }
            TraversalStep::Index { span, .. } => {
                diags.push(error(
                    "Invalid provider configuration reference",
                    "Provider name must either stand alone or be followed by a period and then a configuration alias.",
                    &file.range(*span),
                ));
                return (Some(ret), diags);
            }
        }
    }
    if let Some(step) = traversal.steps.get(1) {
        match step {
            TraversalStep::Index { key, .. } => {
                // OpenTofu wraps a constant key in an expression whose range
                // is the whole reference.
                ret.key_expression = Some(Expression::native(
                    &file,
                    Expr {
                        kind: key.kind.clone(),
                        span: whole,
                    },
                ));
            }
            TraversalStep::Attr { span, .. } => {
                diags.push(error(
                    "Invalid provider configuration reference",
                    "Provider name must either stand alone or be followed by a period and then a configuration alias.",
                    &file.range(*span),
                ));
                return (Some(ret), diags);
            }
        }
    }
    if ret.alias.is_none() && ret.key_expression.is_some() {
        diags.push(error(
            "Invalid provider configuration reference",
            "Provider assignment requires an alias when specifying an instance key, in the form of provider.name[instance_key]",
            &file.range(whole),
        ));
    }
    (Some(ret), diags)
}

// ----- variables, locals, outputs -----

fn decode_variable_block(block: &Block, is_override: bool) -> (Variable, Diagnostics) {
    let name = block.labels.first().cloned().unwrap_or_default();
    let label_range = block.label_ranges.first().cloned().unwrap_or_default();
    let mut v = Variable {
        name: name.clone(),
        description: None,
        default: None,
        ty: Type::Dynamic,
        constraint_type: Type::Dynamic,
        type_defaults: None,
        type_set: !is_override,
        parsing_mode: VariableParsingMode::Literal,
        validations: Vec::new(),
        sensitive: false,
        sensitive_set: false,
        ephemeral: false,
        ephemeral_set: false,
        nullable: true,
        nullable_set: false,
        is_const: false,
        const_set: false,
        deprecated: None,
        description_set: false,
        decl_range: block.def_range.clone(),
    };
    let (content, mut diags) = block.body.content(&VARIABLE_BLOCK_SCHEMA);
    if !valid_identifier(&name) {
        diags.push(error(
            "Invalid variable name",
            BAD_IDENTIFIER_DETAIL,
            &label_range,
        ));
    }
    let reserved = MODULE_BLOCK_SCHEMA
        .attributes
        .iter()
        .map(|a| a.name.as_str())
        .chain(
            MODULE_BLOCK_SCHEMA
                .blocks
                .iter()
                .map(|b| b.block_type.as_str()),
        );
    for r in reserved {
        if r == name {
            diags.push(error(
                "Invalid variable name",
                format!("The variable name {} is reserved due to its special meaning inside module blocks.", quote(r)),
                &label_range,
            ));
        }
    }
    if let Some(attr) = content.attribute("description") {
        let (d, more) = decode_string(&attr.expr);
        diags.extend(more);
        v.description = d;
        v.description_set = true;
    }
    if let Some(attr) = content.attribute("type") {
        let (ty, defaults, mode, more) = decode_variable_type(&attr.expr);
        diags.extend(more);
        v.ty = ty.without_optional_attributes();
        v.constraint_type = ty;
        v.type_defaults = defaults;
        v.parsing_mode = mode;
        v.type_set = true;
    }
    if let Some(attr) = content.attribute("sensitive") {
        let (b, more) = decode_bool(&attr.expr);
        diags.extend(more);
        v.sensitive = b.unwrap_or(false);
        v.sensitive_set = true;
    }
    if let Some(attr) = content.attribute("deprecated") {
        let (text, more) = decode_string(&attr.expr);
        let failed = has_errors(&more);
        diags.extend(more);
        let text = text.unwrap_or_default();
        if !failed && text.trim().is_empty() {
            diags.push(error(
                "Invalid `deprecated` value",
                "The \"deprecated\" argument must not be empty, and should provide instructions on how to migrate away from usage of this deprecated variable.",
                &label_range,
            ));
        }
        v.deprecated = (!text.is_empty()).then_some(text);
    }
    if let Some(attr) = content.attribute("ephemeral") {
        let (b, more) = decode_bool(&attr.expr);
        diags.extend(more);
        v.ephemeral = b.unwrap_or(false);
        v.ephemeral_set = true;
    }
    if let Some(attr) = content.attribute("nullable") {
        let (b, more) = decode_bool(&attr.expr);
        diags.extend(more);
        v.nullable = b.unwrap_or(false);
        v.nullable_set = true;
    }
    if let Some(attr) = content.attribute("const") {
        let (b, more) = decode_bool(&attr.expr);
        diags.extend(more);
        v.is_const = b.unwrap_or(false);
        v.const_set = true;
    }
    if let Some(attr) = content.attribute("default") {
        let (mut value, more) = attr.expr.constant_value();
        diags.extend(more);
        if v.type_set {
            let given = match &v.type_defaults {
                Some(defaults) if !value.is_null() => apply_defaults(&value, defaults),
                _ => value.clone(),
            };
            match convert(&given, &v.constraint_type) {
                Ok(converted) => value = converted,
                Err(e) => {
                    diags.push(error(
                        "Invalid default value for variable",
                        format!("This default value is not compatible with the variable's type constraint: {e}."),
                        &attr.expr.range(),
                    ));
                    value = Value::dynamic();
                }
            }
            diags.extend(lint_variable_default(&attr.expr, &v.constraint_type));
        }
        if !v.nullable && value.is_null() {
            diags.push(error(
                "Invalid default value for variable",
                "A null default value is not valid when nullable=false.",
                &attr.expr.range(),
            ));
        }
        v.default = Some(value);
    }
    for b in &content.blocks {
        let (rule, more) = decode_variable_validation(&name, b, is_override);
        diags.extend(more);
        v.validations.push(rule);
    }
    (v, diags)
}

/// OpenTofu's `decodeVariableType`.
fn decode_variable_type(
    expr: &Expression,
) -> (
    Type,
    Option<terrace_value::convert::TypeDefaults>,
    VariableParsingMode,
    Diagnostics,
) {
    use VariableParsingMode::{Hcl, Literal};
    if expr.is_native_quoted_string() {
        let (value, diags) = expr.constant_value();
        if has_errors(&diags) {
            return (Type::Dynamic, None, Hcl, diags);
        }
        let text = value.as_str().unwrap_or_default().to_string();
        let quoted = |detail: &str| {
            vec![error(
                "Invalid quoted type constraints",
                format!("Terraform 0.11 and earlier required type constraints to be given in quotes, but that form is now deprecated and will be removed in a future version of {PRODUCT}. {detail}"),
                &expr.range(),
            )]
        };
        return match text.as_str() {
            "string" => (Type::Dynamic, None, Literal, quoted("Remove the quotes around \"string\".")),
            "list" => (Type::Dynamic, None, Hcl, quoted("Remove the quotes around \"list\" and write list(string) instead to explicitly indicate that the list elements are strings.")),
            "map" => (Type::Dynamic, None, Hcl, quoted("Remove the quotes around \"map\" and write map(string) instead to explicitly indicate that the map elements are strings.")),
            _ => (Type::Dynamic, None, Hcl, vec![error(
                "Invalid legacy variable type hint",
                "To provide a full type expression, remove the surrounding quotes and give the type expression directly.",
                &expr.range(),
            )]),
        };
    }
    match expr.as_keyword().as_deref() {
        Some("list") => return (Type::list(Type::Dynamic), None, Hcl, Vec::new()),
        Some("map") => return (Type::map(Type::Dynamic), None, Hcl, Vec::new()),
        _ => {}
    }
    // JSON gives a type as a string holding native syntax.
    let native = match expr.json_value() {
        Some(v) => match terrace_syntax::json_string_as_expression(expr.file(), v) {
            Some((e, d)) if !has_errors(&d) => e,
            Some((_, d)) => return (Type::Dynamic, None, Hcl, d),
            None => expr.evaluable().0.clone(),
        },
        None => expr.evaluable().0.clone(),
    };
    let file = expr.file().clone();
    let eval_constant = |e: &Expr| Expression::native(&file, e.clone()).constant_value();
    let (ty, defaults, diags) = type_constraint_with_defaults(&native, &file, &eval_constant);
    if has_errors(&diags) {
        return (Type::Dynamic, None, Hcl, diags);
    }
    let mode = if ty.is_primitive() { Literal } else { Hcl };
    (ty, defaults, mode, diags)
}

/// OpenTofu's `lintVariableDefaultValue`: object attributes in a default
/// that the type constraint discards.
fn lint_variable_default(expr: &Expression, ty: &Type) -> Diagnostics {
    let Some(native) = expr.native_expr() else {
        return Vec::new();
    };
    if ty.is_primitive() || ty.is_dynamic() {
        return Vec::new();
    }
    let mut out = Vec::new();
    lint_discarded_attrs(expr, native, ty, &mut Vec::new(), &mut out);
    out
}

fn lint_discarded_attrs(
    root: &Expression,
    e: &Expr,
    ty: &Type,
    path: &mut Vec<String>,
    out: &mut Diagnostics,
) {
    let file = root.file();
    let key_name = |key: &ObjectKey| -> Option<(String, Span)> {
        match key {
            ObjectKey::Bare { name, span } => Some((name.clone(), *span)),
            ObjectKey::Expr(k) => {
                let (v, d) = Expression::native(file, k.clone()).constant_value();
                if has_errors(&d) || v.is_null() || !v.is_known() {
                    return None;
                }
                let v = convert(&v.unmark_deep().0, &Type::String).ok()?;
                v.as_str().map(|s| (s.to_string(), k.span))
            }
        }
    };
    match ty {
        Type::Object(obj) => {
            let ExprKind::Object(items) = &e.kind else {
                return;
            };
            for item in items {
                let Some((name, span)) = key_name(&item.key) else {
                    continue;
                };
                match obj.attributes.get(&name) {
                    None => {
                        let attrs: Vec<&str> = obj.attributes.keys().map(String::as_str).collect();
                        let suggestion =
                            terrace_lang::eval::suggest_name(&name, attrs.iter().copied())
                                .map(|s| {
                                    format!(" Did you mean to set attribute {} instead?", quote(s))
                                })
                                .unwrap_or_default();
                        let noun = if path.is_empty() {
                            "The object type for this variable".to_string()
                        } else {
                            format!("The object type for {}", path.concat())
                        };
                        out.push(
                            Diagnostic::warning(
                                "Object attribute is ignored",
                                format!("{noun} does not include an attribute named {}, so this definition is unused.{suggestion}", quote(&name)),
                            )
                            .with_subject(file.range(span))
                            .with_context(file.range(e.span)),
                        );
                    }
                    Some(attr_ty) => {
                        path.push(format!(".{name}"));
                        lint_discarded_attrs(root, &item.value, attr_ty, path, out);
                        path.pop();
                    }
                }
            }
        }
        Type::Map(elem) => match &e.kind {
            ExprKind::Object(items) => {
                for item in items {
                    let Some((name, _)) = key_name(&item.key) else {
                        continue;
                    };
                    path.push(format!("[{}]", quote(&name)));
                    lint_discarded_attrs(root, &item.value, elem, path, out);
                    path.pop();
                }
            }
            ExprKind::For(f) if f.key_expr.is_some() => {
                path.push("[(not yet known)]".into());
                lint_discarded_attrs(root, &f.value_expr, elem, path, out);
                path.pop();
            }
            _ => {}
        },
        Type::List(elem) | Type::Set(elem) => match &e.kind {
            ExprKind::Tuple(items) => {
                for (i, item) in items.iter().enumerate() {
                    path.push(format!("[{i}]"));
                    lint_discarded_attrs(root, item, elem, path, out);
                    path.pop();
                }
            }
            ExprKind::For(f) if f.key_expr.is_none() => {
                path.push("[(not yet known)]".into());
                lint_discarded_attrs(root, &f.value_expr, elem, path, out);
                path.pop();
            }
            _ => {}
        },
        Type::Tuple(elems) => {
            if let ExprKind::Tuple(items) = &e.kind {
                if items.len() == elems.len() {
                    for (i, (item, ety)) in items.iter().zip(elems.iter()).enumerate() {
                        path.push(format!("[{i}]"));
                        lint_discarded_attrs(root, item, ety, path, out);
                        path.pop();
                    }
                }
            }
        }
        _ => {}
    }
}

fn decode_variable_validation(
    var_name: &str,
    block: &Block,
    is_override: bool,
) -> (CheckRule, Diagnostics) {
    let (rule, mut diags) = decode_check_rule_block(block, is_override);
    if let Some(condition) = &rule.condition {
        let good = refers_to_variable(condition, var_name);
        if !good {
            diags.push(error(
                "Invalid variable validation condition",
                format!("The condition for variable {} must refer to var.{var_name} in order to test incoming values.", quote(var_name)),
                &condition.range(),
            ));
        }
    }
    (rule, diags)
}

fn refers_to_variable(expr: &Expression, name: &str) -> bool {
    expr.variables().iter().any(|t| {
        let (r, d) = terrace_lang::references::parse_ref(t, expr.file());
        !has_errors(&d)
            && matches!(r, Some(r) if r.subject == Subject::InputVariable(name.to_string()))
    })
}

/// OpenTofu's `decodeCheckRuleBlock`.
fn decode_check_rule_block(block: &Block, is_override: bool) -> (CheckRule, Diagnostics) {
    let mut rule = CheckRule {
        condition: None,
        error_message: None,
        decl_range: block.def_range.clone(),
    };
    if is_override {
        return (
            rule,
            vec![error(
                format!("Can't override {} blocks", block.block_type),
                format!(
                    "Override files cannot override {} blocks.",
                    quote(&block.block_type)
                ),
                &block.def_range,
            )],
        );
    }
    let (content, mut diags) = block.body.content(&CHECK_RULE_SCHEMA);
    if let Some(attr) = content.attribute("condition") {
        if attr.expr.variables().is_empty() {
            diags.push(error(
                format!("Invalid {} expression", block.block_type),
                "The condition expression must refer to at least one object from elsewhere in the configuration, or else its result would not be checking anything.",
                &attr.expr.range(),
            ));
        }
        rule.condition = Some(attr.expr.clone());
    }
    if let Some(attr) = content.attribute("error_message") {
        rule.error_message = Some(attr.expr.clone());
    }
    (rule, diags)
}

/// OpenTofu's `CheckRule.validateSelfReferences`.
fn validate_self_references(rule: &CheckRule, check_type: &str, addr: &Resource) -> Diagnostics {
    let mut diags = Vec::new();
    for expr in [&rule.condition, &rule.error_message].into_iter().flatten() {
        let (expr_plain, _) = expr.evaluable();
        let (refs, _) = references(expr_plain, expr.file());
        for r in refs {
            let resource = match &r.subject {
                Subject::Resource(res) | Subject::ResourceInstance { resource: res, .. } => res,
                _ => continue,
            };
            if resource.mode == addr.mode
                && resource.type_name == addr.type_name
                && resource.name == addr.name
            {
                diags.push(error(
                    format!("Invalid reference in {check_type}"),
                    format!(
                        "Configuration for {} may not refer to itself.",
                        addr.address()
                    ),
                    &expr.range(),
                ));
                break;
            }
        }
    }
    diags
}

fn decode_locals_block(block: &Block) -> (Vec<Local>, Diagnostics) {
    let (attrs, mut diags) = block.body.just_attributes();
    let mut locals = Vec::with_capacity(attrs.len());
    for attr in attrs {
        if !valid_identifier(&attr.name) {
            diags.push(error(
                "Invalid local value name",
                BAD_IDENTIFIER_DETAIL,
                &attr.name_range,
            ));
        }
        locals.push(Local {
            name: attr.name.clone(),
            expr: attr.expr.clone(),
            decl_range: attr.range.clone(),
        });
    }
    (locals, diags)
}

fn decode_output_block(block: &Block, is_override: bool) -> (Output, Diagnostics) {
    let name = block.labels.first().cloned().unwrap_or_default();
    let mut o = Output {
        name: name.clone(),
        description: None,
        description_set: false,
        expr: None,
        depends_on: Vec::new(),
        sensitive: false,
        sensitive_set: false,
        ephemeral: false,
        ephemeral_set: false,
        deprecated: None,
        preconditions: Vec::new(),
        decl_range: block.def_range.clone(),
    };
    let schema = if is_override {
        OUTPUT_BLOCK_SCHEMA.for_overrides()
    } else {
        OUTPUT_BLOCK_SCHEMA.clone()
    };
    let (content, mut diags) = block.body.content(&schema);
    if !valid_identifier(&name) {
        diags.push(error(
            "Invalid output name",
            BAD_IDENTIFIER_DETAIL,
            &block.label_ranges.first().cloned().unwrap_or_default(),
        ));
    }
    if let Some(attr) = content.attribute("description") {
        let (d, more) = decode_string(&attr.expr);
        diags.extend(more);
        o.description = d;
        o.description_set = true;
    }
    if let Some(attr) = content.attribute("value") {
        o.expr = Some(attr.expr.clone());
    }
    if let Some(attr) = content.attribute("sensitive") {
        let (b, more) = decode_bool(&attr.expr);
        diags.extend(more);
        o.sensitive = b.unwrap_or(false);
        o.sensitive_set = true;
    }
    if let Some(attr) = content.attribute("deprecated") {
        let (text, more) = decode_string(&attr.expr);
        diags.extend(more);
        let text = text.unwrap_or_default();
        if !has_errors(&diags) && text.trim().is_empty() {
            diags.push(error(
                "Invalid `deprecated` attribute",
                "The \"deprecated\" argument must not be empty, and should provide instructions on how to migrate away from usage of this deprecated output value.",
                &attr.expr.range(),
            ));
        }
        o.deprecated = (!text.is_empty()).then_some(text);
    }
    if let Some(attr) = content.attribute("ephemeral") {
        let (b, more) = decode_bool(&attr.expr);
        diags.extend(more);
        o.ephemeral = b.unwrap_or(false);
        o.ephemeral_set = true;
    }
    if let Some(attr) = content.attribute("depends_on") {
        let (deps, more) = decode_depends_on(attr);
        diags.extend(more);
        o.depends_on.extend(deps);
    }
    for b in &content.blocks {
        match b.block_type.as_str() {
            "precondition" => {
                let (rule, more) = decode_check_rule_block(b, is_override);
                diags.extend(more);
                o.preconditions.push(rule);
            }
            _ => diags.push(error(
                "Postconditions are not allowed",
                "Output values can only have preconditions, not postconditions.",
                &b.type_range,
            )),
        }
    }
    (o, diags)
}

/// OpenTofu's `decodeDependsOn`.
fn decode_depends_on(attr: &Attribute) -> (Vec<StaticTraversal>, Diagnostics) {
    let mut out = Vec::new();
    let (exprs, mut diags) = match attr.expr.list() {
        Ok(e) => (e, Vec::new()),
        Err(d) => (Vec::new(), d),
    };
    for e in exprs {
        let (e, shim) = e.shim_traversal_in_string(false);
        diags.extend(shim);
        match e.abs_traversal() {
            Ok(t) => out.push(StaticTraversal {
                traversal: t,
                file: e.file().clone(),
            }),
            Err(d) => diags.extend(d),
        }
    }
    (out, diags)
}

// ----- resources -----

fn complain_repetition(
    count: Option<&SourceRange>,
    enabled: Option<&SourceRange>,
    for_each: Option<&SourceRange>,
    noun: &str,
    verb: &str,
) -> Option<Diagnostic> {
    let mut ranges = Vec::new();
    let mut names = Vec::new();
    for (r, n) in [
        (count, "\"count\""),
        (enabled, "\"enabled\""),
        (for_each, "\"for_each\""),
    ] {
        if let Some(r) = r {
            ranges.push(r.clone());
            names.push(n.to_string());
        }
    }
    if names.len() < 2 {
        return None;
    }
    ranges.sort_by_key(|r| r.start.byte);
    let msg = if names.len() >= 3 {
        let last = names.len() - 1;
        names[last] = format!("and {}", names[last]);
        names.join(", ")
    } else {
        names.join(" and ")
    };
    let subject = range_between(&ranges[0], &ranges[ranges.len() - 1]);
    Some(error(
        format!("Invalid combination of {msg}"),
        format!("The {msg} meta-arguments are mutually-exclusive. Only one {verb} be used to be explicit about the number of {noun} to be created."),
        &subject,
    ))
}

fn new_resource(block: &Block, mode: ResourceMode, config: Body) -> Resource {
    Resource {
        mode,
        type_name: block.labels.first().cloned().unwrap_or_default(),
        name: block.labels.get(1).cloned().unwrap_or_default(),
        config,
        count: None,
        for_each: None,
        enabled: None,
        provider_config_ref: None,
        provider: None,
        preconditions: Vec::new(),
        postconditions: Vec::new(),
        depends_on: Vec::new(),
        triggers_replacement: Vec::new(),
        managed: None,
        container: None,
        decl_range: block.def_range.clone(),
        type_range: block.label_ranges.first().cloned().unwrap_or_default(),
        generated_for_import: false,
    }
}

fn check_resource_names(
    block: &Block,
    type_summary: &str,
    name_summary: &str,
    diags: &mut Diagnostics,
) {
    if !valid_identifier(block.labels.first().map(String::as_str).unwrap_or("")) {
        diags.push(error(
            type_summary,
            BAD_IDENTIFIER_DETAIL,
            &block.label_ranges.first().cloned().unwrap_or_default(),
        ));
    }
    if !valid_identifier(block.labels.get(1).map(String::as_str).unwrap_or("")) {
        diags.push(error(
            name_summary,
            BAD_IDENTIFIER_DETAIL,
            &block.label_ranges.get(1).cloned().unwrap_or_default(),
        ));
    }
}

fn decode_lifecycle_rules(
    lc: &BodyContent,
    r: &mut Resource,
    is_override: bool,
    diags: &mut Diagnostics,
) {
    for b in &lc.blocks {
        let (rule, more) = decode_check_rule_block(b, is_override);
        diags.extend(more);
        diags.extend(validate_self_references(&rule, &b.block_type, r));
        if b.block_type == "precondition" {
            r.preconditions.push(rule);
        } else {
            r.postconditions.push(rule);
        }
    }
}

fn escape_block_duplicate(kind: &str, noun: &str, first: &Block, b: &Block) -> Diagnostic {
    error(
        "Duplicate escaping block",
        format!("The special block type \"_\" can be used to force particular arguments to be interpreted as {kind} rather than as meta-arguments, but each {noun} block can have only one such block. The first escaping block was at {}.", first.def_range),
        &b.def_range,
    )
}

fn decode_resource_block(block: &Block, is_override: bool) -> (Resource, Diagnostics) {
    let (content, remain, mut diags) = block.body.partial_content(&RESOURCE_BLOCK_SCHEMA);
    let mut r = new_resource(block, ResourceMode::Managed, remain);
    let mut managed = ManagedResource::default();
    check_resource_names(
        block,
        "Invalid resource type name",
        "Invalid resource name",
        &mut diags,
    );
    let (mut count_rng, mut for_each_rng, mut enabled_rng) = (None, None, None);
    if let Some(attr) = content.attribute("count") {
        r.count = Some(attr.expr.clone());
        count_rng = Some(attr.name_range.clone());
    }
    if let Some(attr) = content.attribute("for_each") {
        r.for_each = Some(attr.expr.clone());
        for_each_rng = Some(attr.name_range.clone());
    }
    if let Some(attr) = content.attribute("provider") {
        let (p, more) = decode_provider_config_ref(&attr.expr, "provider");
        diags.extend(more);
        r.provider_config_ref = p;
    }
    if let Some(attr) = content.attribute("depends_on") {
        let (deps, more) = decode_depends_on(attr);
        diags.extend(more);
        r.depends_on.extend(deps);
    }
    let mut seen_lifecycle: Option<&Block> = None;
    let mut seen_connection: Option<&Block> = None;
    let mut seen_escape: Option<&Block> = None;
    for b in &content.blocks {
        match b.block_type.as_str() {
            "lifecycle" => {
                if let Some(first) = seen_lifecycle {
                    diags.push(error(
                        "Duplicate lifecycle block",
                        format!(
                            "This resource already has a lifecycle block at {}.",
                            first.def_range
                        ),
                        &b.def_range,
                    ));
                    continue;
                }
                seen_lifecycle = Some(b);
                let (lc, more) = b.body.content(&RESOURCE_LIFECYCLE_SCHEMA);
                diags.extend(more);
                if let Some(attr) = lc.attribute("create_before_destroy") {
                    let (v, more) = decode_bool(&attr.expr);
                    diags.extend(more);
                    managed.create_before_destroy = v.unwrap_or(false);
                    managed.create_before_destroy_set = true;
                }
                if let Some(attr) = lc.attribute("enabled") {
                    r.enabled = Some(attr.expr.clone());
                    enabled_rng = Some(attr.name_range.clone());
                }
                if let Some(attr) = lc.attribute("prevent_destroy") {
                    managed.prevent_destroy = Some(attr.expr.clone());
                }
                if let Some(attr) = lc.attribute("destroy") {
                    managed.destroy = Some(attr.expr.clone());
                }
                if let Some(attr) = lc.attribute("replace_triggered_by") {
                    let (exprs, more) = decode_replace_triggered_by(&attr.expr);
                    diags.extend(more);
                    r.triggers_replacement.extend(exprs);
                }
                if let Some(attr) = lc.attribute("ignore_changes") {
                    decode_ignore_changes(attr, &mut managed, &mut diags);
                }
                decode_lifecycle_rules(&lc, &mut r, is_override, &mut diags);
            }
            "connection" => {
                if let Some(first) = seen_connection {
                    diags.push(error(
                        "Duplicate connection block",
                        format!(
                            "This resource already has a connection block at {}.",
                            first.def_range
                        ),
                        &b.def_range,
                    ));
                    continue;
                }
                seen_connection = Some(b);
                managed.connection = Some(Connection {
                    config: b.body.clone(),
                    decl_range: b.def_range.clone(),
                });
            }
            "provisioner" => {
                let (p, more) = decode_provisioner_block(b);
                diags.extend(more);
                managed.provisioners.extend(p);
            }
            "_" => {
                if let Some(first) = seen_escape {
                    diags.push(escape_block_duplicate(
                        "resource-type-specific",
                        "resource",
                        first,
                        b,
                    ));
                    continue;
                }
                seen_escape = Some(b);
                r.config = Body::merged(vec![r.config.clone(), b.body.clone()]);
            }
            _ => diags.push(error(
                "Reserved block type name in resource block",
                format!(
                    "The block type name {} is reserved for use by {PRODUCT} in a future version.",
                    quote(&b.block_type)
                ),
                &b.type_range,
            )),
        }
    }
    if let Some(d) = complain_repetition(
        count_rng.as_ref(),
        enabled_rng.as_ref(),
        for_each_rng.as_ref(),
        "resources",
        "may",
    ) {
        diags.push(d);
    }
    if let Some(conn) = &managed.connection {
        if managed
            .provisioners
            .iter()
            .any(|p| p.when == ProvisionerWhen::Destroy)
        {
            diags.extend(only_self_refs(&conn.config));
        }
    }
    r.managed = Some(managed);
    (r, diags)
}

fn decode_ignore_changes(attr: &Attribute, managed: &mut ManagedResource, diags: &mut Diagnostics) {
    if attr.expr.as_keyword().as_deref() == Some("all") {
        managed.ignore_all_changes = true;
        return;
    }
    let exprs = match attr.expr.list() {
        Ok(e) => e,
        Err(d) => {
            diags.extend(d);
            Vec::new()
        }
    };
    let mut ignore_all_range: Option<SourceRange> = None;
    for e in exprs {
        let (value, value_diags) = e.constant_value();
        if !has_errors(&value_diags) && value.as_str() == Some("*") {
            managed.ignore_all_changes = true;
            ignore_all_range = Some(e.range());
            diags.push(error(
                "Invalid ignore_changes wildcard",
                "The [\"*\"] form of ignore_changes wildcard is was deprecated and is now invalid. Use \"ignore_changes = all\" to ignore changes to all attributes.",
                &attr.expr.range(),
            ));
            continue;
        }
        let (e, shim) = e.shim_traversal_in_string(false);
        diags.extend(shim);
        match e.abs_traversal() {
            Ok(t) => managed.ignore_changes.push(StaticTraversal {
                traversal: t,
                file: e.file().clone(),
            }),
            Err(d) => diags.extend(d),
        }
    }
    if managed.ignore_all_changes && !managed.ignore_changes.is_empty() {
        let mut d = Diagnostic::error(
            "Invalid ignore_changes ruleset",
            "Cannot mix wildcard string \"*\" with non-wildcard references.",
        )
        .with_context(attr.expr.range());
        d.subject = ignore_all_range;
        diags.push(d);
    }
}

/// OpenTofu's `decodeReplaceTriggeredBy`.
fn decode_replace_triggered_by(expr: &Expression) -> (Vec<Expression>, Diagnostics) {
    let (exprs, mut diags) = match expr.list() {
        Ok(e) => (e, Vec::new()),
        Err(d) => (Vec::new(), d),
    };
    let mut out = Vec::with_capacity(exprs.len());
    for e in exprs {
        let e = if e.is_json() {
            match e.json_as_native() {
                Ok(n) => n,
                Err(d) => {
                    diags.extend(d);
                    out.push(e);
                    continue;
                }
            }
        } else {
            e
        };
        out.push(e.clone());
        let (plain, _) = e.evaluable();
        let (refs, ref_diags) = references(plain, e.file());
        let failed = has_errors(&ref_diags);
        for d in ref_diags {
            let mut d = d;
            d.subject = Some(e.range());
            d.context = None;
            diags.push(d);
        }
        if failed {
            continue;
        }
        let mut resource_count = 0;
        for r in &refs {
            match &r.subject {
                Subject::Resource(_) | Subject::ResourceInstance { .. } => resource_count += 1,
                Subject::ForEachAttr(name) => {
                    if name != "key" {
                        diags.push(error(
                            "Invalid each reference in replace_triggered_by expression",
                            "Only each.key may be used in replace_triggered_by.",
                            &e.range(),
                        ));
                    }
                }
                Subject::CountAttr(name) => {
                    if name != "index" {
                        diags.push(error(
                            "Invalid count reference in replace_triggered_by expression",
                            "Only count.index may be used in replace_triggered_by.",
                            &e.range(),
                        ));
                    }
                }
                _ => diags.push(error(
                    "Invalid reference in replace_triggered_by expression",
                    "Only resources, count.index, and each.key may be used in replace_triggered_by.",
                    &e.range(),
                )),
            }
        }
        match resource_count {
            0 => diags.push(error(
                "Invalid replace_triggered_by expression",
                "Missing resource reference in replace_triggered_by expression.",
                &e.range(),
            )),
            1 => {}
            _ => diags.push(error(
                "Invalid replace_triggered_by expression",
                "Multiple resource references in replace_triggered_by expression.",
                &e.range(),
            )),
        }
    }
    (out, diags)
}

fn decode_data_block(block: &Block, is_override: bool, nested: bool) -> (Resource, Diagnostics) {
    let (content, remain, mut diags) = block.body.partial_content(&DATA_BLOCK_SCHEMA);
    let mut r = new_resource(block, ResourceMode::Data, remain);
    check_resource_names(
        block,
        "Invalid data source name",
        "Invalid data resource name",
        &mut diags,
    );
    let (mut count_rng, mut for_each_rng, mut enabled_rng) = (None, None, None);
    for (arg, is_count) in [("count", true), ("for_each", false)] {
        let Some(attr) = content.attribute(arg) else {
            continue;
        };
        if nested {
            diags.push(error(
                format!("Invalid {} attribute", quote(arg)),
                format!(
                    "The {} meta-argument is not supported within nested data blocks.",
                    quote(arg)
                ),
                &attr.name_range,
            ));
            continue;
        }
        if is_count {
            r.count = Some(attr.expr.clone());
            count_rng = Some(attr.name_range.clone());
        } else {
            r.for_each = Some(attr.expr.clone());
            for_each_rng = Some(attr.name_range.clone());
        }
    }
    if let Some(attr) = content.attribute("provider") {
        let (p, more) = decode_provider_config_ref(&attr.expr, "provider");
        diags.extend(more);
        r.provider_config_ref = p;
    }
    if let Some(attr) = content.attribute("depends_on") {
        let (deps, more) = decode_depends_on(attr);
        diags.extend(more);
        r.depends_on.extend(deps);
    }
    let mut seen_escape: Option<&Block> = None;
    let mut seen_lifecycle: Option<&Block> = None;
    for b in &content.blocks {
        match b.block_type.as_str() {
            "_" => {
                if let Some(first) = seen_escape {
                    diags.push(escape_block_duplicate(
                        "resource-type-specific",
                        "data",
                        first,
                        b,
                    ));
                    continue;
                }
                seen_escape = Some(b);
                r.config = Body::merged(vec![r.config.clone(), b.body.clone()]);
            }
            "lifecycle" => {
                if nested {
                    diags.push(error(
                        "Invalid lifecycle block",
                        "Nested data blocks do not support \"lifecycle\" blocks as the lifecycle is managed by the containing block.",
                        &b.def_range,
                    ));
                }
                if let Some(first) = seen_lifecycle {
                    diags.push(error(
                        "Duplicate lifecycle block",
                        format!(
                            "This resource already has a lifecycle block at {}.",
                            first.def_range
                        ),
                        &b.def_range,
                    ));
                    continue;
                }
                seen_lifecycle = Some(b);
                let (lc, more) = b.body.content(&RESOURCE_LIFECYCLE_SCHEMA);
                diags.extend(more);
                for attr in &lc.attributes {
                    if attr.name == "enabled" {
                        r.enabled = Some(attr.expr.clone());
                        enabled_rng = Some(attr.name_range.clone());
                        continue;
                    }
                    diags.push(error(
                        "Invalid data resource lifecycle argument",
                        format!("The lifecycle argument {} is defined only for managed resources (\"resource\" blocks), and is not valid for data resources.", quote(&attr.name)),
                        &attr.name_range,
                    ));
                }
                decode_lifecycle_rules(&lc, &mut r, is_override, &mut diags);
            }
            _ => diags.push(error(
                "Reserved block type name in data block",
                format!(
                    "The block type name {} is reserved for use by {PRODUCT} in a future version.",
                    quote(&b.block_type)
                ),
                &b.type_range,
            )),
        }
    }
    if let Some(d) = complain_repetition(
        count_rng.as_ref(),
        enabled_rng.as_ref(),
        for_each_rng.as_ref(),
        "data sources",
        "may",
    ) {
        diags.push(d);
    }
    (r, diags)
}

fn decode_ephemeral_block(block: &Block, is_override: bool) -> (Resource, Diagnostics) {
    let (content, remain, mut diags) = block.body.partial_content(&RESOURCE_BLOCK_SCHEMA);
    let mut r = new_resource(block, ResourceMode::Ephemeral, remain);
    check_resource_names(
        block,
        "Invalid ephemeral resource type name",
        "Invalid ephemeral resource name",
        &mut diags,
    );
    let (mut count_rng, mut for_each_rng, mut enabled_rng) = (None, None, None);
    if let Some(attr) = content.attribute("count") {
        r.count = Some(attr.expr.clone());
        count_rng = Some(attr.name_range.clone());
    }
    if let Some(attr) = content.attribute("for_each") {
        r.for_each = Some(attr.expr.clone());
        for_each_rng = Some(attr.name_range.clone());
    }
    if let Some(attr) = content.attribute("provider") {
        let (p, more) = decode_provider_config_ref(&attr.expr, "provider");
        diags.extend(more);
        r.provider_config_ref = p;
    }
    if let Some(attr) = content.attribute("depends_on") {
        let (deps, more) = decode_depends_on(attr);
        diags.extend(more);
        r.depends_on.extend(deps);
    }
    let bad_lifecycle_arg = |field: &str, subject: &SourceRange| {
        error(
            "Invalid lifecycle configuration for ephemeral resource",
            format!("The lifecycle argument {} cannot be used in ephemeral resources. This is meant to be used strictly in \"resource\" blocks.", quote(field)),
            subject,
        )
    };
    let bad_block = |field: &str, subject: &SourceRange| {
        error(
            "Invalid configuration block for ephemeral resource",
            format!("The block type {} cannot be used in ephemeral resources. This is meant to be used strictly in \"resource\" blocks.", quote(field)),
            subject,
        )
    };
    let mut seen_lifecycle: Option<&Block> = None;
    let mut seen_escape: Option<&Block> = None;
    for b in &content.blocks {
        match b.block_type.as_str() {
            "lifecycle" => {
                if let Some(first) = seen_lifecycle {
                    diags.push(error(
                        "Duplicate lifecycle block",
                        format!(
                            "This ephemeral resource already has a lifecycle block at {}.",
                            first.def_range
                        ),
                        &b.def_range,
                    ));
                    continue;
                }
                seen_lifecycle = Some(b);
                let (lc, more) = b.body.content(&RESOURCE_LIFECYCLE_SCHEMA);
                diags.extend(more);
                for field in [
                    "create_before_destroy",
                    "destroy",
                    "prevent_destroy",
                    "replace_triggered_by",
                    "ignore_changes",
                ] {
                    if lc.attribute(field).is_some() {
                        diags.push(bad_lifecycle_arg(field, &b.def_range));
                    }
                }
                if let Some(attr) = lc.attribute("enabled") {
                    r.enabled = Some(attr.expr.clone());
                    enabled_rng = Some(attr.name_range.clone());
                }
                decode_lifecycle_rules(&lc, &mut r, is_override, &mut diags);
            }
            "connection" | "provisioner" => diags.push(bad_block(&b.block_type, &b.def_range)),
            "_" => {
                if let Some(first) = seen_escape {
                    diags.push(escape_block_duplicate(
                        "resource-type-specific",
                        "resource",
                        first,
                        b,
                    ));
                    continue;
                }
                seen_escape = Some(b);
                r.config = Body::merged(vec![r.config.clone(), b.body.clone()]);
            }
            _ => diags.push(error(
                "Reserved block type name in ephemeral block",
                format!(
                    "The block type name {} is reserved for use by {PRODUCT} in a future version.",
                    quote(&b.block_type)
                ),
                &b.type_range,
            )),
        }
    }
    if let Some(d) = complain_repetition(
        count_rng.as_ref(),
        enabled_rng.as_ref(),
        for_each_rng.as_ref(),
        "ephemeral resources",
        "may",
    ) {
        diags.push(d);
    }
    (r, diags)
}

// ----- provisioners -----

fn decode_provisioner_block(block: &Block) -> (Option<Provisioner>, Diagnostics) {
    let type_name = block.labels.first().cloned().unwrap_or_default();
    let type_range = block.label_ranges.first().cloned().unwrap_or_default();
    let (content, config, mut diags) = block.body.partial_content(&PROVISIONER_BLOCK_SCHEMA);
    if matches!(
        type_name.as_str(),
        "chef" | "habitat" | "puppet" | "salt-masterless"
    ) {
        diags.push(error(
            format!("The \"{type_name}\" provisioner has been removed"),
            format!("The \"{type_name}\" provisioner is deprecated and has been removed from {PRODUCT}."),
            &type_range,
        ));
        return (None, diags);
    }
    let mut pv = Provisioner {
        type_name,
        config,
        connection: None,
        when: ProvisionerWhen::Create,
        on_failure: ProvisionerOnFailure::Fail,
        decl_range: block.def_range.clone(),
        type_range,
    };
    if let Some(attr) = content.attribute("when") {
        let (e, shim) = attr.expr.shim_traversal_in_string(true);
        diags.extend(shim);
        match e.as_keyword().as_deref() {
            Some("create") => pv.when = ProvisionerWhen::Create,
            Some("destroy") => pv.when = ProvisionerWhen::Destroy,
            _ => diags.push(error(
                "Invalid \"when\" keyword",
                "The \"when\" argument requires one of the following keywords: create or destroy.",
                &e.range(),
            )),
        }
    }
    if pv.when == ProvisionerWhen::Destroy {
        diags.extend(only_self_refs(&pv.config));
    }
    if let Some(attr) = content.attribute("on_failure") {
        let (e, shim) = attr.expr.shim_traversal_in_string(true);
        diags.extend(shim);
        match e.as_keyword().as_deref() {
            Some("continue") => pv.on_failure = ProvisionerOnFailure::Continue,
            Some("fail") => pv.on_failure = ProvisionerOnFailure::Fail,
            _ => diags.push(error(
                "Invalid \"on_failure\" keyword",
                "The \"on_failure\" argument requires one of the following keywords: continue or fail.",
                &attr.expr.range(),
            )),
        }
    }
    let mut seen_connection: Option<&Block> = None;
    let mut seen_escape: Option<&Block> = None;
    for b in &content.blocks {
        match b.block_type.as_str() {
            "_" => {
                if let Some(first) = seen_escape {
                    diags.push(escape_block_duplicate(
                        "provisioner-type-specific",
                        "provisioner",
                        first,
                        b,
                    ));
                    continue;
                }
                seen_escape = Some(b);
                pv.config = Body::merged(vec![pv.config.clone(), b.body.clone()]);
            }
            "connection" => {
                if let Some(first) = seen_connection {
                    diags.push(error(
                        "Duplicate connection block",
                        format!(
                            "This provisioner already has a connection block at {}.",
                            first.def_range
                        ),
                        &b.def_range,
                    ));
                    continue;
                }
                seen_connection = Some(b);
                if pv.when == ProvisionerWhen::Destroy {
                    diags.extend(only_self_refs(&b.body));
                }
                pv.connection = Some(Connection {
                    config: b.body.clone(),
                    decl_range: b.def_range.clone(),
                });
            }
            _ => diags.push(error(
                "Reserved block type name in provisioner block",
                format!(
                    "The block type name {} is reserved for use by {PRODUCT} in a future version.",
                    quote(&b.block_type)
                ),
                &b.type_range,
            )),
        }
    }
    (Some(pv), diags)
}

/// OpenTofu's `onlySelfRefs`: destroy-time provisioners may refer only to
/// `self`, `count.index`, `each.key`, `path` and `terraform`.
fn only_self_refs(body: &Body) -> Diagnostics {
    let (attrs, _) = body.just_attributes();
    let mut diags = Vec::new();
    for attr in attrs {
        for t in attr.expr.variables() {
            let valid = match t.root.as_str() {
                "self" | "path" | "terraform" | "tofu" => true,
                "count" => {
                    matches!(t.steps.as_slice(), [TraversalStep::Attr { name, .. }] if name == "index")
                }
                "each" => {
                    matches!(t.steps.as_slice(), [TraversalStep::Attr { name, .. }] if name == "key")
                }
                _ => false,
            };
            if !valid {
                diags.push(error(
                    "Invalid reference from destroy provisioner",
                    "Destroy-time provisioners and their connection configurations may only reference attributes of the related resource, via 'self', 'count.index', or 'each.key'.\n\nReferences to other resources during the destroy phase can cause dependency cycles and interact poorly with create_before_destroy.",
                    &attr.expr.range(),
                ));
            }
        }
    }
    diags
}

// ----- checks -----

fn decode_check_block(block: &Block, is_override: bool) -> (Check, Diagnostics) {
    let name = block.labels.first().cloned().unwrap_or_default();
    let mut check = Check {
        name: name.clone(),
        data_resource: None,
        asserts: Vec::new(),
        decl_range: block.def_range.clone(),
    };
    if is_override {
        return (
            check,
            vec![error(
                "Can't override check blocks",
                "Override files cannot override check blocks.",
                &block.def_range,
            )],
        );
    }
    let (content, mut diags) = block.body.content(&CHECK_BLOCK_SCHEMA);
    if !valid_identifier(&name) {
        diags.push(error(
            "Invalid check block name",
            BAD_IDENTIFIER_DETAIL,
            &block.label_ranges.first().cloned().unwrap_or_default(),
        ));
    }
    for b in &content.blocks {
        match b.block_type.as_str() {
            "data" => {
                if let Some(existing) = &check.data_resource {
                    diags.push(error(
                        "Multiple data resource blocks",
                        format!(
                            "This check block already has a data resource defined at {}.",
                            existing.decl_range
                        ),
                        &b.def_range,
                    ));
                    continue;
                }
                let (mut data, more) = decode_data_block(b, is_override, true);
                let failed = has_errors(&more);
                diags.extend(more);
                if !failed {
                    data.container = Some(name.clone());
                    check.data_resource = Some(data);
                }
            }
            _ => {
                let (rule, more) = decode_check_rule_block(b, is_override);
                let failed = has_errors(&more);
                diags.extend(more);
                if !failed {
                    check.asserts.push(rule);
                }
            }
        }
    }
    if check.asserts.is_empty() {
        diags.push(error(
            "Zero assert blocks",
            "Check blocks must have at least one assert block.",
            &check.decl_range,
        ));
    }
    (check, diags)
}

// ----- module calls -----

fn decode_module_block(block: &Block, is_override: bool) -> (ModuleCall, Diagnostics) {
    let name = block.labels.first().cloned().unwrap_or_default();
    let schema = if is_override {
        MODULE_BLOCK_SCHEMA.for_overrides()
    } else {
        MODULE_BLOCK_SCHEMA.clone()
    };
    let (content, remain, mut diags) = block.body.partial_content(&schema);
    let name_range = block.label_ranges.first().cloned().unwrap_or_default();
    let mut mc = ModuleCall {
        name: name.clone(),
        source: None,
        source_addr_raw: None,
        source_addr: None,
        source_set: false,
        config: remain,
        version_attr: None,
        version: None,
        count: None,
        for_each: None,
        enabled: None,
        providers: Vec::new(),
        depends_on: Vec::new(),
        decl_range: block.def_range.clone(),
        name_range: name_range.clone(),
    };
    if !valid_identifier(&name) {
        diags.push(error(
            "Invalid module instance name",
            BAD_IDENTIFIER_DETAIL,
            &name_range,
        ));
    }
    if let Some(attr) = content.attribute("version") {
        mc.version_attr = Some(attr.clone());
    }
    if let Some(attr) = content.attribute("source") {
        mc.source_set = true;
        mc.source = Some(attr.expr.clone());
    }
    let (mut count_rng, mut for_each_rng, mut enabled_rng) = (None, None, None);
    if let Some(attr) = content.attribute("count") {
        mc.count = Some(attr.expr.clone());
        count_rng = Some(attr.name_range.clone());
    }
    if let Some(attr) = content.attribute("for_each") {
        mc.for_each = Some(attr.expr.clone());
        for_each_rng = Some(attr.name_range.clone());
    }
    if let Some(attr) = content.attribute("depends_on") {
        let (deps, more) = decode_depends_on(attr);
        diags.extend(more);
        mc.depends_on.extend(deps);
    }
    if let Some(attr) = content.attribute("providers") {
        let (p, more) = decode_passed_provider_configs(attr);
        diags.extend(more);
        mc.providers.extend(p);
    }
    let mut seen_lifecycle: Option<&Block> = None;
    let mut seen_escape: Option<&Block> = None;
    for b in &content.blocks {
        match b.block_type.as_str() {
            "lifecycle" => {
                if let Some(first) = seen_lifecycle {
                    diags.push(error(
                        "Duplicate lifecycle block",
                        format!(
                            "This resource already has a lifecycle block at {}.",
                            first.def_range
                        ),
                        &b.def_range,
                    ));
                    continue;
                }
                seen_lifecycle = Some(b);
                let (lc, more) = b.body.content(&MODULE_LIFECYCLE_SCHEMA);
                diags.extend(more);
                if let Some(attr) = lc.attribute("enabled") {
                    mc.enabled = Some(attr.expr.clone());
                    enabled_rng = Some(attr.name_range.clone());
                }
            }
            "_" => {
                if let Some(first) = seen_escape {
                    diags.push(escape_block_duplicate(
                        "module input variables",
                        "module",
                        first,
                        b,
                    ));
                    continue;
                }
                seen_escape = Some(b);
                mc.config = Body::merged(vec![mc.config.clone(), b.body.clone()]);
            }
            _ => diags.push(error(
                "Reserved block type name in module block",
                format!(
                    "The block type name {} is reserved for use by {PRODUCT} in a future version.",
                    quote(&b.block_type)
                ),
                &b.type_range,
            )),
        }
    }
    if let Some(d) = complain_repetition(
        count_rng.as_ref(),
        enabled_rng.as_ref(),
        for_each_rng.as_ref(),
        "module instances",
        "should",
    ) {
        diags.push(d);
    }
    (mc, diags)
}

/// OpenTofu's `decodePassedProviderConfigs`: the `providers` map.
pub(crate) fn decode_passed_provider_configs(
    attr: &Attribute,
) -> (Vec<PassedProviderConfig>, Diagnostics) {
    let mut out: Vec<PassedProviderConfig> = Vec::new();
    let mut seen: Vec<(String, SourceRange)> = Vec::new();
    let (pairs, mut diags) = match attr.expr.map() {
        Ok(p) => (p, Vec::new()),
        Err(d) => (Vec::new(), d),
    };
    for (key, value) in pairs {
        let (k, key_diags) = decode_provider_config_ref(&key, "providers");
        let key_failed = has_errors(&key_diags);
        diags.extend(key_diags);
        let (v, value_diags) = decode_provider_config_ref(&value, "providers");
        let value_failed = has_errors(&value_diags);
        diags.extend(value_diags);
        let (Some(k), Some(v)) = (k, v) else { continue };
        if key_failed || value_failed {
            continue;
        }
        let match_key = k.config_key();
        if let Some((_, prev)) = seen.iter().find(|(m, _)| *m == match_key) {
            diags.push(error(
                "Duplicate provider address",
                format!("A provider configuration was already passed to {match_key} at {prev}. Each child provider configuration can be assigned only once."),
                &value.range(),
            ));
            continue;
        }
        seen.push((match_key, range_between(&key.range(), &value.range())));
        out.push(PassedProviderConfig {
            in_child: k,
            in_parent: v,
        });
    }
    (out, diags)
}

// ----- moved, removed, import -----

/// Whether a traversal is nothing but `module.NAME[key]` steps.
fn is_module_path(t: &Traversal) -> bool {
    let mut names: Vec<(String, bool)> = vec![(t.root.clone(), false)];
    for s in &t.steps {
        match s {
            TraversalStep::Attr { name, .. } => names.push((name.clone(), false)),
            TraversalStep::Index { .. } => match names.last_mut() {
                Some(last) if !last.1 => last.1 = true,
                _ => return false,
            },
        }
    }
    // Pairs of `module` + call name; keys only after call names.
    names.len().is_multiple_of(2)
        && names
            .chunks(2)
            .all(|pair| pair[0].0 == "module" && !pair[0].1)
}

fn parse_move_endpoint(t: &Traversal, expr: &Expression) -> (Option<MoveEndpoint>, Diagnostics) {
    let file = expr.file();
    if is_module_path(t) {
        match terrace_addrs::ModuleInstance::parse(t, file) {
            Ok(m) => (Some(MoveEndpoint::Module(m)), Vec::new()),
            Err(d) => (None, d),
        }
    } else {
        match terrace_addrs::AbsResourceInstance::parse(t, file) {
            Ok(r) => (Some(MoveEndpoint::Resource(r)), Vec::new()),
            Err(d) => (None, d),
        }
    }
}

fn move_endpoint_kind(e: &MoveEndpoint) -> u8 {
    match e {
        MoveEndpoint::Module(_) => 0,
        MoveEndpoint::Resource(_) => 1,
    }
}

fn decode_moved_block(block: &Block) -> (Moved, Diagnostics) {
    let mut moved = Moved {
        from: None,
        from_range: None,
        to: None,
        to_range: None,
        decl_range: block.def_range.clone(),
    };
    let (content, mut diags) = block.body.content(&MOVED_BLOCK_SCHEMA);
    for (arg, is_from) in [("from", true), ("to", false)] {
        let Some(attr) = content.attribute(arg) else {
            continue;
        };
        match attr.expr.abs_traversal() {
            Err(d) => diags.extend(d),
            Ok(t) => {
                let (endpoint, d) = parse_move_endpoint(&t, &attr.expr);
                diags.extend(d);
                let range = attr.expr.file().range(traversal_span(&t));
                if is_from {
                    moved.from = endpoint;
                    moved.from_range = Some(range);
                } else {
                    moved.to = endpoint;
                    moved.to_range = Some(range);
                }
            }
        }
    }
    let allowed = |e: &Option<MoveEndpoint>| match e {
        None => false,
        Some(MoveEndpoint::Resource(r)) => {
            r.resource.resource.mode != terrace_addrs::ResourceMode::Ephemeral
        }
        Some(MoveEndpoint::Module(_)) => true,
    };
    if !allowed(&moved.from) {
        diags.push(error(
            "Invalid \"moved\" address",
            "The resource referenced by the \"from\" attribute is not allowed to be moved.",
            &moved.decl_range,
        ));
    }
    if !allowed(&moved.to) {
        diags.push(error(
            "Invalid \"moved\" address",
            "The resource referenced by the \"to\" attribute is not allowed to be moved.",
            &moved.decl_range,
        ));
    }
    if !has_errors(&diags) {
        if let (Some(from), Some(to)) = (&moved.from, &moved.to) {
            if move_endpoint_kind(from) != move_endpoint_kind(to) {
                diags.push(error(
                    "Invalid \"moved\" addresses",
                    "The \"from\" and \"to\" addresses must either both refer to resources or both refer to modules.",
                    &moved.decl_range,
                ));
            }
        }
    }
    (moved, diags)
}

fn parse_remove_endpoint(
    t: &Traversal,
    expr: &Expression,
) -> (Option<RemoveEndpoint>, Diagnostics) {
    let file = expr.file();
    let whole = file.range(traversal_span(t));
    if is_module_path(t) {
        return match terrace_addrs::Module::parse(t, file) {
            Ok(m) => (Some(RemoveEndpoint::Module(m)), Vec::new()),
            Err(d) => (None, d),
        };
    }
    match terrace_addrs::ConfigResource::parse(t, file) {
        Err(d) => (None, d),
        Ok(r) => match r.resource.mode {
            terrace_addrs::ResourceMode::Data => (None, vec![error(
                "Data source address is not allowed",
                "Data sources cannot be destroyed, and therefore, 'removed' blocks are not allowed to target them. To remove data sources from the state, you should remove the data source block from the configuration.",
                &whole,
            )]),
            terrace_addrs::ResourceMode::Ephemeral => (None, vec![error(
                "Ephemeral resource address is not allowed",
                "Ephemeral resources cannot be destroyed, and therefore, 'removed' blocks are not allowed to target them. To remove ephemeral resources from the state, you should remove the ephemeral resource block from the configuration.",
                &whole,
            )]),
            _ => (Some(RemoveEndpoint::Resource(r)), Vec::new()),
        },
    }
}

fn decode_removed_block(block: &Block) -> (Removed, Diagnostics) {
    let mut removed = Removed {
        from: None,
        from_range: None,
        destroy: false,
        destroy_set: false,
        provisioners: Vec::new(),
        decl_range: block.def_range.clone(),
    };
    let (content, mut diags) = block.body.content(&REMOVED_BLOCK_SCHEMA);
    if let Some(attr) = content.attribute("from") {
        match attr.expr.abs_traversal() {
            Err(d) => diags.extend(d),
            Ok(t) => {
                let (endpoint, d) = parse_remove_endpoint(&t, &attr.expr);
                diags.extend(d);
                removed.from = endpoint;
                removed.from_range = Some(attr.expr.file().range(traversal_span(&t)));
            }
        }
    }
    let mut seen_lifecycle: Option<&Block> = None;
    for b in &content.blocks {
        match b.block_type.as_str() {
            "lifecycle" => {
                if let Some(first) = seen_lifecycle {
                    diags.push(error(
                        "Duplicate lifecycle block",
                        format!(
                            "The removed block already has a lifecycle block at {}.",
                            first.def_range
                        ),
                        &b.def_range,
                    ));
                    continue;
                }
                seen_lifecycle = Some(b);
                let (lc, more) = b.body.content(&REMOVED_LIFECYCLE_SCHEMA);
                diags.extend(more);
                if let Some(attr) = lc.attribute("destroy") {
                    let (v, more) = decode_bool(&attr.expr);
                    diags.extend(more);
                    removed.destroy = v.unwrap_or(false);
                    removed.destroy_set = true;
                }
            }
            _ => {
                let (pv, more) = decode_provisioner_block(b);
                diags.extend(more);
                let Some(pv) = pv else { continue };
                if pv.when != ProvisionerWhen::Destroy {
                    diags.push(error(
                        "Invalid \"removed.provisioner\" block",
                        "\"removed\" blocks can only contain destroy provisioners. \"removed.provisioner.when = destroy\" expected",
                        &b.def_range,
                    ));
                    continue;
                }
                match &removed.from {
                    None => continue,
                    Some(RemoveEndpoint::Module(_)) => {
                        diags.push(error(
                            "Invalid \"removed\" block",
                            "\"removed\" blocks containing \"provisioner\"s can only target resources. Found one block that is targeting a module",
                            &block.def_range,
                        ));
                        continue;
                    }
                    Some(RemoveEndpoint::Resource(_)) => removed.provisioners.push(pv),
                }
            }
        }
    }
    if !has_errors(&diags) {
        if !removed.destroy_set {
            diags.push(warning(
                "Missing lifecycle from the removed block",
                "It is recommended for each 'removed' block configured to have also the 'lifecycle' block defined. By not specifying if the resource should be destroyed or not, could lead to unwanted behavior.",
                &block.def_range,
            ));
        } else if !removed.destroy && !removed.provisioners.is_empty() {
            diags.push(warning(
                "Removed block provisioners will not be executed",
                "The 'removed' block has marked the resource to be forgotten and not destroyed. Therefore, the provisioners configured for it will not be executed.",
                &block.def_range,
            ));
        }
    }
    (removed, diags)
}

/// The traversal an import `to` names, ignoring dynamic instance keys
/// (OpenTofu's `absTraversalForImportToExpr`).
fn import_to_traversal(e: &Expr) -> Option<Traversal> {
    match &e.kind {
        ExprKind::Index { collection, .. } => import_to_traversal(collection),
        ExprKind::RelativeTraversal { source, steps } => {
            let mut t = import_to_traversal(source)?;
            t.steps.extend(steps.iter().cloned());
            Some(t)
        }
        ExprKind::ScopeTraversal(t) => Some(t.clone()),
        _ => None,
    }
}

fn decode_import_block(block: &Block) -> (Import, Diagnostics) {
    let mut imp = Import {
        id: None,
        identity: None,
        to: None,
        static_to: None,
        resolved_to: None,
        for_each: None,
        provider_config_ref: None,
        provider: None,
        decl_range: block.def_range.clone(),
        provider_decl_range: None,
    };
    let (content, mut diags) = block.body.content(&IMPORT_BLOCK_SCHEMA);
    let id_attr = content.attribute("id");
    let identity_attr = content.attribute("identity");
    imp.id = id_attr.map(|a| a.expr.clone());
    imp.identity = identity_attr.map(|a| a.expr.clone());
    if let Some(attr) = content.attribute("to") {
        let to = match attr.expr.json_as_native() {
            Ok(e) => e,
            Err(d) => {
                diags.extend(d);
                return (imp, diags);
            }
        };
        imp.to = Some(to.clone());
        let plain = to.evaluable().0.clone();
        let Some(t) = import_to_traversal(&plain) else {
            diags.push(error(
                "Invalid import address expression",
                "Import address must be a reference to a resource's address, and only allows for indexing with dynamic keys. For example: module.my_module[expression1].aws_s3_bucket.my_buckets[expression2] for resources inside of modules, or simply aws_s3_bucket.my_bucket for a resource in the root module",
                &to.range(),
            ));
            return (imp, diags);
        };
        match terrace_addrs::AbsResourceInstance::parse(&t, to.file()) {
            Err(d) => {
                diags.extend(d);
                return (imp, diags);
            }
            Ok(r) => imp.static_to = Some(r.config_resource()),
        }
        if let Some(t) = to.as_traversal() {
            imp.resolved_to = terrace_addrs::AbsResourceInstance::parse(&t, to.file()).ok();
        }
    }
    if let Some(attr) = content.attribute("provider") {
        if imp.static_to.as_ref().is_some_and(|s| !s.module.is_root()) {
            diags.push(error(
                "Invalid import provider argument",
                "The provider argument can only be specified in import blocks that will generate configuration.\n\nUse the providers argument within the module block to configure providers for all resources within a module, including imported resources.",
                &attr.range,
            ));
        }
        let (p, more) = decode_provider_config_ref(&attr.expr, "provider");
        diags.extend(more);
        imp.provider_config_ref = p;
        imp.provider_decl_range = Some(attr.range.clone());
    }
    if let Some(attr) = content.attribute("for_each") {
        imp.for_each = Some(attr.expr.clone());
    }
    match (id_attr, identity_attr) {
        (None, None) => diags.push(error(
            "Missing required import argument",
            "One of 'id' or 'identity' must be specified in an import block to identify the resource instance to import.",
            &block.def_range,
        )),
        (Some(a), Some(b)) => diags.push(error(
            "Conflicting import arguments",
            "Only one of 'id' or 'identity' can be specified in an import block. 'id' identifies the resource instance by its ID, while 'identity' identifies the resource instance by its Resource Identity. Choose one method to identify the resource instance to import.",
            &range_between(&a.range, &b.range),
        )),
        _ => {}
    }
    (imp, diags)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers() {
        for ok in ["a", "_a", "a-b", "a1", "é"] {
            assert!(valid_identifier(ok), "{ok}");
        }
        for bad in ["", "1a", "-a", "a b", "a.b"] {
            assert!(!valid_identifier(bad), "{bad}");
        }
    }

    #[test]
    fn module_paths() {
        let parse = |s: &str| {
            let f = terrace_syntax::ast::SourceFile::new("t", s);
            terrace_syntax::parse_traversal_abs(&f).0
        };
        for (s, want) in [
            ("module.a", true),
            ("module.a[0].module.b", true),
            ("module.a.aws_x.y", false),
            ("aws_x.y", false),
            ("module.a[0][1]", false),
        ] {
            let t = parse(s).unwrap_or_else(|| panic!("{s}"));
            assert_eq!(is_module_path(&t), want, "{s}");
        }
    }
}
