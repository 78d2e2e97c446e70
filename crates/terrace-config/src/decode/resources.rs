//! `resource`, `data` and `ephemeral` blocks with their `lifecycle`.

use super::*;

pub(super) fn new_resource(block: &Block, mode: ResourceMode, config: Body) -> Resource {
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

pub(super) fn check_resource_names(
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

pub(super) fn decode_lifecycle_rules(
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

/// The special `_` block a block may hold once: its arguments belong to
/// the block's own body (the provider's, the module's variables, ...)
/// even where their names are meta-arguments.
pub(super) struct EscapeBlock<'a> {
    /// What the arguments are taken as, for the duplicate's message.
    kind: &'static str,
    /// The enclosing block's type.
    noun: &'static str,
    first: Option<&'a Block>,
}

impl<'a> EscapeBlock<'a> {
    pub(super) fn new(kind: &'static str, noun: &'static str) -> EscapeBlock<'a> {
        EscapeBlock {
            kind,
            noun,
            first: None,
        }
    }

    /// Merges the `_` block `b` into `config`; a second one is an error.
    pub(super) fn merge(&mut self, b: &'a Block, config: &mut Body, diags: &mut Diagnostics) {
        if let Some(first) = self.first {
            diags.push(error(
                "Duplicate escaping block",
                format!("The special block type \"_\" can be used to force particular arguments to be interpreted as {} rather than as meta-arguments, but each {} block can have only one such block. The first escaping block was at {}.", self.kind, self.noun, first.def_range),
                &b.def_range,
            ));
            return;
        }
        self.first = Some(b);
        *config = Body::merged(vec![config.clone(), b.body.clone()]);
    }
}

/// A nested block of a type no version gives a meaning yet.
pub(super) fn reserved_block_type(noun: &str, b: &Block) -> Diagnostic {
    error(
        format!("Reserved block type name in {noun} block"),
        format!(
            "The block type name {} is reserved for use by {PRODUCT} in a future version.",
            quote(&b.block_type)
        ),
        &b.type_range,
    )
}

pub(super) fn decode_resource_block(block: &Block, is_override: bool) -> (Resource, Diagnostics) {
    let (content, remain, mut diags) = block.body.partial_content(&RESOURCE_BLOCK_SCHEMA);
    let mut r = new_resource(block, ResourceMode::Managed, remain);
    let mut managed = ManagedResource::default();
    check_resource_names(
        block,
        "Invalid resource type name",
        "Invalid resource name",
        &mut diags,
    );
    let mut instances = InstanceArguments::default();
    instances.take(&content, &mut r.count, &mut r.for_each);
    decode_resource_references(&content, &mut r, &mut diags);
    let mut lifecycles = OnlyOnce::new("This resource");
    let mut connections = OnlyOnce::new("This resource");
    let mut escape = EscapeBlock::new("resource-type-specific", "resource");
    for b in &content.blocks {
        match b.block_type.as_str() {
            "lifecycle" => {
                if !lifecycles.first(b, &mut diags) {
                    continue;
                }
                let (lc, more) = b.body.content(&RESOURCE_LIFECYCLE_SCHEMA);
                diags.extend(more);
                if let Some(attr) = lc.attribute("create_before_destroy") {
                    let (v, more) = decode_bool(&attr.expr);
                    diags.extend(more);
                    managed.create_before_destroy = v.unwrap_or(false);
                    managed.create_before_destroy_set = true;
                }
                instances.take_enabled(&lc, &mut r.enabled);
                if let Some(attr) = lc.attribute("prevent_destroy") {
                    // A constant, as terraform 1.11 decodes it when
                    // loading: a reference is refused here, not only when
                    // a destroy is planned.
                    let (_, more) = decode_bool(&attr.expr);
                    diags.extend(more);
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
                if !connections.first(b, &mut diags) {
                    continue;
                }
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
            "_" => escape.merge(b, &mut r.config, &mut diags),
            _ => diags.push(reserved_block_type("resource", b)),
        }
    }
    instances.check("resources", "may", &mut diags);
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

pub(super) fn decode_ignore_changes(
    attr: &Attribute,
    managed: &mut ManagedResource,
    diags: &mut Diagnostics,
) {
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
pub(super) fn decode_replace_triggered_by(expr: &Expression) -> (Vec<Expression>, Diagnostics) {
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

pub(super) fn decode_data_block(
    block: &Block,
    is_override: bool,
    nested: bool,
) -> (Resource, Diagnostics) {
    let (content, remain, mut diags) = block.body.partial_content(&DATA_BLOCK_SCHEMA);
    let mut r = new_resource(block, ResourceMode::Data, remain);
    check_resource_names(
        block,
        "Invalid data source name",
        "Invalid data resource name",
        &mut diags,
    );
    let mut instances = InstanceArguments::default();
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
        } else if is_count {
            instances.take_count(attr, &mut r.count);
        } else {
            instances.take_for_each(attr, &mut r.for_each);
        }
    }
    decode_resource_references(&content, &mut r, &mut diags);
    let mut escape = EscapeBlock::new("resource-type-specific", "data");
    let mut lifecycles = OnlyOnce::new("This resource");
    for b in &content.blocks {
        match b.block_type.as_str() {
            "_" => escape.merge(b, &mut r.config, &mut diags),
            "lifecycle" => {
                if nested {
                    diags.push(error(
                        "Invalid lifecycle block",
                        "Nested data blocks do not support \"lifecycle\" blocks as the lifecycle is managed by the containing block.",
                        &b.def_range,
                    ));
                }
                if !lifecycles.first(b, &mut diags) {
                    continue;
                }
                let (lc, more) = b.body.content(&RESOURCE_LIFECYCLE_SCHEMA);
                diags.extend(more);
                instances.take_enabled(&lc, &mut r.enabled);
                for attr in lc.attributes.iter().filter(|a| a.name != "enabled") {
                    diags.push(error(
                        "Invalid data resource lifecycle argument",
                        format!("The lifecycle argument {} is defined only for managed resources (\"resource\" blocks), and is not valid for data resources.", quote(&attr.name)),
                        &attr.name_range,
                    ));
                }
                decode_lifecycle_rules(&lc, &mut r, is_override, &mut diags);
            }
            _ => diags.push(reserved_block_type("data", b)),
        }
    }
    instances.check("data sources", "may", &mut diags);
    (r, diags)
}

pub(super) fn decode_ephemeral_block(block: &Block, is_override: bool) -> (Resource, Diagnostics) {
    let (content, remain, mut diags) = block.body.partial_content(&RESOURCE_BLOCK_SCHEMA);
    let mut r = new_resource(block, ResourceMode::Ephemeral, remain);
    check_resource_names(
        block,
        "Invalid ephemeral resource type name",
        "Invalid ephemeral resource name",
        &mut diags,
    );
    let mut instances = InstanceArguments::default();
    instances.take(&content, &mut r.count, &mut r.for_each);
    decode_resource_references(&content, &mut r, &mut diags);
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
    let mut lifecycles = OnlyOnce::new("This ephemeral resource");
    let mut escape = EscapeBlock::new("resource-type-specific", "resource");
    for b in &content.blocks {
        match b.block_type.as_str() {
            "lifecycle" => {
                if !lifecycles.first(b, &mut diags) {
                    continue;
                }
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
                instances.take_enabled(&lc, &mut r.enabled);
                decode_lifecycle_rules(&lc, &mut r, is_override, &mut diags);
            }
            "connection" | "provisioner" => diags.push(bad_block(&b.block_type, &b.def_range)),
            "_" => escape.merge(b, &mut r.config, &mut diags),
            _ => diags.push(reserved_block_type("ephemeral", b)),
        }
    }
    instances.check("ephemeral resources", "may", &mut diags);
    (r, diags)
}
