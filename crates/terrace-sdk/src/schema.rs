//! Schemas as provider authors write them: attributes with their flags and
//! the behaviour the protocol has no field for (defaults, force-new,
//! validators, conflicts), and nested blocks. `BlockSpec::to_block` gives
//! the protocol's schema model, which is what Terraform sees.

use crate::validators::Validator;
use std::collections::BTreeMap;
use std::sync::Arc;
use terrace_providers::{Attribute, Block, NestedBlock, NestingMode, StringKind};
use terrace_value::{Type, Value};

/// One attribute: its type, flags and behaviour.
#[derive(Clone)]
pub struct Attr {
    pub(crate) ty: Type,
    pub(crate) required: bool,
    pub(crate) optional: bool,
    pub(crate) computed: bool,
    pub(crate) sensitive: bool,
    pub(crate) write_only: bool,
    pub(crate) description: String,
    pub(crate) description_kind: StringKind,
    pub(crate) deprecation: Option<String>,
    pub(crate) default: Option<Value>,
    pub(crate) force_new: bool,
    /// A number that must be a whole number within i64.
    pub(crate) integer: bool,
    pub(crate) validators: Vec<Arc<dyn Validator>>,
    pub(crate) conflicts_with: Vec<String>,
}

impl std::fmt::Debug for Attr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Attr")
            .field("ty", &self.ty)
            .field("required", &self.required)
            .field("optional", &self.optional)
            .field("computed", &self.computed)
            .field("default", &self.default)
            .field("force_new", &self.force_new)
            .finish_non_exhaustive()
    }
}

impl Attr {
    /// An attribute of any cty type, with every flag off.
    pub fn typed(ty: Type) -> Attr {
        Attr {
            ty,
            required: false,
            optional: false,
            computed: false,
            sensitive: false,
            write_only: false,
            description: String::new(),
            description_kind: StringKind::Plain,
            deprecation: None,
            default: None,
            force_new: false,
            integer: false,
            validators: Vec::new(),
            conflicts_with: Vec::new(),
        }
    }

    pub fn string() -> Attr {
        Attr::typed(Type::String)
    }

    pub fn number() -> Attr {
        Attr::typed(Type::Number)
    }

    /// A number attribute that accepts only whole numbers that fit in an
    /// `i64` (the Go SDKs' `Int64` and `TypeInt`).
    pub fn int64() -> Attr {
        Attr {
            integer: true,
            ..Attr::typed(Type::Number)
        }
    }

    pub fn bool() -> Attr {
        Attr::typed(Type::Bool)
    }

    pub fn list(element: Type) -> Attr {
        Attr::typed(Type::list(element))
    }

    pub fn set(element: Type) -> Attr {
        Attr::typed(Type::set(element))
    }

    pub fn map(element: Type) -> Attr {
        Attr::typed(Type::map(element))
    }

    pub fn required(mut self) -> Attr {
        self.required = true;
        self
    }

    pub fn optional(mut self) -> Attr {
        self.optional = true;
        self
    }

    pub fn computed(mut self) -> Attr {
        self.computed = true;
        self
    }

    pub fn sensitive(mut self) -> Attr {
        self.sensitive = true;
        self
    }

    /// Accepted in configuration but never stored in plan or state.
    pub fn write_only(mut self) -> Attr {
        self.write_only = true;
        self
    }

    pub fn description(mut self, text: impl Into<String>) -> Attr {
        self.description = text.into();
        self
    }

    pub fn markdown_description(mut self, text: impl Into<String>) -> Attr {
        self.description = text.into();
        self.description_kind = StringKind::Markdown;
        self
    }

    /// Marks the attribute deprecated; setting it warns with `message`.
    pub fn deprecated(mut self, message: impl Into<String>) -> Attr {
        self.deprecation = Some(message.into());
        self
    }

    /// The value planned when the configuration leaves the attribute out.
    /// Only optional and computed attributes may have one: Terraform
    /// requires every other planned value to equal the configuration.
    pub fn default(mut self, value: Value) -> Attr {
        self.default = Some(value);
        self
    }

    /// A change to this attribute replaces the object.
    pub fn force_new(mut self) -> Attr {
        self.force_new = true;
        self
    }

    /// Checks known, non-null configuration values.
    pub fn validate(mut self, validator: impl Validator + 'static) -> Attr {
        self.validators.push(Arc::new(validator));
        self
    }

    /// Names sibling attributes that may not be set together with this one.
    pub fn conflicts_with(mut self, names: &[&str]) -> Attr {
        self.conflicts_with
            .extend(names.iter().map(|name| name.to_string()));
        self
    }

    pub fn ty(&self) -> &Type {
        &self.ty
    }

    pub fn is_required(&self) -> bool {
        self.required
    }

    pub fn is_optional(&self) -> bool {
        self.optional
    }

    pub fn is_computed(&self) -> bool {
        self.computed
    }

    pub fn is_force_new(&self) -> bool {
        self.force_new
    }

    pub fn default_value(&self) -> Option<&Value> {
        self.default.as_ref()
    }

    /// Set by the provider only: not in configuration at all.
    pub(crate) fn is_computed_only(&self) -> bool {
        self.computed && !self.optional && !self.required
    }

    pub fn to_attribute(&self) -> Attribute {
        Attribute {
            description: self.description.clone(),
            description_kind: self.description_kind,
            required: self.required,
            optional: self.optional,
            computed: self.computed,
            sensitive: self.sensitive,
            deprecated: self.deprecation.is_some(),
            write_only: self.write_only,
            ..Attribute::new(self.ty.clone())
        }
    }
}

