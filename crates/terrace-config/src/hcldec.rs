//! Decoding a configuration body against a provider's block schema into a
//! value of the schema's implied type, as OpenTofu's `EvalBlock` does:
//! HCL's `dynblock` expansion of `dynamic` blocks, OpenTofu's `blocktoattr`
//! fix-up (list-of-object attributes written as blocks, as the legacy SDK
//! allowed) and HCL's `hcldec` with the specs OpenTofu builds from a
//! `configschema.Block`, with the same values and diagnostics.
//!
//! [`body_references`] lists the traversals such a decode would evaluate,
//! without evaluating anything, for the dependency graph: iterator names of
//! `dynamic` blocks are not references.

use crate::body::{
    Attribute as BodyAttribute, AttributeSchema, BlockHeaderSchema, Body, BodySchema,
};
use crate::expr::Expression;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;
use terrace_lang::scope::{ExternalFunction, FunctionLookupError, Lookup, Scope};
use terrace_providers::schema::{Attribute, AttributeType, Block, NestedBlock, NestingMode};
use terrace_syntax::ast::{SourceFile, Traversal, TraversalStep};
use terrace_syntax::{Diagnostic, Diagnostics, SourceRange, Span};
use terrace_value::convert::convert;
use terrace_value::gostr::quote;
use terrace_value::{Marks, Type, Value};

/// Decodes `body` against `schema`, evaluating expressions in `scope`.
/// The value always has the schema's implied type (blocks whose nested
/// schema contains `dynamic` attributes become tuples or objects, whose
/// types depend on the values); problems become diagnostics and leave
/// unknown or null values in their place.
pub fn decode_body(body: &Body, schema: &Block, scope: &dyn Scope) -> (Value, Diagnostics) {
    let env = Env {
        scope,
        bindings: Vec::new(),
        marks: Marks::NONE,
        unknown: false,
    };
    let mut diags = Vec::new();
    let value = decode_object(body, schema, &env, &mut diags);
    (value, diags)
}

/// Every scope traversal the decode of `body` with `schema` may evaluate
/// (OpenTofu's `ReferencesInBlock` traversals), with the file it points
/// into: arguments, nested and `dynamic` blocks (their `for_each`,
/// `labels` and content), attributes written as blocks. Traversals rooted
/// at an enclosing `dynamic` block's iterator are left out.
pub fn body_references(body: &Body, schema: &Block) -> Vec<(Traversal, Arc<SourceFile>)> {
    let mut out = Vec::new();
    walk_expressions(body, schema, &[], &mut |expr, excluded| {
        for traversal in expr.variables() {
            if !excluded.contains(&traversal.root) {
                out.push((traversal, expr.file().clone()));
            }
        }
    });
    out
}

/// The `provider::NAME::FUNCTION` calls in the same expressions as
/// [`body_references`]: (provider, function, range of the call's name).
pub fn body_provider_function_calls(
    body: &Body,
    schema: &Block,
) -> Vec<(String, String, SourceRange)> {
    let mut out = Vec::new();
    walk_expressions(body, schema, &[], &mut |expr, _| {
        let (evaluable, _) = expr.evaluable();
        for (provider, name, span) in terrace_lang::references::provider_function_calls(evaluable) {
            out.push((provider, name, expr.file().range(span)));
        }
    });
    out
}

// ----- evaluation environment -----

/// Where a body's expressions are evaluated: the caller's scope plus the
/// iterators of enclosing `dynamic` blocks, the marks of the `for_each`
/// that generated the body, and whether that `for_each` was unknown (then
/// every argument is unknown, as HCL's `unknownBody` makes it).
#[derive(Clone)]
struct Env<'a> {
    scope: &'a dyn Scope,
    /// Iterator name and `{key, value}` object, innermost last.
    bindings: Vec<(String, Value)>,
    marks: Marks,
    unknown: bool,
}

impl<'a> Env<'a> {
    fn evaluate(&self, expr: &Expression) -> (Value, Diagnostics) {
        if self.bindings.is_empty() {
            expr.evaluate(self.scope)
        } else {
            expr.evaluate(&IterScope {
                base: self.scope,
                bindings: &self.bindings,
            })
        }
    }

