//! Bodies decoded against a schema, as HCL's `hcl.Body` does for both
//! syntaxes: `content` (everything must match the schema), `partial_content`
//! (the rest is returned as a body for a later decoder, such as a provider's
//! own schema) and `just_attributes` (`locals`, module arguments).
//!
//! A JSON object cannot say whether a property is an argument or a block
//! until a schema is applied, so JSON bodies stay raw until then; blocks
//! with labels are read from nested objects as HCL's JSON syntax defines.
//! Two combinations exist besides the plain bodies: `merged` joins bodies
//! that must not repeat an argument (a `_` escaping block and the body it
//! sits in, HCL's `MergeBodies`), and `with_override` lays an override
//! file's body over its base (OpenTofu's override merge: arguments replace,
//! a block type present in the override hides that type in the base).

use crate::expr::Expression;
use std::collections::BTreeSet;
use std::sync::{Arc, OnceLock};
use terrace_syntax::ast::{
    Block as SyntaxBlock, Body as SyntaxBody, File, JsonProperty, JsonValue, JsonValueKind,
    NativeBody, SourceFile,
};
use terrace_syntax::{levenshtein, Diagnostic, Diagnostics, SourceRange, Span};
use terrace_value::gostr::quote;

#[derive(Clone, Debug, Default)]
pub struct BodySchema {
    pub attributes: Vec<AttributeSchema>,
    pub blocks: Vec<BlockHeaderSchema>,
}

#[derive(Clone, Debug)]
pub struct AttributeSchema {
    pub name: String,
    pub required: bool,
}

#[derive(Clone, Debug)]
pub struct BlockHeaderSchema {
    pub block_type: String,
    pub label_names: Vec<String>,
}

impl BodySchema {
    pub fn new() -> BodySchema {
        BodySchema::default()
    }

    pub fn attr(mut self, name: &str) -> BodySchema {
        self.attributes.push(AttributeSchema {
            name: name.to_string(),
            required: false,
        });
        self
    }

    pub fn required_attr(mut self, name: &str) -> BodySchema {
        self.attributes.push(AttributeSchema {
            name: name.to_string(),
            required: true,
        });
        self
    }

    pub fn block(self, block_type: &str) -> BodySchema {
        self.labeled_block(block_type, &[])
    }

    pub fn labeled_block(mut self, block_type: &str, labels: &[&str]) -> BodySchema {
        self.blocks.push(BlockHeaderSchema {
            block_type: block_type.to_string(),
            label_names: labels.iter().map(|l| l.to_string()).collect(),
        });
        self
    }

    /// The schema with no attribute required (OpenTofu's
    /// `SchemaForOverrides`): override files may set any subset.
    pub fn for_overrides(&self) -> BodySchema {
        BodySchema {
            attributes: self
                .attributes
                .iter()
                .map(|a| AttributeSchema {
                    name: a.name.clone(),
                    required: false,
                })
                .collect(),
            blocks: self.blocks.clone(),
        }
    }

    /// The schema plus `dynamic` blocks, so an override merge sees them.
    fn with_dynamic(&self) -> BodySchema {
        let mut s = self.clone();
        s.blocks.push(BlockHeaderSchema {
            block_type: "dynamic".into(),
            label_names: vec!["type".into()],
        });
        s
    }
}

/// An argument: `name = expr` in native syntax, a property in JSON.
#[derive(Clone, Debug)]
pub struct Attribute {
    pub name: String,
    pub expr: Expression,
    /// The whole argument, name through value.
    pub range: SourceRange,
    pub name_range: SourceRange,
}

/// A block: its type, labels and body, with HCL's ranges.
#[derive(Clone, Debug)]
pub struct Block {
    pub block_type: String,
    pub labels: Vec<String>,
    pub body: Body,
    /// The header: type through last label (native), or the opening brace
    /// of the object (JSON).
    pub def_range: SourceRange,
    pub type_range: SourceRange,
    pub label_ranges: Vec<SourceRange>,
}

#[derive(Clone, Debug)]
pub struct BodyContent {
    /// In source order; each name at most once.
    pub attributes: Vec<Attribute>,
    pub blocks: Vec<Block>,
    pub missing_item_range: SourceRange,
}

impl BodyContent {
    pub fn attribute(&self, name: &str) -> Option<&Attribute> {
        self.attributes.iter().find(|a| a.name == name)
    }

