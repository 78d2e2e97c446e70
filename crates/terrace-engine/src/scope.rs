//! The evaluation scope of one module instance (and, inside a resource or
//! module call, one of its instances): `var.`, `local.`, resources,
//! `module.` outputs, `path.`, `terraform.`, `count.`, `each.` and
//! `self`, all answered from the walk's [`Values`] with one lookup.

use crate::model::Model;
use crate::values::{EachKind, Repetition, Values};
use crate::Context;
use std::collections::BTreeMap;
use std::path::Path;
use terrace_addrs::{InstanceKey as AddrKey, ModuleInstance};
use terrace_config::loader::Config;
use terrace_lang::references::{parse_ref, ResourceMode, Subject};
use terrace_lang::scope::{Lookup, Scope};
use terrace_syntax::ast::{SourceFile, Traversal};
use terrace_syntax::{Diagnostic, Diagnostics};
use terrace_value::{Marks, Type, Value};

/// What every scope of one walk shares.
pub(crate) struct Env<'a> {
    pub ctx: &'a Context,
    pub model: Model<'a>,
    pub values: Values,
    /// RFC 3339 time of the run.
    pub now: String,
    pub applying: bool,
    /// Validate walk: impure functions are unknown, nothing is expanded.
    pub validating: bool,
    /// Provider instances serving `provider::NAME::FUNC` calls.
    pub functions: crate::functions::ProviderFunctions,
    /// The statuses of custom conditions this walk evaluated.
    pub checks: crate::checks::CheckTracker,
    /// Failed resource preconditions and postconditions are warnings: a
    /// refresh-only plan, or the refresh before a destroy, changes nothing
    /// a condition could guard.
    pub resource_conditions_warn: bool,
}

impl<'a> Env<'a> {
    pub fn scope<'s>(
        &'s self,
        config: &'s Config,
        module: ModuleInstance,
        rep: Repetition,
    ) -> EvalScope<'s, 'a> {
        EvalScope {
            env: self,
            config,
            module,
            rep,
            self_value: None,
            validated_variable: None,
        }
    }
}

pub(crate) struct EvalScope<'s, 'a> {
    pub env: &'s Env<'a>,
    pub config: &'s Config,
    pub module: ModuleInstance,
    pub rep: Repetition,
    pub self_value: Option<Value>,
    /// The variable whose `validation` rules are being evaluated, with its
    /// final value: those rules see that value even in the validate walk,
    /// where every other variable is unknown.
    pub validated_variable: Option<(String, Value)>,
}

fn failed(file: &SourceFile, t: &Traversal, summary: &str, detail: String) -> Lookup {
    let span = t
        .steps
        .first()
        .map(|s| t.root_span.to(s.span()))
        .unwrap_or(t.root_span);
    Lookup::Failed(vec![
        Diagnostic::error(summary, detail).with_subject(file.range(span))
    ])
}

/// What a variable stands for in the validate walk: an unknown value of its
/// type, with the marks its declaration gives every value.
fn validation_variable_value(decl: &terrace_config::model::Variable) -> Value {
    let mut marks = Marks::NONE;
    if decl.sensitive {
        marks = marks.union(Marks::SENSITIVE);
    }
    if decl.ephemeral {
        marks = marks.union(Marks::EPHEMERAL);
    }
    Value::unknown(decl.ty.clone()).mark(marks)
}

fn module_display(m: &ModuleInstance) -> String {
    if m.is_root() {
        "the root module".to_string()
    } else {
        m.module().to_string()
    }
}