    /// The environment of a block written literally inside this body: same
    /// iterators, no marks of its own.
    fn static_child(&self) -> Env<'a> {
        Env {
            marks: Marks::NONE,
            ..self.clone()
        }
    }

    fn with_iterator(
        &self,
        name: &str,
        key: Value,
        value: Value,
        marks: Marks,
        unknown: bool,
    ) -> Env<'a> {
        let mut bindings = self.bindings.clone();
        let object = Value::object(BTreeMap::from([
            ("key".to_string(), key),
            ("value".to_string(), value),
        ]));
        bindings.push((name.to_string(), object));
        Env {
            scope: self.scope,
            bindings,
            marks,
            unknown,
        }
    }

    /// An argument's value: HCL's `exprWrap` (iterators in scope, the body's
    /// marks on the result) or `unknownBody`'s unknown.
    fn attribute_value(&self, attr: &BodyAttribute, diags: &mut Diagnostics) -> Value {
        if self.unknown {
            return Value::dynamic().mark(self.marks);
        }
        let (value, more) = self.evaluate(&attr.expr);
        diags.extend(more);
        value.mark(self.marks)
    }
}

/// The caller's scope with `dynamic` iterators in front, as HCL's child
/// evaluation contexts shadow their parents.
struct IterScope<'s> {
    base: &'s dyn Scope,
    bindings: &'s [(String, Value)],
}

impl Scope for IterScope<'_> {
    fn lookup(&self, traversal: &Traversal, file: &SourceFile) -> Lookup {
        match self
            .bindings
            .iter()
            .rev()
            .find(|(name, _)| *name == traversal.root)
        {
            Some((_, value)) => Lookup::Found {
                value: value.clone(),
                consumed: 0,
            },
            None => self.base.lookup(traversal, file),
        }
    }

    fn root_names(&self) -> Vec<String> {
        let mut names = self.base.root_names();
        names.extend(self.bindings.iter().map(|(name, _)| name.clone()));
        names.sort();
        names.dedup();
        names
    }

    fn variables_allowed(&self) -> bool {
        self.base.variables_allowed()
    }

    fn functions_allowed(&self) -> bool {
        self.base.functions_allowed()
    }

    fn file_functions_allowed(&self) -> bool {
        self.base.file_functions_allowed()
    }

    fn pure_only(&self) -> bool {
        self.base.pure_only()
    }

    fn builtin_available(&self, name: &str) -> bool {
        self.base.builtin_available(name)
    }

    fn base_dir(&self) -> &Path {
        self.base.base_dir()
    }

    fn now(&self) -> Option<&str> {
        self.base.now()
    }

    fn function(&self, name: &str) -> Option<Arc<dyn ExternalFunction>> {
        self.base.function(name)
    }

    fn provider_function(
        &self,
        provider: &str,
        name: &str,
    ) -> Result<Arc<dyn ExternalFunction>, FunctionLookupError> {
        self.base.provider_function(provider, name)
    }
}

// ----- schemas -----

const MAP_LABEL: &str = "key";

fn header(block_type: &str, labels: &[&str]) -> BlockHeaderSchema {
    BlockHeaderSchema {
        block_type: block_type.to_string(),
        label_names: labels.iter().map(|l| l.to_string()).collect(),
    }
}

fn dynamic_header() -> BlockHeaderSchema {
    header("dynamic", &["type"])
}

fn nested_header(name: &str, nested: &NestedBlock) -> BlockHeaderSchema {
    match nested.nesting {
        NestingMode::Map => header(name, &[MAP_LABEL]),
        _ => header(name, &[]),
    }
}

/// OpenTofu's `blocktoattr` skip rule: schemas using nested attributes or
/// types the legacy SDK could not produce never accept attributes as
/// blocks.
fn skip_fixup(schema: &Block) -> bool {
    for attribute in schema.attributes.values() {
        let ty = match &attribute.ty {
            AttributeType::Nested(_) => return true,
            AttributeType::Type(ty) => ty,
        };
        if ty.is_tuple() || ty.is_object() {
            return true;
        }
        if let Some(ety) = ty.element_type() {
            if ty.is_map() && ety.is_object() {
                return true;
            }
            if let Some(inner) = ety.element_type() {
                if !inner.is_primitive() {
                    return true;
                }
            }
        }
    }
    schema
        .block_types
        .values()
        .any(|nested| skip_fixup(&nested.block))
}