    fn set_attribute(&mut self, attr: Attribute) {
        match self.attributes.iter_mut().find(|a| a.name == attr.name) {
            Some(existing) => *existing = attr,
            None => self.attributes.push(attr),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Body(Kind);

#[derive(Clone, Debug)]
enum Kind {
    Native {
        file: Arc<SourceFile>,
        body: Arc<NativeBody>,
        hidden_attrs: Arc<BTreeSet<String>>,
        hidden_blocks: Arc<BTreeSet<String>>,
        /// The expression of each of `body`'s attributes, by index, made
        /// on first use and shared by every body derived from this one:
        /// a body is decoded many times (validation, references, planning
        /// each instance), and each decode would otherwise copy the
        /// expression's syntax tree and analyse it afresh.
        expressions: Arc<[OnceLock<Expression>]>,
    },
    Json {
        file: Arc<SourceFile>,
        value: Arc<JsonValue>,
        hidden: Arc<BTreeSet<String>>,
    },
    /// HCL's `MergeBodies`.
    Merged(Vec<Body>),
    /// OpenTofu's override merge.
    Override { base: Box<Body>, over: Box<Body> },
}

impl Body {
    /// The root body of a parsed file.
    pub fn from_file(file: &File) -> Body {
        match &file.body {
            SyntaxBody::Native(b) => Body::native(&file.source, b.clone()),
            SyntaxBody::Json(b) => Body::json(
                &file.source,
                JsonValue {
                    kind: JsonValueKind::Object(b.properties.clone()),
                    span: b.span,
                },
            ),
        }
    }

    /// [`Body::from_file`] for a file the caller is done with: the syntax
    /// tree moves into the body instead of being copied (a 50 MB
    /// variables file's tree is gigabytes).
    pub fn from_file_owned(file: File) -> Body {
        match file.body {
            SyntaxBody::Native(b) => Body::native(&file.source, b),
            SyntaxBody::Json(b) => Body::json(
                &file.source,
                JsonValue {
                    kind: JsonValueKind::Object(b.properties),
                    span: b.span,
                },
            ),
        }
    }

    fn from_syntax(file: &Arc<SourceFile>, body: &SyntaxBody) -> Body {
        match body {
            SyntaxBody::Native(b) => Body::native(file, b.clone()),
            SyntaxBody::Json(b) => Body::json(
                file,
                JsonValue {
                    kind: JsonValueKind::Object(b.properties.clone()),
                    span: b.span,
                },
            ),
        }
    }

    pub fn native(file: &Arc<SourceFile>, body: NativeBody) -> Body {
        Body(Kind::Native {
            file: file.clone(),
            expressions: (0..body.attributes.len())
                .map(|_| OnceLock::new())
                .collect(),
            body: Arc::new(body),
            hidden_attrs: Arc::default(),
            hidden_blocks: Arc::default(),
        })
    }

    pub fn json(file: &Arc<SourceFile>, value: JsonValue) -> Body {
        Body(Kind::Json {
            file: file.clone(),
            value: Arc::new(value),
            hidden: Arc::default(),
        })
    }

    pub fn empty() -> Body {
        Body(Kind::Merged(Vec::new()))
    }

    /// HCL's `MergeBodies`: arguments may be given in only one of them.
    pub fn merged(bodies: Vec<Body>) -> Body {
        let mut flat = Vec::new();
        for b in bodies {
            match b.0 {
                Kind::Merged(children) => flat.extend(children),
                other => flat.push(Body(other)),
            }
        }
        Body(Kind::Merged(flat))
    }

    /// `over` laid over `base` as an override file's content replaces the
    /// base's.
    pub fn with_override(base: Body, over: Body) -> Body {
        Body(Kind::Override {
            base: Box::new(base),
            over: Box::new(over),
        })
    }

    pub fn is_json(&self) -> bool {
        match &self.0 {
            Kind::Json { .. } => true,
            Kind::Native { .. } => false,
            Kind::Merged(bodies) => bodies.first().is_some_and(Body::is_json),
            Kind::Override { base, .. } => base.is_json(),
        }
    }

    /// Where a diagnostic about something missing from the body points.
    pub fn missing_item_range(&self) -> SourceRange {
        match &self.0 {
            Kind::Native { file, body, .. } => file.range(Span {
                start: body.span.start,
                end: body.span.start,
            }),
            Kind::Json { file, value, .. } => match &value.kind {
                JsonValueKind::Object(_) => {
                    let end = value.span.end;
                    file.range(Span {
                        start: end.saturating_sub(1).max(value.span.start),
                        end,
                    })
                }
                _ => file.range(first_char_span(file, value.span)),
            },
            Kind::Merged(bodies) => match bodies.first() {
                Some(b) => b.missing_item_range(),
                None => SourceRange {
                    filename: "<empty>".into(),
                    ..SourceRange::default()
                },
            },
            Kind::Override { base, .. } => base.missing_item_range(),
        }
    }

    /// Decodes the body against `schema`, reporting anything the schema
    /// does not allow.
    pub fn content(&self, schema: &BodySchema) -> (BodyContent, Diagnostics) {
        match &self.0 {
            Kind::Native { .. } => {
                let (content, remain, mut diags) = self.partial_content(schema);
                diags.extend(remain.native_leftovers(schema, &content));
                (content, diags)
            }
            Kind::Json { .. } => {
                let (content, remain, mut diags) = self.partial_content(schema);
                diags.extend(remain.json_leftovers(schema));
                (content, diags)
            }
            Kind::Merged(bodies) => {
                let (content, _, diags) = merged_content(bodies, schema, false);
                (content, diags)
            }
            Kind::Override { base, over } => {
                let (content, _, diags) = override_content(base, over, schema);
                (content, diags)
            }
        }
    }

    /// Decodes what `schema` describes and returns the rest as a body.
    pub fn partial_content(&self, schema: &BodySchema) -> (BodyContent, Body, Diagnostics) {
        match &self.0 {
            Kind::Native {
                file,
                body,
                hidden_attrs,
                hidden_blocks,
                expressions,
            } => native_partial(file, body, hidden_attrs, hidden_blocks, expressions, schema),
            Kind::Json {
                file,
                value,
                hidden,
            } => json_partial(file, value, hidden, schema),
            Kind::Merged(bodies) => merged_content(bodies, schema, true),
            Kind::Override { base, over } => override_content(base, over, schema),
        }
    }

    /// Every argument of the body; blocks are errors.
    /// [`Body::just_attributes`] of a body nothing else shares (one made
    /// by [`Body::from_file_owned`]): the expressions move out of the
    /// syntax tree instead of being copied from it.
    pub fn into_attributes(self) -> (Vec<Attribute>, Diagnostics) {
        let Kind::Native {
            file,
            body,
            hidden_attrs,
            hidden_blocks,
            expressions,
        } = self.0
        else {
            return self.just_attributes();
        };
        let body = match Arc::try_unwrap(body) {
            Ok(body) => body,
            Err(body) => {
                return Body(Kind::Native {
                    file,
                    body,
                    hidden_attrs,
                    hidden_blocks,
                    expressions,
                })
                .just_attributes()
            }
        };
        let diags = unexpected_block(&file, &body, &hidden_blocks);
        let attrs = body
            .attributes
            .into_iter()
            .filter(|a| !hidden_attrs.contains(&a.name))
            .map(|a| Attribute {
                range: file.range(a.span),
                name_range: file.range(a.name_span),
                expr: Expression::native(&file, a.expr),
                name: a.name,
            })
            .collect();
        (attrs, diags)
    }

    pub fn just_attributes(&self) -> (Vec<Attribute>, Diagnostics) {
        match &self.0 {
            Kind::Native {
                file,
                body,
                hidden_attrs,
                hidden_blocks,
                expressions,
                ..
            } => {
                let diags = unexpected_block(file, body, hidden_blocks);
                let attrs = body
                    .attributes
                    .iter()
                    .enumerate()
                    .filter(|(_, a)| !hidden_attrs.contains(&a.name))
                    .map(|(index, a)| native_attribute(file, a, expressions.get(index)))
                    .collect();
                (attrs, diags)
            }
            Kind::Json {
                file,
                value,
                hidden,
            } => {
                let JsonValueKind::Object(props) = &value.kind else {
                    return (
                        Vec::new(),
                        vec![Diagnostic::error(
                            "Incorrect JSON value type",
                            "A JSON object is required here, setting the arguments for this block.",
                        )
                        .with_subject(file.range(first_char_span(file, value.span)))],
                    );
                };
                let mut diags = Vec::new();
                let mut attrs: Vec<Attribute> = Vec::new();
                for p in props {
                    if p.name == "//" || hidden.contains(&p.name) {
                        continue;
                    }
                    if let Some(existing) = attrs.iter().find(|a| a.name == p.name) {
                        diags.push(
                            Diagnostic::error(
                                "Duplicate attribute definition",
                                format!(
                                    "The argument {} was already set at {}.",
                                    quote(&p.name),
                                    existing.range
                                ),
                            )
                            .with_subject(file.range(p.name_span)),
                        );
                        continue;
                    }
                    attrs.push(json_attribute(file, p));
                }
                (attrs, diags)
            }
            Kind::Merged(bodies) => {
                let mut diags = Vec::new();
                let mut attrs: Vec<Attribute> = Vec::new();
                for b in bodies {
                    let (these, d) = b.just_attributes();
                    diags.extend(d);
                    for a in these {
                        if let Some(existing) = attrs.iter().find(|e| e.name == a.name) {
                            diags.push(duplicate_argument(&a, existing));
                            continue;
                        }
                        attrs.push(a);
                    }
                }
                (attrs, diags)
            }
            Kind::Override { base, over } => {
                let (mut attrs, mut diags) = base.just_attributes();
                let (over_attrs, d) = over.just_attributes();
                diags.extend(d);
                for a in over_attrs {
                    match attrs.iter_mut().find(|e| e.name == a.name) {
                        Some(e) => *e = a,
                        None => attrs.push(a),
                    }
                }
                (attrs, diags)
            }
        }
    }

    /// Errors for what a native body's `partial_content` left over.
    fn native_leftovers(&self, schema: &BodySchema, content: &BodyContent) -> Diagnostics {
        let Kind::Native {
            file,
            body,
            hidden_attrs,
            hidden_blocks,
            ..
        } = &self.0
        else {
            return Vec::new();
        };
        let mut diags = Vec::new();
        for attr in &body.attributes {
            if hidden_attrs.contains(&attr.name) {
                continue;
            }
            let candidates: Vec<&str> = schema
                .attributes
                .iter()
                .filter(|s| content.attribute(&s.name).is_none())
                .map(|s| s.name.as_str())
                .collect();
            let suggestion = match name_suggestion(&attr.name, &candidates) {
                Some(s) => format!(" Did you mean {}?", quote(s)),
                None if schema.blocks.iter().any(|b| b.block_type == attr.name) => format!(
                    " Did you mean to define a block of type {}?",
                    quote(&attr.name)
                ),
                None => String::new(),
            };
            diags.push(
                Diagnostic::error(
                    "Unsupported argument",
                    format!(
                        "An argument named {} is not expected here.{suggestion}",
                        quote(&attr.name)
                    ),
                )
                .with_subject(file.range(attr.name_span)),
            );
        }
        for block in &body.blocks {
            if hidden_blocks.contains(&block.block_type) {
                continue;
            }
            let candidates: Vec<&str> = schema
                .blocks
                .iter()
                .map(|b| b.block_type.as_str())
                .collect();
            let suggestion = match name_suggestion(&block.block_type, &candidates) {
                Some(s) => format!(" Did you mean {}?", quote(s)),
                None if schema.attributes.iter().any(|a| a.name == block.block_type) => format!(
                    " Did you mean to define argument {}? If so, use the equals sign to assign it a value.",
                    quote(&block.block_type)
                ),
                None => String::new(),
            };
            diags.push(
                Diagnostic::error(
                    "Unsupported block type",
                    format!(
                        "Blocks of type {} are not expected here.{suggestion}",
                        quote(&block.block_type)
                    ),
                )
                .with_subject(file.range(block.type_span)),
            );
        }
        diags
    }

    /// Errors for what a JSON body's `partial_content` left over.
    fn json_leftovers(&self, schema: &BodySchema) -> Diagnostics {
        let Kind::Json {
            file,
            value,
            hidden,
        } = &self.0
        else {
            return Vec::new();
        };
        let mut candidates: Vec<&str> = schema
            .attributes
            .iter()
            .filter(|a| !hidden.contains(&a.name))
            .map(|a| a.name.as_str())
            .collect();
        candidates.extend(schema.blocks.iter().map(|b| b.block_type.as_str()));
        let mut ignored = Vec::new();
        let mut diags = Vec::new();
        for p in collect_deep_attrs(file, value, None, &mut ignored) {
            if p.name == "//" || hidden.contains(&p.name) {
                continue;
            }
            let suggestion = match name_suggestion(&p.name, &candidates) {
                Some(s) => format!(" Did you mean {}?", quote(s)),
                None => String::new(),
            };
            diags.push(
                Diagnostic::error(
                    "Extraneous JSON object property",
                    format!(
                        "No argument or block type is named {}.{suggestion}",
                        quote(&p.name)
                    ),
                )
                .with_subject(file.range(p.name_span))
                .with_context(file.range(p.name_span.to(p.value.span))),
            );
        }
        diags
    }
}

fn duplicate_argument(attr: &Attribute, existing: &Attribute) -> Diagnostic {
    Diagnostic::error(
        "Duplicate argument",
        format!(
            "Argument {} was already set at {}",
            quote(&attr.name),
            existing.name_range
        ),
    )
    .with_subject(attr.name_range.clone())
}

/// HCL's "did you mean": the first candidate closer than three edits.
pub(crate) fn name_suggestion<'a>(given: &str, candidates: &[&'a str]) -> Option<&'a str> {
    candidates
        .iter()
        .copied()
        .find(|c| levenshtein(given, c) < 3)
}

