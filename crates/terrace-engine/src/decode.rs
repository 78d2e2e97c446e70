//! TEMPORARY: a minimal hcldec (decode a body against a provider schema,
//! list the references in it), so the engine runs before terrace-config's
//! `hcldec` is published. Only plain attributes and static nested
//! blocks are handled (no `dynamic` blocks). Replaced by hcldec as soon as
//! it lands.

use std::collections::BTreeMap;
use terrace_config::body::Body;
use terrace_config::body::{Block as BodyBlock, BodySchema};
use terrace_lang::references::Reference;
use terrace_lang::scope::Scope;
use terrace_providers::{Block, NestingMode};
use terrace_syntax::{Diagnostic, Diagnostics};
use terrace_value::convert::convert;
use terrace_value::Value;

fn body_schema(block: &Block) -> BodySchema {
    let mut s = BodySchema::new();
    for (name, a) in &block.attributes {
        s = if a.required {
            s.required_attr(name)
        } else {
            s.attr(name)
        };
    }
    for (name, nb) in &block.block_types {
        s = if nb.nesting == NestingMode::Map {
            s.labeled_block(name, &["key"])
        } else {
            s.block(name)
        };
    }
    s
}

/// The references in every argument of `body` and its nested blocks.
pub(crate) fn body_references(body: &Body, block: &Block) -> Vec<Reference> {
    let (content, _) = body.content(&body_schema(block));
    let mut out = Vec::new();
    for a in &content.attributes {
        out.extend(crate::graph::expr_refs(&a.expr));
    }
    for b in &content.blocks {
        if let Some(nb) = block.block_types.get(&b.block_type) {
            out.extend(body_references(&b.body, &nb.block));
        }
    }
    out
}

/// `body` decoded against `block` into a value of the block's implied
/// type.
pub(crate) fn decode_body(body: &Body, block: &Block, scope: &dyn Scope) -> (Value, Diagnostics) {
    let (content, mut diags) = body.content(&body_schema(block));
    let mut attrs = BTreeMap::new();
    for (name, a) in &block.attributes {
        let ty = a.implied_type();
        let v = match content.attribute(name) {
            Some(at) => {
                let (v, d) = at.expr.evaluate(scope);
                diags.extend(d);
                match convert(&v, &ty) {
                    Ok(v) => v,
                    Err(e) => {
                        diags.push(
                            Diagnostic::error(
                                "Incorrect attribute value type",
                                format!("Inappropriate value for attribute {name:?}: {e}."),
                            )
                            .with_subject(at.expr.range()),
                        );
                        Value::unknown(ty)
                    }
                }
            }
            None => Value::null(ty),
        };
        attrs.insert(name.clone(), v);
    }
    for (name, nb) in &block.block_types {
        if attrs.contains_key(name) {
            continue;
        }
        let blocks: Vec<&BodyBlock> = content
            .blocks
            .iter()
            .filter(|b| &b.block_type == name)
            .collect();
        let ety = nb.block.implied_type();
        let mut decoded = Vec::new();
        for b in &blocks {
            let (v, d) = decode_body(&b.body, &nb.block, scope);
            diags.extend(d);
            decoded.push((b.labels.first().cloned().unwrap_or_default(), v));
        }
        let dynamic = nb.implied_type().is_dynamic();
        let v = match nb.nesting {
            NestingMode::Single | NestingMode::Group => match decoded.into_iter().next() {
                Some((_, v)) => v,
                None if nb.nesting == NestingMode::Group => {
                    decode_body(&Body::empty(), &nb.block, scope).0
                }
                None => Value::null(ety),
            },
            NestingMode::List if dynamic => {
                Value::tuple(decoded.into_iter().map(|(_, v)| v).collect())
            }
            NestingMode::List => Value::list(ety, decoded.into_iter().map(|(_, v)| v).collect()),
            NestingMode::Set => Value::set(ety, decoded.into_iter().map(|(_, v)| v).collect()),
            NestingMode::Map if dynamic => Value::object(decoded.into_iter().collect()),
            NestingMode::Map => Value::map(ety, decoded.into_iter().collect()),
        };
        attrs.insert(name.clone(), v);
    }
    (Value::object(attrs), diags)
}