impl EvalScope<'_, '_> {
    fn module_call_value(&self, call: &str) -> Value {
        let Some(child) = self.config.children.get(call) else {
            return Value::dynamic();
        };
        let names: Vec<String> = child.module.outputs.keys().cloned().collect();
        if self.env.validating {
            // Nothing is expanded while validating: an unknown value that
            // still knows which outputs exist and how the call repeats.
            let object = Type::object(names.into_iter().map(|n| (n, Type::Dynamic)));
            let call = self.config.module.module_calls.get(call);
            let ty = match call {
                Some(c) if c.count.is_some() => Type::list(object),
                Some(c) if c.for_each.is_some() => Type::map(object),
                _ => object,
            };
            return Value::unknown(ty);
        }
        let values = &self.env.values;
        let Some(kind) = values.call_kind(&self.module, call) else {
            return Value::dynamic();
        };
        let static_child = self.module.module().child(call);
        let instances = values.module_instances(&static_child);
        let mine = instances.iter().filter(|i| i.parent() == self.module);
        match kind {
            EachKind::Single => {
                let child = self.module.child(call, AddrKey::None);
                values.module_object(&child, &names)
            }
            EachKind::Count => {
                Value::tuple(mine.map(|i| values.module_object(i, &names)).collect())
            }
            EachKind::ForEach => {
                let mut attrs = BTreeMap::new();
                for i in mine {
                    if let Some(step) = i.steps().last() {
                        if let AddrKey::String(k) = &step.key {
                            attrs.insert(k.to_string(), values.module_object(i, &names));
                        }
                    }
                }
                Value::object(attrs)
            }
        }
    }
}

impl EvalScope<'_, '_> {
    /// terraform's static checks of a reference to a declared resource:
    /// an instance key exactly where the block repeats, and a first
    /// attribute its schema has.
    fn static_resource_problems(
        &self,
        r: &terrace_lang::references::Reference,
        res: &terrace_lang::references::ResourceAddr,
        key: &str,
        file: &SourceFile,
    ) -> Diagnostics {
        let module = &self.config.module;
        let block = match res.mode {
            ResourceMode::Managed => module.managed_resources.get(key),
            ResourceMode::Data => module.data_resources.get(key),
            ResourceMode::Ephemeral => module.ephemeral_resources.get(key),
        };
        let Some(block) = block else {
            return Diagnostics::new();
        };
        let subject = file.range(r.span);
        let mut problems = Diagnostics::new();
        let keyed = matches!(
            &r.subject,
            Subject::ResourceInstance { key, .. }
                if *key != terrace_lang::references::InstanceKey::None
        );
        let repeated = block.count.is_some() || block.for_each.is_some();
        match (keyed, repeated) {
            (false, true) if !r.remaining.is_empty() => {
                if block.count.is_some() {
                    problems.push(Diagnostic::error(
                        "Missing resource instance key",
                        format!("Because {res} has \"count\" set, its attributes must be accessed on specific instances.\n\nFor example, to correlate with indices of a referring resource, use:\n    {res}[count.index]"),
                    ).with_subject(subject.clone()));
                }
                if block.for_each.is_some() {
                    problems.push(Diagnostic::error(
                        "Missing resource instance key",
                        format!("Because {res} has \"for_each\" set, its attributes must be accessed on specific instances.\n\nFor example, to correlate with indices of a referring resource, use:\n    {res}[each.key]"),
                    ).with_subject(subject.clone()));
                }
            }
            (true, false) => {
                problems.push(Diagnostic::error(
                    "Unexpected resource instance key",
                    format!("Because {res} does not have \"count\" or \"for_each\" set, references to it must not include an index key. Remove the bracketed index to refer to the single instance of this resource."),
                ).with_subject(subject.clone()));
            }
            _ => {}
        }
        if !problems.is_empty() {
            return problems;
        }
        let Some(terrace_syntax::ast::TraversalStep::Attr { name, span }) = r.remaining.first()
        else {
            return problems;
        };
        let Some(schema) = self.resource_schema(res) else {
            return problems;
        };
        let block = &schema.block;
        if !block.attributes.contains_key(name) && !block.block_types.contains_key(name) {
            let names = block.attributes.keys().chain(block.block_types.keys());
            let suggestion = terrace_lang::eval::suggest_name(name, names.map(String::as_str))
                .map(|s| format!(" Did you mean {s:?}?"))
                .unwrap_or_default();
            problems.push(
                Diagnostic::error(
                    "Unsupported attribute",
                    format!("This object has no argument, nested block, or exported attribute named {name:?}.{suggestion}"),
                )
                .with_subject(file.range(*span)),
            );
        }
        problems
    }
}