fn first_char_span(file: &SourceFile, span: Span) -> Span {
    let start = span.start as usize;
    let len = file
        .text
        .get(start..)
        .and_then(|s| s.chars().next())
        .map(char::len_utf8)
        .unwrap_or(0);
    Span::new(start, (start + len).min(span.end as usize))
}

/// The error for the first block in a body that may only have attributes;
/// blocks a partial decode already took are not this decoder's (HCL hides
/// them too).
fn unexpected_block(
    file: &SourceFile,
    body: &NativeBody,
    hidden_blocks: &BTreeSet<String>,
) -> Diagnostics {
    body.blocks
        .iter()
        .find(|b| !hidden_blocks.contains(&b.block_type))
        .map(|block| {
            Diagnostic::error(
                format!("Unexpected {} block", quote(&block.block_type)),
                "Blocks are not allowed here.",
            )
            .with_subject(file.range(block.type_span))
        })
        .into_iter()
        .collect()
}

fn native_attribute(
    file: &Arc<SourceFile>,
    a: &terrace_syntax::ast::Attribute,
    cached: Option<&OnceLock<Expression>>,
) -> Attribute {
    let make = || Expression::native(file, a.expr.clone());
    let expr = match cached {
        Some(cell) => cell.get_or_init(make).clone(),
        None => make(),
    };
    Attribute {
        name: a.name.clone(),
        expr,
        range: file.range(a.span),
        name_range: file.range(a.name_span),
    }
}

