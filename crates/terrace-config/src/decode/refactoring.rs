//! `moved`, `removed` and `import` blocks: what changes where the state
//! puts an object.

use super::*;

/// Whether a traversal is nothing but `module.NAME[key]` steps.
pub(super) fn is_module_path(t: &Traversal) -> bool {
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

pub(super) fn parse_move_endpoint(
    t: &Traversal,
    expr: &Expression,
) -> (Option<MoveEndpoint>, Diagnostics) {
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

pub(super) fn move_endpoint_kind(e: &MoveEndpoint) -> u8 {
    match e {
        MoveEndpoint::Module(_) => 0,
        MoveEndpoint::Resource(_) => 1,
    }
}

pub(super) fn decode_moved_block(block: &Block) -> (Moved, Diagnostics) {
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

pub(super) fn parse_remove_endpoint(
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

pub(super) fn decode_removed_block(block: &Block) -> (Removed, Diagnostics) {
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
    let mut lifecycles = OnlyOnce::new("The removed block");
    for b in &content.blocks {
        match b.block_type.as_str() {
            "lifecycle" => {
                if !lifecycles.first(b, &mut diags) {
                    continue;
                }
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
pub(super) fn import_to_traversal(e: &Expr) -> Option<Traversal> {
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

pub(super) fn decode_import_block(block: &Block) -> (Import, Diagnostics) {
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
