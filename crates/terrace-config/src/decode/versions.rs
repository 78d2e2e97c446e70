//! `required_version`, the `language` block and version constraints.

use super::*;

pub(super) fn incompatible_module(range: &SourceRange) -> Diagnostic {
    error(
        "Incompatible module",
        format!("This module is not compatible with OpenTofu v{OPENTOFU_LANGUAGE_VERSION}, the version of the language {PRODUCT} implements.\n\nTo proceed, either choose another supported version or update this version constraint. Version constraints are normally set for good reason, so updating the constraint may lead to other errors or unexpected behavior."),
        range,
    )
}

pub(super) fn language_version() -> Option<Version> {
    Version::parse(OPENTOFU_LANGUAGE_VERSION).ok()
}

/// OpenTofu's `checkVersionRequirements`: `language { compatible_with {
/// opentofu = ... } }` anywhere, and `terraform { required_version }` in
/// `.tofu` files, checked against the OpenTofu language version.
pub(super) fn check_version_requirements(
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

pub(super) fn validate_core_version_constraint(c: &VersionConstraint) -> Diagnostics {
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

/// Terraform's check of a `required_version` in a `.tf` file: its
/// versions' prereleases are ignored when matching, so a constraint that
/// names one is refused.
pub(super) fn validate_terraform_version_constraint(c: &VersionConstraint) -> Diagnostics {
    c.required
        .iter()
        .filter(|r| r.is_prerelease())
        .map(|r| {
            error(
                "Invalid required_version constraint",
                format!("Prerelease version constraints are not supported: {r}. Remove the prerelease information from the constraint. Prerelease versions of terraform will match constraints using their version core only."),
                &c.decl_range,
            )
        })
        .collect()
}

pub(super) fn decode_compatible_with(block: &Block) -> (Option<VersionConstraint>, Diagnostics) {
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

pub(super) const FIRST_EDITION: &str = "tofu2024";

pub(super) fn validate_language_block(block: &Block, is_override: bool) -> Diagnostics {
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