/// Attributes of list or set of object type, which may be written as
/// blocks.
fn ambiguous_names(schema: &Block) -> BTreeSet<&str> {
    schema
        .attributes
        .iter()
        .filter(|(_, a)| match &a.ty {
            AttributeType::Type(ty) => {
                (ty.is_list() || ty.is_set()) && ty.element_type().is_some_and(Type::is_object)
            }
            AttributeType::Nested(_) => false,
        })
        .map(|(name, _)| name.as_str())
        .collect()
}

/// The block schema `blocktoattr` decodes an attribute's element blocks
/// with: every attribute of the object type, optional.
fn schema_for_element_type(ety: &Type) -> Block {
    let attributes = ety
        .object_type()
        .map(|o| {
            o.attributes
                .iter()
                .map(|(name, ty)| {
                    let mut attribute = Attribute::new(ty.clone());
                    attribute.optional = true;
                    (name.clone(), attribute)
                })
                .collect()
        })
        .unwrap_or_default();
    Block {
        attributes,
        ..Block::default()
    }
}

fn attribute_element_type(attribute: &Attribute) -> Option<&Type> {
    match &attribute.ty {
        AttributeType::Type(ty) if ty.is_collection() => {
            ty.element_type().filter(|e| e.is_object())
        }
        _ => None,
    }
}

fn has_attribute(body: &Body, name: &str) -> bool {
    let (content, _, _) = body.partial_content(&BodySchema::new().attr(name));
    content.attribute(name).is_some()
}

// ----- decoding -----

/// A block after `dynamic` expansion, with the environment its body is
/// decoded in.
struct Expanded<'a> {
    block_type: String,
    labels: Vec<String>,
    body: Body,
    def_range: SourceRange,
    type_range: SourceRange,
    env: Env<'a>,
}

fn decode_object(body: &Body, schema: &Block, env: &Env<'_>, diags: &mut Diagnostics) -> Value {
    let ambiguous = if skip_fixup(schema) {
        BTreeSet::new()
    } else {
        ambiguous_names(schema)
    };
    let mut hcl_schema = BodySchema::new();
    let mut as_blocks: BTreeSet<&str> = BTreeSet::new();
    for (name, attribute) in &schema.attributes {
        // After dynamic expansion an ambiguous name that is not an argument
        // is read as blocks, even when there are none.
        if ambiguous.contains(name.as_str()) && !has_attribute(body, name) {
            as_blocks.insert(name);
            hcl_schema.blocks.push(header(name, &[]));
        } else {
            hcl_schema.attributes.push(AttributeSchema {
                name: name.clone(),
                required: attribute.required,
            });
        }
    }
    for (name, nested) in &schema.block_types {
        if !schema.attributes.contains_key(name) {
            hcl_schema.blocks.push(nested_header(name, nested));
        }
    }
    let mut extended = hcl_schema.clone();
    extended.blocks.push(dynamic_header());
    let (content, more) = body.content(&extended);
    diags.extend(more);
    let blocks = expand_blocks(&content.blocks, &hcl_schema, env, diags);

    let mut values = BTreeMap::new();
    for (name, attribute) in &schema.attributes {
        let spec_type = attribute.spec_type();
        let value = if as_blocks.contains(name.as_str()) {
            let element_blocks: Vec<&Expanded<'_>> =
                blocks.iter().filter(|b| b.block_type == *name).collect();
            blocks_as_attribute(name, attribute, &element_blocks, diags)
        } else {
            match content.attribute(name) {
                None => Value::null(spec_type.without_optional_attributes()),
                Some(attr) => {
                    let value = env.attribute_value(attr, diags);
                    convert_attribute(
                        name,
                        &value,
                        &spec_type,
                        attr.expr.range(),
                        attr.range.clone(),
                        diags,
                    )
                }
            }
        };
        values.insert(name.clone(), value);
    }
    for (name, nested) in &schema.block_types {
        if schema.attributes.contains_key(name) {
            continue;
        }
        let of_type: Vec<&Expanded<'_>> = blocks.iter().filter(|b| b.block_type == *name).collect();
        let value =
            decode_nested_blocks(name, nested, &of_type, &content.missing_item_range, diags);
        values.insert(name.clone(), value);
    }
    Value::object(values)
}

