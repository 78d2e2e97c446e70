//! `module` blocks and the provider configurations they pass.

use super::*;

pub(super) fn decode_module_block(block: &Block, is_override: bool) -> (ModuleCall, Diagnostics) {
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
    let mut instances = InstanceArguments::default();
    instances.take(&content, &mut mc.count, &mut mc.for_each);
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
    let mut lifecycles = OnlyOnce::new("This resource");
    let mut escape = EscapeBlock::new("module input variables", "module");
    for b in &content.blocks {
        match b.block_type.as_str() {
            "lifecycle" => {
                if !lifecycles.first(b, &mut diags) {
                    continue;
                }
                let (lc, more) = b.body.content(&MODULE_LIFECYCLE_SCHEMA);
                diags.extend(more);
                instances.take_enabled(&lc, &mut mc.enabled);
            }
            "_" => escape.merge(b, &mut mc.config, &mut diags),
            _ => diags.push(reserved_block_type("module", b)),
        }
    }
    instances.check("module instances", "should", &mut diags);
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