fn json_attribute(file: &Arc<SourceFile>, p: &JsonProperty) -> Attribute {
    Attribute {
        name: p.name.clone(),
        expr: Expression::json(file, p.value.clone()),
        range: file.range(p.name_span.to(p.value.span)),
        name_range: file.range(p.name_span),
    }
}

fn native_partial(
    file: &Arc<SourceFile>,
    body: &Arc<NativeBody>,
    hidden_attrs: &BTreeSet<String>,
    hidden_blocks: &BTreeSet<String>,
    expressions: &Arc<[OnceLock<Expression>]>,
    schema: &BodySchema,
) -> (BodyContent, Body, Diagnostics) {
    let mut diags = Vec::new();
    let mut new_hidden_attrs = hidden_attrs.clone();
    let mut new_hidden_blocks = hidden_blocks.clone();
    let missing = file.range(Span {
        start: body.span.start,
        end: body.span.start,
    });
    let mut content = BodyContent {
        attributes: Vec::new(),
        blocks: Vec::new(),
        missing_item_range: missing.clone(),
    };
    for attr_schema in &schema.attributes {
        let found = body
            .attributes
            .iter()
            .find(|a| a.name == attr_schema.name)
            .filter(|a| !hidden_attrs.contains(&a.name));
        match found {
            Some(a) => {
                new_hidden_attrs.insert(a.name.clone());
            }
            None if attr_schema.required => diags.push(
                Diagnostic::error(
                    "Missing required argument",
                    format!(
                        "The argument {} is required, but no definition was found.",
                        quote(&attr_schema.name)
                    ),
                )
                .with_subject(missing.clone()),
            ),
            None => {}
        }
    }
    // Source order for the claimed attributes.
    for (index, a) in body.attributes.iter().enumerate() {
        if !hidden_attrs.contains(&a.name) && schema.attributes.iter().any(|s| s.name == a.name) {
            content
                .attributes
                .push(native_attribute(file, a, expressions.get(index)));
        }
    }
    for block in &body.blocks {
        if hidden_blocks.contains(&block.block_type) {
            continue;
        }
        let Some(block_schema) = schema
            .blocks
            .iter()
            .find(|b| b.block_type == block.block_type)
        else {
            continue;
        };
        match native_block(file, block, block_schema) {
            Ok(b) => content.blocks.push(b),
            Err(d) => diags.push(*d),
        }
    }
    for b in &schema.blocks {
        new_hidden_blocks.insert(b.block_type.clone());
    }
    let remain = Body(Kind::Native {
        file: file.clone(),
        body: body.clone(),
        hidden_attrs: Arc::new(new_hidden_attrs),
        hidden_blocks: Arc::new(new_hidden_blocks),
        expressions: expressions.clone(),
    });
    (content, remain, diags)
}

