//! `required_providers`, `provider_meta` and `provider` blocks, and
//! references to provider configurations.

use super::*;

pub(super) fn decode_required_providers_block(block: &Block) -> (RequiredProviders, Diagnostics) {
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

pub(super) fn decode_provider_meta_block(block: &Block) -> (Option<ProviderMeta>, Diagnostics) {
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

/// The two blocks that declare a provider configuration.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum ProviderBlockKind {
    /// `provider` in a module.
    Provider,
    /// `mock_provider` in a test file.
    MockProvider,
}

/// What `provider` and `mock_provider` blocks decode alike, in OpenTofu's
/// order: the name (which must be in normal form: `None` when it is not),
/// `alias`, the deprecated `version`, and `for_each` (only with an
/// alias). `config` is the body the provider is
/// configured with.
pub(crate) fn decode_provider_identity(
    kind: ProviderBlockKind,
    block: &Block,
    content: &BodyContent,
    config: Body,
    diags: &mut Diagnostics,
) -> Option<Provider> {
    let name = block.labels.first().cloned().unwrap_or_default();
    let name_diags = check_provider_name_normalized(&name, &block.def_range);
    let invalid = has_errors(&name_diags);
    diags.extend(name_diags);
    if invalid {
        return None;
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
            let detail = format!("An alias must be a valid name. {BAD_IDENTIFIER_DETAIL}");
            // As OpenTofu reports them: a provider block's without a
            // place, a mock provider's at the alias.
            diags.push(match kind {
                ProviderBlockKind::Provider => {
                    Diagnostic::error("Invalid provider configuration alias", detail)
                }
                ProviderBlockKind::MockProvider => {
                    Diagnostic::error("Invalid mock provider configuration alias", detail)
                        .with_subject(attr.expr.range())
                }
            });
        }
        provider.alias = (!alias.is_empty()).then_some(alias);
    }
    // Only a provider block's schema has `version`.
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
    Some(provider)
}

pub(crate) fn decode_provider_block(block: &Block) -> (Option<Provider>, Diagnostics) {
    let (content, config, mut diags) = block.body.partial_content(&PROVIDER_BLOCK_SCHEMA);
    let Some(mut provider) = decode_provider_identity(
        ProviderBlockKind::Provider,
        block,
        &content,
        config,
        &mut diags,
    ) else {
        return (None, diags);
    };
    for reserved in ["count", "depends_on", "source"] {
        if let Some(attr) = content.attribute(reserved) {
            diags.push(error(
                "Reserved argument name in provider block",
                format!("The provider argument name {} is reserved for use by {PRODUCT} in a future version.", quote(reserved)),
                &attr.name_range,
            ));
        }
    }
    let mut escape = EscapeBlock::new("provider-specific", "provider");
    for b in &content.blocks {
        if b.block_type == "_" {
            escape.merge(b, &mut provider.config, &mut diags);
        } else {
            diags.push(reserved_block_type("provider", b));
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