/// HCL's `AttrSpec` conversion with its diagnostic.
fn convert_attribute(
    name: &str,
    value: &Value,
    spec_type: &Type,
    subject: SourceRange,
    context: SourceRange,
    diags: &mut Diagnostics,
) -> Value {
    match convert(value, spec_type) {
        Ok(v) => v,
        Err(e) => {
            diags.push(
                Diagnostic::error(
                    "Incorrect attribute value type",
                    format!(
                        "Inappropriate value for attribute {}: {}.",
                        quote(name),
                        e.message
                    ),
                )
                .with_subject(subject)
                .with_context(context),
            );
            Value::unknown(spec_type.without_optional_attributes())
        }
    }
}

/// `blocktoattr`: blocks standing for the elements of a list or set of
/// objects argument.
fn blocks_as_attribute(
    name: &str,
    attribute: &Attribute,
    blocks: &[&Expanded<'_>],
    diags: &mut Diagnostics,
) -> Value {
    let spec_type = attribute.spec_type();
    let (Some(first), Some(ety)) = (blocks.first(), attribute_element_type(attribute)) else {
        return Value::null(spec_type.without_optional_attributes());
    };
    let element_schema = schema_for_element_type(ety);
    let items: Vec<Value> = blocks
        .iter()
        .map(|b| decode_object(&b.body, &element_schema, &b.env, diags))
        .collect();
    let value = match items.first().map(|v| v.ty().clone()) {
        Some(ty) if items.iter().all(|v| *v.ty() == ty) => Value::list(ty, items),
        _ => Value::tuple(items),
    };
    let context = range_between(&first.type_range, &first.def_range);
    convert_attribute(
        name,
        &value,
        &spec_type,
        first.def_range.clone(),
        context,
        diags,
    )
}

fn range_between(start: &SourceRange, end: &SourceRange) -> SourceRange {
    SourceRange {
        filename: start.filename.clone(),
        start: start.start,
        end: end.end,
    }
}

fn decode_nested_blocks(
    name: &str,
    nested: &NestedBlock,
    blocks: &[&Expanded<'_>],
    missing: &SourceRange,
    diags: &mut Diagnostics,
) -> Value {
    let block_ty = nested.block.implied_type();
    match nested.nesting {
        NestingMode::Single | NestingMode::Group => {
            let mut chosen: Option<&Expanded<'_>> = None;
            for candidate in blocks {
                if let Some(first) = chosen {
                    diags.push(
                        Diagnostic::error(
                            format!("Duplicate {name} block"),
                            format!(
                                "Only one block of type {} is allowed. Previous definition was at {}.",
                                quote(name),
                                first.def_range
                            ),
                        )
                        .with_subject(candidate.def_range.clone()),
                    );
                    break;
                }
                chosen = Some(candidate);
            }
            let value = match chosen {
                Some(block) => decode_object(&block.body, &nested.block, &block.env, diags),
                None => {
                    if nested.min_items == 1 {
                        diags.push(
                            Diagnostic::error(
                                format!("Missing {name} block"),
                                format!("A block of type {} is required here.", quote(name)),
                            )
                            .with_subject(missing.clone()),
                        );
                    }
                    Value::null(block_ty)
                }
            };
            if nested.nesting == NestingMode::Group && value.is_null() {
                return group_empty_value(&nested.block);
            }
            value
        }
        NestingMode::List | NestingMode::Set => {
            let tuple = nested.nesting == NestingMode::List && block_ty.has_dynamic_types();
            let unknown_ty = if tuple {
                Type::Dynamic
            } else if nested.nesting == NestingMode::List {
                Type::list(block_ty.clone())
            } else {
                Type::set(block_ty.clone())
            };
            let mut items = Vec::new();
            let mut ranges = Vec::new();
            for block in blocks {
                let value = decode_object(&block.body, &nested.block, &block.env, diags)
                    .mark(block.env.marks);
                // A block generated from an unknown for_each makes the
                // whole collection unknown.
                if block.env.unknown {
                    return Value::unknown(unknown_ty);
                }
                items.push(value);
                ranges.push(block.body.missing_item_range());
            }
            check_item_count(name, nested, &ranges, missing, diags);
            if tuple {
                return Value::tuple(items);
            }
            collect_blocks(name, nested.nesting, block_ty, items, &ranges, diags)
        }
        NestingMode::Map => {
            let object = block_ty.has_dynamic_types();
            let mut items: BTreeMap<String, Value> = BTreeMap::new();
            for block in blocks {
                if block.env.unknown {
                    return Value::unknown(if object {
                        Type::Dynamic
                    } else {
                        Type::map(block_ty)
                    });
                }
                let value = decode_object(&block.body, &nested.block, &block.env, diags)
                    .mark(block.env.marks);
                let key = block.labels.first().cloned().unwrap_or_default();
                if items.contains_key(&key) {
                    let labels: String = block
                        .labels
                        .iter()
                        .map(|l| format!(" {}", quote(l)))
                        .collect();
                    diags.push(
                        Diagnostic::error(
                            format!("Duplicate {name} block"),
                            format!(
                                "A block for {name}{labels} was already defined. The {name} labels must be unique."
                            ),
                        )
                        .with_subject(block.def_range.clone()),
                    );
                    continue;
                }
                items.insert(key, value);
            }
            if object {
                return Value::object(items);
            }
            if items.values().all(|v| *v.ty() == block_ty) {
                Value::map(block_ty, items)
            } else {
                Value::dynamic()
            }
        }
    }
}

/// OpenTofu's `NestedBlock.EmptyValue` for a group: its block with every
/// attribute null and nested collections empty.
fn group_empty_value(schema: &Block) -> Value {
    let mut values: BTreeMap<String, Value> = schema
        .attributes
        .iter()
        .map(|(name, a)| (name.clone(), Value::null(a.implied_type())))
        .collect();
    for (name, nested) in &schema.block_types {
        if values.contains_key(name) {
            continue;
        }
        let ty = nested.block.implied_type();
        let value = match nested.nesting {
            NestingMode::Single => Value::null(ty),
            NestingMode::Group => group_empty_value(&nested.block),
            NestingMode::List if ty.has_dynamic_types() => Value::empty_tuple(),
            NestingMode::List => Value::list(ty, Vec::new()),
            NestingMode::Map if ty.has_dynamic_types() => Value::empty_object(),
            NestingMode::Map => Value::map(ty, BTreeMap::new()),
            NestingMode::Set => Value::set(ty, Vec::new()),
        };
        values.insert(name.clone(), value);
    }
    Value::object(values)
}

fn check_item_count(
    name: &str,
    nested: &NestedBlock,
    ranges: &[SourceRange],
    missing: &SourceRange,
    diags: &mut Diagnostics,
) {
    let count = ranges.len() as i64;
    if count < nested.min_items {
        diags.push(
            Diagnostic::error(
                format!("Insufficient {name} blocks"),
                format!(
                    "At least {} {} blocks are required.",
                    nested.min_items,
                    quote(name)
                ),
            )
            .with_subject(missing.clone()),
        );
    } else if nested.max_items > 0 && count > nested.max_items {
        let subject = usize::try_from(nested.max_items)
            .ok()
            .and_then(|i| ranges.get(i))
            .cloned()
            .unwrap_or_else(|| missing.clone());
        diags.push(
            Diagnostic::error(
                format!("Too many {name} blocks"),
                format!(
                    "No more than {} {} blocks are allowed",
                    nested.max_items,
                    quote(name)
                ),
            )
            .with_subject(subject),
        );
    }
}

/// A list or set of decoded blocks, unified to one element type as
/// `BlockListSpec`/`BlockSetSpec` do.
fn collect_blocks(
    name: &str,
    nesting: NestingMode,
    block_ty: Type,
    items: Vec<Value>,
    ranges: &[SourceRange],
    diags: &mut Diagnostics,
) -> Value {
    let make = |ety: Type, items: Vec<Value>| {
        if nesting == NestingMode::Set {
            Value::set(ety, items)
        } else {
            Value::list(ety, items)
        }
    };
    if items.is_empty() {
        return make(block_ty, items);
    }
    let inconsistent = |detail: String, range: Option<&SourceRange>| {
        let mut d = Diagnostic::error(
            format!("Unconsistent argument types in {name} blocks"),
            detail,
        );
        if let Some(range) = range {
            d = d.with_subject(range.clone());
        }
        d
    };
    let types: Vec<Type> = items.iter().map(|v| v.ty().clone()).collect();
    let Some(ety) = terrace_value::unify::unify(&types, true) else {
        diags.push(inconsistent(
            "Corresponding attributes in all blocks of this type must be the same.".to_string(),
            ranges.first(),
        ));
        return Value::dynamic();
    };
    let mut converted = Vec::with_capacity(items.len());
    for (i, item) in items.into_iter().enumerate() {
        match convert(&item, &ety) {
            Ok(v) => converted.push(v),
            Err(e) => {
                diags.push(inconsistent(
                    format!(
                        "Block with index {i} has inconsistent argument types: {}.",
                        e.message
                    ),
                    ranges.get(i),
                ));
                return Value::dynamic();
            }
        }
    }
    make(ety, converted)
}

// ----- dynamic blocks -----

/// What a `dynamic` block says, once its arguments are decoded.
struct DynamicSpec {
    block_type: String,
    iterator: String,
    for_each: Value,
    labels: Vec<Expression>,
    content: Body,
    def_range: SourceRange,
    type_range: SourceRange,
}

/// HCL's `expandBody.expandBlocks`: literal blocks pass through with this
/// body's iterators; each `dynamic` block becomes one block per `for_each`
/// element, or one unknown block when `for_each` is unknown.
fn expand_blocks<'a>(
    raw: &[crate::body::Block],
    schema: &BodySchema,
    env: &Env<'a>,
    diags: &mut Diagnostics,
) -> Vec<Expanded<'a>> {
    let mut out = Vec::new();
    for block in raw {
        if block.block_type != "dynamic" {
            out.push(Expanded {
                block_type: block.block_type.clone(),
                labels: block.labels.clone(),
                body: block.body.clone(),
                def_range: block.def_range.clone(),
                type_range: block.type_range.clone(),
                env: env.static_child(),
            });
            continue;
        }
        let Some(real_type) = block.labels.first() else {
            continue;
        };
        let label_range = block
            .label_ranges
            .first()
            .cloned()
            .unwrap_or_else(|| block.def_range.clone());
        let Some(header) = schema.blocks.iter().find(|h| h.block_type == *real_type) else {
            diags.push(
                Diagnostic::error(
                    "Unsupported block type",
                    format!("Blocks of type {} are not expected here.", quote(real_type)),
                )
                .with_subject(label_range),
            );
            continue;
        };
        let Some(spec) = decode_dynamic_spec(block, header, label_range, env, diags) else {
            continue;
        };
        let (for_each, marks) = spec.for_each.clone().unmark();
        if for_each.is_known() {
            for (key, value) in iterate(&for_each) {
                let child = env.with_iterator(&spec.iterator, key, value, marks, env.unknown);
                if let Some(expanded) = new_block(&spec, child, diags) {
                    out.push(expanded);
                }
            }
        } else {
            let child = env.with_iterator(
                &spec.iterator,
                Value::dynamic(),
                Value::dynamic(),
                marks,
                true,
            );
            if let Some(expanded) = new_block(&spec, child, diags) {
                out.push(expanded);
            }
        }
    }
    out
}