fn native_block(
    file: &Arc<SourceFile>,
    block: &SyntaxBlock,
    schema: &BlockHeaderSchema,
) -> Result<Block, Box<Diagnostic>> {
    let header_context = file.range(block.type_span.to(block.open_brace_span));
    let wanted = schema.label_names.len();
    if block.labels.len() > wanted {
        let name = &block.block_type;
        let detail = if wanted == 0 {
            format!("No labels are expected for {name} blocks.")
        } else {
            format!(
                "Only {wanted} labels ({}) are expected for {name} blocks.",
                schema.label_names.join(", ")
            )
        };
        let subject = block
            .labels
            .get(wanted)
            .map(|(_, s)| *s)
            .unwrap_or(block.type_span);
        return Err(Box::new(
            Diagnostic::error(format!("Extraneous label for {name}"), detail)
                .with_subject(file.range(subject))
                .with_context(header_context),
        ));
    }
    if block.labels.len() < wanted {
        let name = &block.block_type;
        let missing_label = &schema.label_names[block.labels.len()];
        return Err(Box::new(
            Diagnostic::error(
                format!("Missing {missing_label} for {name}"),
                format!(
                    "All {name} blocks must have {wanted} labels ({}).",
                    schema.label_names.join(", ")
                ),
            )
            .with_subject(file.range(block.open_brace_span))
            .with_context(header_context),
        ));
    }
    let last = block
        .labels
        .last()
        .map(|(_, s)| *s)
        .unwrap_or(block.type_span);
    Ok(Block {
        block_type: block.block_type.clone(),
        labels: block.labels.iter().map(|(l, _)| l.clone()).collect(),
        body: Body::from_syntax(file, &block.body),
        def_range: file.range(block.type_span.to(last)),
        type_range: file.range(block.type_span),
        label_ranges: block.labels.iter().map(|(_, s)| file.range(*s)).collect(),
    })
}