/// A body of attributes and nested blocks: a provider's configuration, a
/// resource type, a data source, or a nested block.
#[derive(Clone, Debug, Default)]
pub struct BlockSpec {
    pub(crate) attributes: BTreeMap<String, Attr>,
    pub(crate) blocks: BTreeMap<String, NestedBlockSpec>,
    pub(crate) description: String,
    pub(crate) description_kind: StringKind,
    pub(crate) deprecation: Option<String>,
}

impl BlockSpec {
    pub fn new() -> BlockSpec {
        BlockSpec::default()
    }

    pub fn attr(mut self, name: impl Into<String>, attr: Attr) -> BlockSpec {
        self.attributes.insert(name.into(), attr);
        self
    }

    pub fn block(mut self, name: impl Into<String>, block: NestedBlockSpec) -> BlockSpec {
        self.blocks.insert(name.into(), block);
        self
    }

    pub fn description(mut self, text: impl Into<String>) -> BlockSpec {
        self.description = text.into();
        self
    }

    pub fn markdown_description(mut self, text: impl Into<String>) -> BlockSpec {
        self.description = text.into();
        self.description_kind = StringKind::Markdown;
        self
    }

    pub fn deprecated(mut self, message: impl Into<String>) -> BlockSpec {
        self.deprecation = Some(message.into());
        self
    }

    pub fn attributes(&self) -> &BTreeMap<String, Attr> {
        &self.attributes
    }

    pub fn blocks(&self) -> &BTreeMap<String, NestedBlockSpec> {
        &self.blocks
    }

    pub fn get_attr(&self, name: &str) -> Option<&Attr> {
        self.attributes.get(name)
    }

    /// The protocol's schema for this body.
    pub fn to_block(&self) -> Block {
        Block {
            attributes: self
                .attributes
                .iter()
                .map(|(name, attr)| (name.clone(), attr.to_attribute()))
                .collect(),
            block_types: self
                .blocks
                .iter()
                .map(|(name, nested)| (name.clone(), nested.to_nested_block()))
                .collect(),
            description: self.description.clone(),
            description_kind: self.description_kind,
            deprecated: self.deprecation.is_some(),
        }
    }

    /// The object type of this body's values.
    pub fn implied_type(&self) -> Type {
        self.to_block().implied_type()
    }

    /// Whether any attribute, at any depth, is force-new.
    pub(crate) fn contains_force_new(&self) -> bool {
        self.attributes.values().any(|attr| attr.force_new)
            || self
                .blocks
                .values()
                .any(|nested| nested.force_new || nested.block.contains_force_new())
    }

    /// Whether any attribute at any depth can be set in configuration.
    pub(crate) fn has_configurable(&self) -> bool {
        self.attributes
            .values()
            .any(|attr| attr.required || attr.optional)
            || !self.blocks.is_empty()
    }
}

/// A nested block type: how often it may appear and what it holds.
#[derive(Clone, Debug)]
pub struct NestedBlockSpec {
    pub(crate) nesting: NestingMode,
    pub(crate) block: BlockSpec,
    pub(crate) min_items: i64,
    pub(crate) max_items: i64,
    pub(crate) force_new: bool,
}

impl NestedBlockSpec {
    pub fn new(nesting: NestingMode, block: BlockSpec) -> NestedBlockSpec {
        NestedBlockSpec {
            nesting,
            block,
            min_items: 0,
            max_items: 0,
            force_new: false,
        }
    }

    pub fn single(block: BlockSpec) -> NestedBlockSpec {
        NestedBlockSpec::new(NestingMode::Single, block)
    }

    pub fn list(block: BlockSpec) -> NestedBlockSpec {
        NestedBlockSpec::new(NestingMode::List, block)
    }

    pub fn set(block: BlockSpec) -> NestedBlockSpec {
        NestedBlockSpec::new(NestingMode::Set, block)
    }

    /// Blocks with one label each, collected by label.
    pub fn map(block: BlockSpec) -> NestedBlockSpec {
        NestedBlockSpec::new(NestingMode::Map, block)
    }

    pub fn min_items(mut self, n: i64) -> NestedBlockSpec {
        self.min_items = n;
        self
    }

    pub fn max_items(mut self, n: i64) -> NestedBlockSpec {
        self.max_items = n;
        self
    }

    /// Any change inside these blocks replaces the object.
    pub fn force_new(mut self) -> NestedBlockSpec {
        self.force_new = true;
        self
    }

    pub fn to_nested_block(&self) -> NestedBlock {
        NestedBlock {
            nesting: self.nesting,
            block: self.block.to_block(),
            min_items: self.min_items,
            max_items: self.max_items,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_become_protocol_schemas() {
        let spec = BlockSpec::new()
            .description("A thing.")
            .attr("name", Attr::string().required().force_new())
            .attr(
                "size",
                Attr::int64().optional().computed().default(Value::int(3)),
            )
            .attr("secret", Attr::string().computed().sensitive())
            .block(
                "rule",
                NestedBlockSpec::list(BlockSpec::new().attr("port", Attr::number().required()))
                    .max_items(2),
            );
        let block = spec.to_block();
        assert_eq!(block.description, "A thing.");
        let name = &block.attributes["name"];
        assert!(name.required && !name.optional && !name.computed);
        let size = &block.attributes["size"];
        assert!(size.optional && size.computed);
        assert!(block.attributes["secret"].sensitive);
        assert_eq!(block.block_types["rule"].max_items, 2);
        assert_eq!(
            spec.implied_type().type_string(),
            "object({name=string,rule=list(object({port=number})),secret=string,size=number})"
        );
        assert!(spec.contains_force_new());
        assert!(spec.has_configurable());
        assert!(!BlockSpec::new()
            .attr("id", Attr::string().computed())
            .has_configurable());
    }
}