/// The (key, value) pairs a `for_each` iterates: list and tuple indexes,
/// map keys and object attribute names, set elements as their own keys.
fn iterate(value: &Value) -> Vec<(Value, Value)> {
    if let Some(items) = value.as_elements() {
        let is_set = value.ty().is_set();
        return items
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let key = if is_set {
                    v.clone()
                } else {
                    Value::int(i as i64)
                };
                (key, v.clone())
            })
            .collect();
    }
    value
        .as_attributes()
        .map(|m| {
            m.iter()
                .map(|(k, v)| (Value::string(k), v.clone()))
                .collect()
        })
        .unwrap_or_default()
}

fn traversal_range(file: &SourceFile, traversal: &Traversal) -> SourceRange {
    let end = match traversal.steps.last() {
        Some(TraversalStep::Attr { span, .. }) | Some(TraversalStep::Index { span, .. }) => {
            span.end
        }
        None => traversal.root_span.end,
    };
    file.range(Span {
        start: traversal.root_span.start,
        end,
    })
}

fn dynamic_body_schema(labeled: bool) -> BodySchema {
    let schema = BodySchema::new().required_attr("for_each").attr("iterator");
    let schema = if labeled {
        schema.required_attr("labels")
    } else {
        schema
    };
    schema.block("content")
}