/// The properties of an object, or of every object in an array, as HCL's
/// JSON syntax reads a body or a level of block labels.
fn collect_deep_attrs<'v>(
    file: &SourceFile,
    value: &'v JsonValue,
    label_name: Option<&str>,
    diags: &mut Diagnostics,
) -> Vec<&'v JsonProperty> {
    let mut out = Vec::new();
    match &value.kind {
        JsonValueKind::Null => {}
        JsonValueKind::Object(props) => out.extend(props.iter()),
        JsonValueKind::Array(items) => {
            for item in items {
                match &item.kind {
                    JsonValueKind::Object(props) => out.extend(props.iter()),
                    _ => {
                        let detail = match label_name {
                            Some(l) => format!("A JSON object is required here, to specify {l} labels for this block."),
                            None => "A JSON object is required here, to define arguments and child blocks.".to_string(),
                        };
                        diags.push(
                            Diagnostic::error("Incorrect JSON value type", detail)
                                .with_subject(file.range(first_char_span(file, item.span))),
                        );
                    }
                }
            }
        }
        _ => {
            let detail = match label_name {
                Some(l) => format!("Either a JSON object or JSON array of objects is required here, to specify {l} labels for this block."),
                None => "Either a JSON object or JSON array of objects is required here, to define arguments and child blocks.".to_string(),
            };
            diags.push(
                Diagnostic::error("Incorrect JSON value type", detail)
                    .with_subject(file.range(first_char_span(file, value.span))),
            );
        }
    }
    out
}

fn json_partial(
    file: &Arc<SourceFile>,
    value: &Arc<JsonValue>,
    hidden: &BTreeSet<String>,
    schema: &BodySchema,
) -> (BodyContent, Body, Diagnostics) {
    let mut diags = Vec::new();
    let props = collect_deep_attrs(file, value, None, &mut diags);
    let mut used = hidden.clone();
    let body = Body(Kind::Json {
        file: file.clone(),
        value: value.clone(),
        hidden: Arc::default(),
    });
    let mut content = BodyContent {
        attributes: Vec::new(),
        blocks: Vec::new(),
        missing_item_range: body.missing_item_range(),
    };
    for p in props {
        if hidden.contains(&p.name) {
            continue;
        }
        if schema.attributes.iter().any(|a| a.name == p.name) {
            if let Some(existing) = content.attribute(&p.name) {
                diags.push(
                    Diagnostic::error(
                        "Duplicate argument",
                        format!(
                            "The argument {} was already set at {}.",
                            quote(&p.name),
                            existing.range
                        ),
                    )
                    .with_subject(file.range(p.name_span))
                    .with_context(file.range(p.name_span.to(p.value.span))),
                );
                continue;
            }
            content.attributes.push(json_attribute(file, p));
            used.insert(p.name.clone());
        } else if let Some(block_schema) = schema.blocks.iter().find(|b| b.block_type == p.name) {
            let type_range = file.range(p.name_span);
            unpack_json_block(
                file,
                &p.value,
                &block_schema.block_type,
                &type_range,
                &block_schema.label_names,
                &mut Vec::new(),
                &mut content.blocks,
                &mut diags,
            );
            used.insert(p.name.clone());
        }
    }
    for a in &schema.attributes {
        if a.required && content.attribute(&a.name).is_none() {
            diags.push(
                Diagnostic::error(
                    "Missing required argument",
                    format!(
                        "The argument {} is required, but no definition was found.",
                        quote(&a.name)
                    ),
                )
                .with_subject(content.missing_item_range.clone()),
            );
        }
    }
    let remain = Body(Kind::Json {
        file: file.clone(),
        value: value.clone(),
        hidden: Arc::new(used),
    });
    (content, remain, diags)
}