impl EvalScope<'_, '_> {
    /// The provider schema of a resource of this scope's module.
    fn resource_schema(
        &self,
        res: &terrace_lang::references::ResourceAddr,
    ) -> Option<std::sync::Arc<terrace_providers::Schema>> {
        let addr = terrace_addrs::Resource::new(
            crate::model::addr_mode(res.mode),
            res.type_name.as_str(),
            res.name.as_str(),
        )
        .in_module(self.module.module());
        self.env
            .model
            .resources
            .get(&addr)
            .and_then(|i| i.schema.clone())
    }

    /// terraform's warning for a reference to an attribute the provider
    /// deprecates, in every walk that evaluates it.
    fn deprecated_attribute(
        &self,
        r: &terrace_lang::references::Reference,
        res: &terrace_lang::references::ResourceAddr,
        file: &SourceFile,
    ) -> Diagnostics {
        if !self.env.model.any_deprecated_attribute {
            return Diagnostics::new();
        }
        let Some(terrace_syntax::ast::TraversalStep::Attr { name, span }) = r.remaining.first()
        else {
            return Diagnostics::new();
        };
        let deprecated = self
            .resource_schema(res)
            .and_then(|s| s.block.attributes.get(name).map(|a| a.deprecated))
            .unwrap_or(false);
        if !deprecated {
            return Diagnostics::new();
        }
        let mut warning = Diagnostic::warning(
            "Deprecated attribute",
            format!("The attribute {name:?} is deprecated. Refer to the provider documentation for details."),
        )
        .with_subject(file.range(*span));
        warning.per_evaluation = true;
        vec![warning]
    }
}