/// HCL's `decodeSpec`: the `dynamic` block's own arguments. None (with
/// diagnostics) when the block cannot be expanded.
fn decode_dynamic_spec(
    block: &crate::body::Block,
    header: &BlockHeaderSchema,
    type_range: SourceRange,
    env: &Env<'_>,
    diags: &mut Diagnostics,
) -> Option<DynamicSpec> {
    let (content, more) = block
        .body
        .content(&dynamic_body_schema(!header.label_names.is_empty()));
    let failed = terrace_syntax::diagnostic::has_errors(&more);
    diags.extend(more);
    if failed {
        return None;
    }

    let mut iterator = header.block_type.clone();
    if let Some(attr) = content.attribute("iterator") {
        let traversal = match attr.expr.abs_traversal() {
            Ok(t) => t,
            Err(d) => {
                diags.extend(d);
                return None;
            }
        };
        if !traversal.steps.is_empty() {
            diags.push(
                Diagnostic::error(
                    "Invalid dynamic iterator name",
                    "Dynamic iterator must be a single variable name.",
                )
                .with_subject(traversal_range(attr.expr.file(), &traversal)),
            );
            return None;
        }
        iterator = traversal.root;
    }

    let for_each_attr = content.attribute("for_each")?;
    let (for_each, more) = env.evaluate(&for_each_attr.expr);
    let failed = terrace_syntax::diagnostic::has_errors(&more);
    diags.extend(more);
    if failed {
        return None;
    }
    let subject = for_each_attr.expr.range();
    let unmarked_ty = for_each.ty();
    let iterable = unmarked_ty.is_collection() || unmarked_ty.is_structural();
    if !iterable && !unmarked_ty.is_dynamic() {
        diags.push(
            Diagnostic::error(
                "Invalid dynamic for_each value",
                format!(
                    "Cannot use a {} value in for_each. An iterable collection is required.",
                    unmarked_ty.friendly_name()
                ),
            )
            .with_subject(subject),
        );
        return None;
    }
    if for_each.is_null() {
        diags.push(
            Diagnostic::error(
                "Invalid dynamic for_each value",
                "Cannot use a null value in for_each.",
            )
            .with_subject(subject),
        );
        return None;
    }

    let mut labels = Vec::new();
    if let Some(attr) = content.attribute("labels") {
        labels = match attr.expr.list() {
            Ok(l) => l,
            Err(d) => {
                diags.extend(d);
                return None;
            }
        };
        let wanted = header.label_names.len();
        if labels.len() != wanted {
            let (summary, subject) = if labels.len() > wanted {
                ("Extraneous dynamic block label", labels[wanted].range())
            } else {
                ("Insufficient dynamic block labels", attr.expr.range())
            };
            diags.push(
                Diagnostic::error(
                    summary,
                    format!(
                        "Blocks of type {} require {wanted} label(s).",
                        quote(&header.block_type)
                    ),
                )
                .with_subject(subject),
            );
            return None;
        }
    }

    match content.blocks.as_slice() {
        [] => {
            diags.push(
                Diagnostic::error(
                    "Missing dynamic content block",
                    "A dynamic block must have a nested block of type \"content\" to describe the body of each generated block.",
                )
                .with_subject(content.missing_item_range.clone()),
            );
            None
        }
        [only] => Some(DynamicSpec {
            block_type: header.block_type.clone(),
            iterator,
            for_each,
            labels,
            content: only.body.clone(),
            def_range: block.def_range.clone(),
            type_range,
        }),
        [_, second, ..] => {
            diags.push(
                Diagnostic::error(
                    "Extraneous dynamic content block",
                    "Only one nested content block is allowed for each dynamic block.",
                )
                .with_subject(second.def_range.clone()),
            );
            None
        }
    }
}