#[allow(clippy::too_many_arguments)]
fn unpack_json_block(
    file: &Arc<SourceFile>,
    value: &JsonValue,
    type_name: &str,
    type_range: &SourceRange,
    labels_left: &[String],
    labels_used: &mut Vec<(String, SourceRange)>,
    blocks: &mut Vec<Block>,
    diags: &mut Diagnostics,
) {
    if let Some((label_name, rest)) = labels_left.split_first() {
        let props = collect_deep_attrs(file, value, Some(label_name), diags);
        if props.is_empty() {
            diags.push(
                Diagnostic::error(
                    "Missing block label",
                    format!("At least one object property is required, whose name represents the {type_name} block's {label_name}."),
                )
                .with_subject(file.range(first_char_span(file, value.span))),
            );
            return;
        }
        for p in props {
            labels_used.push((p.name.clone(), file.range(p.name_span)));
            unpack_json_block(
                file,
                &p.value,
                type_name,
                type_range,
                rest,
                labels_used,
                blocks,
                diags,
            );
            labels_used.pop();
        }
        return;
    }
    let make = |v: &JsonValue, def_span: Span| Block {
        block_type: type_name.to_string(),
        labels: labels_used.iter().map(|(l, _)| l.clone()).collect(),
        body: Body::json(file, v.clone()),
        def_range: file.range(first_char_span(file, def_span)),
        type_range: type_range.clone(),
        label_ranges: labels_used.iter().map(|(_, r)| r.clone()).collect(),
    };
    match &value.kind {
        JsonValueKind::Null => {}
        JsonValueKind::Object(_) => blocks.push(make(value, value.span)),
        JsonValueKind::Array(items) => {
            for item in items {
                blocks.push(make(item, value.span));
            }
        }
        _ => diags.push(
            Diagnostic::error(
                "Incorrect JSON value type",
                format!("Either a JSON object or a JSON array is required, representing the contents of one or more {} blocks.", quote(type_name)),
            )
            .with_subject(file.range(first_char_span(file, value.span))),
        ),
    }
}

fn merged_content(
    bodies: &[Body],
    schema: &BodySchema,
    partial: bool,
) -> (BodyContent, Body, Diagnostics) {
    let merged_schema = schema.for_overrides();
    let mut content = BodyContent {
        attributes: Vec::new(),
        blocks: Vec::new(),
        missing_item_range: bodies
            .first()
            .map(Body::missing_item_range)
            .unwrap_or_default(),
    };
    let mut leftovers = Vec::new();
    let mut diags = Vec::new();
    for body in bodies {
        let (this, d) = if partial {
            let (c, remain, d) = body.partial_content(&merged_schema);
            leftovers.push(remain);
            (c, d)
        } else {
            body.content(&merged_schema)
        };
        diags.extend(d);
        for a in this.attributes {
            if let Some(existing) = content.attribute(&a.name) {
                diags.push(duplicate_argument(&a, existing));
                continue;
            }
            content.attributes.push(a);
        }
        content.blocks.extend(this.blocks);
    }
    for a in &schema.attributes {
        if a.required && content.attribute(&a.name).is_none() {
            diags.push(Diagnostic::error(
                "Missing required argument",
                format!(
                    "The argument {} is required, but was not set.",
                    quote(&a.name)
                ),
            ));
        }
    }
    (content, Body::merged(leftovers), diags)
}