impl Scope for EvalScope<'_, '_> {
    fn lookup(&self, t: &Traversal, file: &SourceFile) -> Lookup {
        let (r, diags): (_, Diagnostics) = parse_ref(t, file);
        let Some(r) = r else {
            return if diags.is_empty() {
                Lookup::NotFound
            } else {
                Lookup::Failed(diags)
            };
        };
        let consumed = t.steps.len().saturating_sub(r.remaining.len());
        let values = &self.env.values;
        let module = &self.config.module;
        match &r.subject {
            Subject::InputVariable(n) => match module.variables.get(n) {
                // Validation covers every value a variable could take, so
                // defaults and call arguments are not looked at: a guard
                // such as `var.name != null ? 1 : 0` must not be decided.
                Some(_) if self.validated_variable.as_ref().is_some_and(|(v, _)| v == n) => {
                    Lookup::Found {
                        value: self
                            .validated_variable
                            .as_ref()
                            .map(|(_, v)| v.clone())
                            .unwrap_or_else(Value::dynamic),
                        consumed,
                    }
                }
                Some(decl) if self.env.validating => Lookup::Found {
                    value: validation_variable_value(decl),
                    consumed,
                },
                Some(decl) => Lookup::Found {
                    value: values
                        .var(&self.module, n)
                        .unwrap_or_else(|| Value::unknown(decl.ty.clone())),
                    consumed,
                },
                None => failed(
                    file,
                    t,
                    "Reference to undeclared input variable",
                    format!("An input variable with the name {n:?} has not been declared. This variable can be declared with a variable {n:?} {{}} block."),
                ),
            },
            Subject::LocalValue(n) => {
                if module.locals.contains_key(n) {
                    Lookup::Found {
                        value: values.local(&self.module, n).unwrap_or_else(Value::dynamic),
                        consumed,
                    }
                } else {
                    failed(
                        file,
                        t,
                        "Reference to undeclared local value",
                        format!("A local value with the name {n:?} has not been declared."),
                    )
                }
            }
            Subject::CountAttr(n) => {
                if n != "index" {
                    return failed(file, t, "Invalid \"count\" attribute", format!("The \"count\" object does not have an attribute named {n:?}. The only supported attribute is count.index, which is the index of each instance of a resource block that has the \"count\" argument set."));
                }
                match &self.rep.count_index {
                    Some(v) => Lookup::Found { value: v.clone(), consumed },
                    None => failed(file, t, "Reference to \"count\" in non-counted context", "The \"count\" object can only be used in \"module\", \"resource\", and \"data\" blocks, and only when the \"count\" argument is set.".into()),
                }
            }
            Subject::ForEachAttr(n) => {
                let v = match n.as_str() {
                    "key" => &self.rep.each_key,
                    "value" => &self.rep.each_value,
                    _ => {
                        return failed(file, t, "Invalid \"each\" attribute", format!("The \"each\" object does not have an attribute named {n:?}. The supported attributes are each.key and each.value, the current key and value pair of the \"for_each\" attribute set."));
                    }
                };
                match v {
                    Some(v) => Lookup::Found { value: v.clone(), consumed },
                    None => failed(file, t, "Reference to \"each\" in context without for_each", "The \"each\" object can be used only in \"module\" or \"resource\" blocks, and only when the \"for_each\" argument is set.".into()),
                }
            }
            Subject::PathAttr(n) => {
                let v = match n.as_str() {
                    "module" => Value::string(self.config.module.source_dir.to_string_lossy()),
                    "root" => Value::string(self.env.ctx.config.module.source_dir.to_string_lossy()),
                    "cwd" => Value::string(self.env.ctx.working_dir.to_string_lossy()),
                    _ => {
                        return failed(file, t, "Invalid \"path\" attribute", format!("The \"path\" object does not have an attribute named {n:?}. The supported attributes are path.cwd, the current working directory, path.module, the path to the current module, and path.root, the path to the root module."));
                    }
                };
                Lookup::Found { value: v, consumed }
            }
            Subject::TerraformAttr(n) => {
                let v = match n.as_str() {
                    "workspace" => Value::string(&self.env.ctx.workspace),
                    "applying" => Value::bool(self.env.applying),
                    _ => {
                        return failed(file, t, "Invalid \"terraform\" attribute", format!("The \"terraform\" object does not have an attribute named {n:?}. The only supported attributes are terraform.workspace, the name of the currently-selected workspace, and terraform.applying, a boolean which is true only during apply."));
                    }
                };
                Lookup::Found { value: v, consumed }
            }
            Subject::SelfObject => match &self.self_value {
                Some(v) => Lookup::Found { value: v.clone(), consumed: 0 },
                None => failed(file, t, "Invalid \"self\" reference", "The \"self\" object is not available in this context. This object can be used only in resource provisioner, connection, and postcondition blocks.".into()),
            },
            Subject::ModuleCall(call) | Subject::ModuleCallInstance { call, .. } => {
                if !module.module_calls.contains_key(call) {
                    return failed(file, t, "Reference to undeclared module", format!("No module call named {call:?} is declared in {}.", module_display(&self.module)));
                }
                Lookup::Found { value: self.module_call_value(call), consumed: 1 }
            }
            Subject::ModuleCallInstanceOutput { call, key, name } => {
                if !module.module_calls.contains_key(call) {
                    return failed(file, t, "Reference to undeclared module", format!("No module call named {call:?} is declared in {}.", module_display(&self.module)));
                }
                let kind = values.call_kind(&self.module, call);
                let direct = match (kind, key) {
                    (Some(EachKind::Single), terrace_lang::references::InstanceKey::None) => {
                        Some(self.module.child(call.as_str(), AddrKey::None))
                    }
                    (Some(EachKind::Count), terrace_lang::references::InstanceKey::Int(i)) => {
                        Some(self.module.child(call.as_str(), AddrKey::Int(*i)))
                    }
                    (Some(EachKind::ForEach), terrace_lang::references::InstanceKey::String(s)) => {
                        Some(self.module.child(call.as_str(), AddrKey::string(s)))
                    }
                    _ => None,
                };
                let declared = self
                    .config
                    .children
                    .get(call)
                    .is_some_and(|c| c.module.outputs.contains_key(name));
                match direct {
                    Some(child) if declared => {
                        let exists = values.module_instances(&child.module()).contains(&child);
                        if !exists {
                            // Let the evaluator report the missing key.
                            return Lookup::Found { value: self.module_call_value(call), consumed: 1 };
                        }
                        Lookup::Found {
                            value: values.output(&child, name).unwrap_or_else(Value::dynamic),
                            consumed,
                        }
                    }
                    _ => Lookup::Found { value: self.module_call_value(call), consumed: 1 },
                }
            }
            Subject::Resource(res) | Subject::ResourceInstance { resource: res, .. } => {
                let key = res.to_string();
                let declared = match res.mode {
                    ResourceMode::Managed => module.managed_resources.contains_key(&key),
                    ResourceMode::Data => module.data_resources.contains_key(&key),
                    ResourceMode::Ephemeral => module.ephemeral_resources.contains_key(&key),
                };
                if !declared {
                    let kind = match res.mode {
                        ResourceMode::Managed => "A managed resource",
                        ResourceMode::Data => "A data resource",
                        ResourceMode::Ephemeral => "An ephemeral resource",
                    };
                    return failed(
                        file,
                        t,
                        "Reference to undeclared resource",
                        format!(
                            "{kind} {:?} {:?} has not been declared in {}.",
                            res.type_name,
                            res.name,
                            module_display(&self.module)
                        ),
                    );
                }
                // The validate walk (which planning runs first) checks the
                // reference against the resource's block and schema, as
                // terraform's static validation does before evaluating.
                if self.env.validating {
                    let problems = self.static_resource_problems(&r, res, &key, file);
                    if !problems.is_empty() {
                        return Lookup::Failed(problems);
                    }
                }
                let consumed = if t.root == res.type_name { 1 } else { 2 };
                let value = values.resource(&self.module, &key).unwrap_or_else(Value::dynamic);
                let warnings = self.deprecated_attribute(&r, res, file);
                if warnings.is_empty() {
                    Lookup::Found { value, consumed }
                } else {
                    Lookup::FoundWithWarnings {
                        value,
                        consumed,
                        warnings,
                    }
                }
            }
            Subject::ProviderFunction { .. } => Lookup::NotFound,
        }
    }