/// HCL's `expandSpec.newBlock`: one generated block, its labels evaluated
/// with the iterator in scope.
fn new_block<'a>(
    spec: &DynamicSpec,
    env: Env<'a>,
    diags: &mut Diagnostics,
) -> Option<Expanded<'a>> {
    let mut labels = Vec::new();
    for expr in &spec.labels {
        let (value, more) = env.evaluate(expr);
        let failed = terrace_syntax::diagnostic::has_errors(&more);
        diags.extend(more);
        if failed {
            return None;
        }
        let invalid = |detail: String| {
            Diagnostic::error("Invalid dynamic block label", detail).with_subject(expr.range())
        };
        let value = match convert(&value, &Type::String) {
            Ok(v) => v,
            Err(e) => {
                diags.push(invalid(format!(
                    "Cannot use this value as a dynamic block label: {}.",
                    e.message
                )));
                return None;
            }
        };
        if value.is_null() {
            diags.push(invalid(
                "Cannot use a null value as a dynamic block label.".to_string(),
            ));
            return None;
        }
        if !value.is_known() {
            diags.push(invalid(
                "This value is not yet known. Dynamic block labels must be immediately-known values.".to_string(),
            ));
            return None;
        }
        if value.is_marked() {
            diags.push(invalid(
                "This value has dynamic marks that make it unsuitable for use as a block label."
                    .to_string(),
            ));
            return None;
        }
        labels.push(value.as_str().unwrap_or_default().to_string());
    }
    Some(Expanded {
        block_type: spec.block_type.clone(),
        labels,
        body: spec.content.clone(),
        def_range: spec.def_range.clone(),
        type_range: spec.type_range.clone(),
        env,
    })
}