fn override_content(
    base: &Body,
    over: &Body,
    schema: &BodySchema,
) -> (BodyContent, Body, Diagnostics) {
    let base_schema = schema.with_dynamic();
    let over_schema = schema.for_overrides().with_dynamic();
    let (base_content, base_remain, mut diags) = base.partial_content(&base_schema);
    let (over_content, over_remain, d) = over.partial_content(&over_schema);
    diags.extend(d);
    let mut content = BodyContent {
        attributes: base_content.attributes,
        blocks: Vec::new(),
        missing_item_range: base_content.missing_item_range,
    };
    for a in over_content.attributes {
        content.set_attribute(a);
    }
    let overridden: BTreeSet<&str> = over_content
        .blocks
        .iter()
        .map(|b| {
            if b.block_type == "dynamic" {
                b.labels.first().map(String::as_str).unwrap_or("")
            } else {
                b.block_type.as_str()
            }
        })
        .collect();
    for b in base_content.blocks {
        let effective = if b.block_type == "dynamic" {
            b.labels.first().map(String::as_str).unwrap_or("")
        } else {
            b.block_type.as_str()
        };
        if overridden.contains(effective) {
            continue;
        }
        content.blocks.push(b);
    }
    content.blocks.extend(over_content.blocks);
    (
        content,
        Body::with_override(base_remain, over_remain),
        diags,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn native(src: &str) -> Body {
        let (file, diags) = terrace_syntax::parse_native_file("t.tf", src);
        assert!(diags.is_empty(), "{diags:?}");
        Body::from_file(&file)
    }

    fn json(src: &str) -> Body {
        let (file, diags) = terrace_syntax::parse_json_file("t.tf.json", src);
        assert!(diags.is_empty(), "{diags:?}");
        Body::from_file(&file)
    }

    fn summaries(diags: &[Diagnostic]) -> Vec<String> {
        diags
            .iter()
            .map(|d| format!("{}: {}", d.summary, d.detail))
            .collect()
    }

    fn schema() -> BodySchema {
        BodySchema::new()
            .attr("count")
            .required_attr("source")
            .block("lifecycle")
            .labeled_block("provisioner", &["type"])
    }

    #[test]
    fn native_content_and_leftovers() {
        let body = native("source = 1\ncont = 2\nlifecycl {}\nprovisioner \"a\" \"b\" {}\nprovisioner {}\ncount {}\n");
        let (content, diags) = body.content(&schema());
        assert_eq!(content.attributes.len(), 1);
        assert_eq!(
            summaries(&diags),
            [
                "Extraneous label for provisioner: Only 1 labels (type) are expected for provisioner blocks.",
                "Missing type for provisioner: All provisioner blocks must have 1 labels (type).",
                "Unsupported argument: An argument named \"cont\" is not expected here. Did you mean \"count\"?",
                "Unsupported block type: Blocks of type \"lifecycl\" are not expected here. Did you mean \"lifecycle\"?",
                "Unsupported block type: Blocks of type \"count\" are not expected here. Did you mean to define argument \"count\"? If so, use the equals sign to assign it a value.",
            ]
        );
        let (_, diags) = native("").content(&schema());
        assert_eq!(
            summaries(&diags),
            ["Missing required argument: The argument \"source\" is required, but no definition was found."]
        );
    }

    #[test]
    fn partial_content_leaves_the_rest() {
        let body = native("source = 1\nami = 2\nebs {}\nlifecycle {}\n");
        let (content, remain, diags) = body.partial_content(&schema());
        assert!(diags.is_empty());
        assert_eq!(content.blocks.len(), 1);
        let (attrs, diags) = remain.just_attributes();
        assert_eq!(
            attrs.iter().map(|a| a.name.as_str()).collect::<Vec<_>>(),
            ["ami"]
        );
        assert_eq!(
            summaries(&diags),
            ["Unexpected \"ebs\" block: Blocks are not allowed here."]
        );
    }

    /// A block a partial decode took is not an error of the arguments
    /// decoded from the rest, even when it comes first.
    #[test]
    fn just_attributes_skips_blocks_a_partial_decode_took() {
        let body = native("endpoints {\n  kms = \"x\"\n}\nregion = \"r\"\n");
        let (content, remain, diags) = body.partial_content(&BodySchema::new().block("endpoints"));
        assert!(diags.is_empty());
        assert_eq!(content.blocks.len(), 1);
        let (attrs, diags) = remain.just_attributes();
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(
            attrs.iter().map(|a| a.name.as_str()).collect::<Vec<_>>(),
            ["region"]
        );
    }

    #[test]
    fn json_blocks_with_labels() {
        let body = json(
            r#"{"resource": {"aws_instance": {"a": {"ami": "x"}, "b": [{"ami": "y"}, {"ami": "z"}]}}, "//": "comment", "bogus": 1}"#,
        );
        let schema = BodySchema::new().labeled_block("resource", &["type", "name"]);
        let (content, diags) = body.content(&schema);
        let labels: Vec<String> = content.blocks.iter().map(|b| b.labels.join(".")).collect();
        assert_eq!(
            labels,
            ["aws_instance.a", "aws_instance.b", "aws_instance.b"]
        );
        assert_eq!(
            summaries(&diags),
            ["Extraneous JSON object property: No argument or block type is named \"bogus\"."]
        );
        let (_, diags) = json(r#"{"resource": {}}"#).content(&schema);
        assert_eq!(
            summaries(&diags),
            ["Missing block label: At least one object property is required, whose name represents the resource block's type."]
        );
        let (_, diags) = json(r#"{"resource": {"a": {"b": 1}}}"#).content(&schema);
        assert_eq!(diags[0].summary, "Incorrect JSON value type");
    }

    #[test]
    fn json_duplicates_and_required() {
        let body = json(r#"{"count": 1, "count": 2}"#);
        let (_, diags) = body.content(&schema());
        assert_eq!(diags[0].summary, "Duplicate argument");
        assert_eq!(diags[1].summary, "Missing required argument");
    }

    #[test]
    fn merged_and_override_bodies() {
        let a = native("x = 1\ny = 2\nb {}\n");
        let b = native("y = 3\n");
        let merged = Body::merged(vec![a.clone(), b.clone()]);
        let (attrs, diags) = merged.just_attributes();
        assert_eq!(attrs.len(), 2);
        assert_eq!(diags.len(), 2);
        assert!(diags.iter().any(|d| d.summary == "Duplicate argument"));

        let over = native("y = 9\nb { z = 1 }\nb {}\n");
        let body = Body::with_override(a, over);
        let schema = BodySchema::new().attr("x").attr("y").block("b");
        let (content, diags) = body.content(&schema);
        assert!(diags.is_empty());
        let y = content.attribute("y").map(|a| a.range.start.line);
        assert_eq!(y, Some(1));
        assert_eq!(content.blocks.len(), 2);
        let _ = b;
    }
}
