//! `provisioner` and `connection` blocks inside resources.

use super::*;

pub(super) fn decode_provisioner_block(block: &Block) -> (Option<Provisioner>, Diagnostics) {
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
    let mut connections = OnlyOnce::new("This provisioner");
    let mut escape = EscapeBlock::new("provisioner-type-specific", "provisioner");
    for b in &content.blocks {
        match b.block_type.as_str() {
            "_" => escape.merge(b, &mut pv.config, &mut diags),
            "connection" => {
                if !connections.first(b, &mut diags) {
                    continue;
                }
                if pv.when == ProvisionerWhen::Destroy {
                    diags.extend(only_self_refs(&b.body));
                }
                pv.connection = Some(Connection {
                    config: b.body.clone(),
                    decl_range: b.def_range.clone(),
                });
            }
            _ => diags.push(reserved_block_type("provisioner", b)),
        }
    }
    (Some(pv), diags)
}

/// OpenTofu's `onlySelfRefs`: destroy-time provisioners may refer only to
/// `self`, `count.index`, `each.key`, `path` and `terraform`.
pub(super) fn only_self_refs(body: &Body) -> Diagnostics {
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