// ----- reference walk -----

/// HCL's `dynblock.WalkVariables` under OpenTofu's `blocktoattr`
/// `ExpandedVariables`: visits every expression the decode could evaluate
/// with the iterator names that are not references there.
fn walk_expressions(
    body: &Body,
    schema: &Block,
    names: &[String],
    visit: &mut dyn FnMut(&Expression, &[String]),
) {
    let ambiguous = ambiguous_names(schema);
    let mut hcl_schema = BodySchema::new();
    for (name, attribute) in &schema.attributes {
        if ambiguous.contains(name.as_str())
            && !has_attribute(body, name)
            && appears_as_block(body, name)
        {
            hcl_schema.blocks.push(header(name, &[]));
        } else {
            hcl_schema.attributes.push(AttributeSchema {
                name: name.clone(),
                required: attribute.required,
            });
        }
    }
    for (name, nested) in &schema.block_types {
        if !schema.attributes.contains_key(name) {
            hcl_schema.blocks.push(nested_header(name, nested));
        }
    }
    hcl_schema.blocks.push(dynamic_header());
    let (content, _, _) = body.partial_content(&hcl_schema);
    for attr in &content.attributes {
        visit(&attr.expr, names);
    }
    for block in &content.blocks {
        if block.block_type != "dynamic" {
            walk_child(&block.block_type, &block.body, schema, names, visit);
            continue;
        }
        let Some(block_type) = block.labels.first() else {
            continue;
        };
        let inner_schema = BodySchema::new()
            .attr("for_each")
            .attr("labels")
            .attr("iterator")
            .block("content");
        let (inner, _, _) = block.body.partial_content(&inner_schema);
        let iterator = match inner.attribute("iterator") {
            None => block_type.clone(),
            Some(attr) => match attr.expr.as_traversal() {
                Some(t) => t.root,
                None => continue,
            },
        };
        if let Some(attr) = inner.attribute("for_each") {
            visit(&attr.expr, names);
        }
        let mut child_names = names.to_vec();
        child_names.push(iterator);
        if let Some(attr) = inner.attribute("labels") {
            visit(&attr.expr, &child_names);
        }
        for content_block in &inner.blocks {
            walk_child(block_type, &content_block.body, schema, &child_names, visit);
        }
    }
}

fn walk_child(
    block_type: &str,
    body: &Body,
    schema: &Block,
    names: &[String],
    visit: &mut dyn FnMut(&Expression, &[String]),
) {
    if let Some(nested) = schema.block_types.get(block_type) {
        walk_expressions(body, &nested.block, names, visit);
    } else if let Some(ety) = schema
        .attributes
        .get(block_type)
        .and_then(attribute_element_type)
    {
        walk_expressions(body, &schema_for_element_type(ety), names, visit);
    }
}

/// Whether an ambiguous name is written as blocks, literal or `dynamic`,
/// before expansion.
fn appears_as_block(body: &Body, name: &str) -> bool {
    let (content, _, _) = body.partial_content(&BodySchema::new().block(name));
    if !content.blocks.is_empty() {
        return true;
    }
    let (content, _, _) =
        body.partial_content(&BodySchema::new().labeled_block("dynamic", &["type"]));
    content
        .blocks
        .iter()
        .any(|b| b.labels.first().is_some_and(|l| l == name))
}

#[cfg(test)]
mod tests;
