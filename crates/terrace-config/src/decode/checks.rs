//! `check` blocks.

use super::*;

pub(super) fn decode_check_block(block: &Block, is_override: bool) -> (Check, Diagnostics) {
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