    fn root_names(&self) -> Vec<String> {
        [
            "var",
            "local",
            "path",
            "terraform",
            "module",
            "data",
            "count",
            "each",
            "self",
        ]
        .map(String::from)
        .to_vec()
    }

    fn pure_only(&self) -> bool {
        self.env.validating
    }

    fn base_dir(&self) -> &Path {
        &self.config.module.source_dir
    }

    fn now(&self) -> Option<&str> {
        Some(&self.env.now)
    }

    fn provider_function(
        &self,
        provider: &str,
        name: &str,
    ) -> Result<
        std::sync::Arc<dyn terrace_lang::scope::ExternalFunction>,
        terrace_lang::scope::FunctionLookupError,
    > {
        let module = &self.config.module;
        // Terraform offers provider functions only for providers the
        // module names in required_providers.
        let declared = module.required_providers.providers.contains_key(provider);
        let fqn = match module.provider_for_local_name(provider) {
            Some(f) if declared => f,
            _ => {
                return Err(terrace_lang::scope::undeclared_provider_function(
                    provider, name,
                ))
            }
        };
        if fqn.is_builtin() && fqn.type_name() == "terraform" {
            return terrace_lang::scope::terraform_provider_function(name)
                .ok_or_else(|| terrace_lang::scope::undeclared_provider_function(provider, name));
        }
        self.env
            .functions
            .lookup(self.env.ctx.providers.as_ref(), &fqn, provider, name)
    }
}
