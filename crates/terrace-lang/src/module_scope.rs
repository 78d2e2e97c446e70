//! The scope of one module evaluated statically: input variables with their
//! final values, local values evaluated on first use (so their order of
//! declaration does not matter and a cycle is reported instead of hanging),
//! `path.*` and `terraform.*`, and Terraform's errors for everything that
//! only exists at plan time (resources, module calls, `count`, `each`,
//! `self`). This is the context of `terrace console` and of the static
//! evaluation of provider `for_each`.

use crate::eval::{evaluate, suggest_name};
use crate::references::{parse_ref, ResourceMode, Subject};
use crate::scope::{
    undeclared_provider_function, ExternalFunction, FunctionLookupError, Lookup,
    ProviderFunctionSource, Scope,
};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use terrace_syntax::ast::{Expr, SourceFile, Traversal};
use terrace_syntax::{Diagnostic, Diagnostics};
use terrace_value::Value;

/// A `locals` entry: its expression and the file it is written in.
#[derive(Clone, Debug)]
pub struct LocalDefinition {
    pub expr: Expr,
    pub file: Arc<SourceFile>,
}

enum LocalState {
    InProgress,
    Done(Value),
}

pub struct StaticModuleScope {
    variables: HashMap<String, Value>,
    locals: HashMap<String, LocalDefinition>,
    evaluated_locals: RefCell<HashMap<String, LocalState>>,
    /// Diagnostics from evaluating locals, reported once each.
    local_diagnostics: RefCell<Diagnostics>,
    path_values: Value,
    terraform_values: Value,
    base_dir: PathBuf,
    now: Option<String>,
    /// Functions this context adds to the built-in ones (the console's
    /// `type`).
    functions: HashMap<String, Arc<dyn ExternalFunction>>,
    /// Root module resources known from a state, by `type.name` or
    /// `data.type.name`: each the value a reference to the whole resource
    /// gives (an object, or a tuple or object of instances).
    resources: HashMap<String, Value>,
    /// `provider::NAME::FUNC` functions, where the context offers them.
    provider_functions: Option<Arc<dyn ProviderFunctionSource>>,
}

impl StaticModuleScope {
    /// `module_dir` is the module's directory as Terraform writes
    /// `path.module` (`.` for the root module), `cwd` the absolute working
    /// directory.
    pub fn new(
        variables: HashMap<String, Value>,
        locals: HashMap<String, LocalDefinition>,
        module_dir: &str,
        cwd: &Path,
        workspace: &str,
    ) -> StaticModuleScope {
        let path_values = Value::object(BTreeMap::from([
            ("cwd".to_string(), Value::string(cwd.to_string_lossy())),
            ("module".to_string(), Value::string(module_dir)),
            ("root".to_string(), Value::string(".")),
        ]));
        let terraform_values = Value::object(BTreeMap::from([
            ("applying".to_string(), Value::bool(false)),
            ("workspace".to_string(), Value::string(workspace)),
        ]));
        StaticModuleScope {
            variables,
            locals,
            evaluated_locals: RefCell::new(HashMap::new()),
            local_diagnostics: RefCell::new(Vec::new()),
            path_values,
            terraform_values,
            // Relative, as Terraform passes it, so file function messages
            // name paths the way the user wrote them.
            base_dir: PathBuf::from(module_dir),
            now: None,
            functions: HashMap::new(),
            resources: HashMap::new(),
            provider_functions: None,
        }
    }

    /// Offers the functions of `source`'s providers.
    pub fn with_provider_functions(
        mut self,
        source: Arc<dyn ProviderFunctionSource>,
    ) -> StaticModuleScope {
        self.provider_functions = Some(source);
        self
    }

    /// Values for references to root module resources (see `resources`).
    pub fn with_resources(mut self, resources: HashMap<String, Value>) -> StaticModuleScope {
        self.resources = resources;
        self
    }

    pub fn with_now(mut self, now: impl Into<String>) -> StaticModuleScope {
        self.now = Some(now.into());
        self
    }

    pub fn with_function(
        mut self,
        name: impl Into<String>,
        function: Arc<dyn ExternalFunction>,
    ) -> StaticModuleScope {
        self.functions.insert(name.into(), function);
        self
    }

    /// Evaluates every local value (each once), leaving their diagnostics
    /// for [`StaticModuleScope::take_local_diagnostics`].
    pub fn evaluate_locals(&self) {
        let mut names: Vec<&String> = self.locals.keys().collect();
        names.sort();
        for name in names {
            let Some(definition) = self.locals.get(name) else {
                continue;
            };
            // A reference to the local as written where it is defined.
            let traversal = Traversal {
                root: "local".to_string(),
                root_span: definition.expr.span,
                steps: vec![terrace_syntax::ast::TraversalStep::Attr {
                    name: name.clone(),
                    span: definition.expr.span,
                }],
            };
            let _ = self.local_value(name, &traversal, &definition.file);
        }
    }

    /// Diagnostics found while evaluating local values so far.
    pub fn take_local_diagnostics(&self) -> Diagnostics {
        std::mem::take(&mut *self.local_diagnostics.borrow_mut())
    }

    fn local_value(&self, name: &str, traversal: &Traversal, file: &SourceFile) -> Lookup {
        let Some(definition) = self.locals.get(name) else {
            let mut detail =
                format!("A local value with the name \"{name}\" has not been declared.");
            if let Some(suggestion) = suggest_name(name, self.locals.keys().map(String::as_str)) {
                detail = format!("{detail} Did you mean \"{suggestion}\"?");
            }
            return failed(
                file,
                traversal,
                "Reference to undeclared local value",
                detail,
            );
        };
        match self.evaluated_locals.borrow().get(name) {
            Some(LocalState::Done(value)) => return Lookup::Found { value: value.clone(), consumed: 1 },
            Some(LocalState::InProgress) => {
                return failed(
                    file,
                    traversal,
                    "Cycle in local values",
                    format!("The local value \"{name}\" refers to itself, directly or through other local values."),
                )
            }
            None => {}
        }
        self.evaluated_locals
            .borrow_mut()
            .insert(name.to_string(), LocalState::InProgress);
        let (value, diags) = evaluate(&definition.expr, &definition.file, self);
        // A local that failed is not known, as terraform's console shows
        // it once its errors are reported.
        let value = if terrace_syntax::diagnostic::has_errors(&diags) {
            Value::dynamic()
        } else {
            value
        };
        self.local_diagnostics.borrow_mut().extend(diags);
        self.evaluated_locals
            .borrow_mut()
            .insert(name.to_string(), LocalState::Done(value.clone()));
        Lookup::Found { value, consumed: 1 }
    }
}

fn failed(file: &SourceFile, traversal: &Traversal, summary: &str, detail: String) -> Lookup {
    let span = traversal
        .steps
        .first()
        .map(|s| traversal.root_span.to(s.span()))
        .unwrap_or(traversal.root_span);
    Lookup::Failed(vec![
        Diagnostic::error(summary, detail).with_subject(file.range(span))
    ])
}

fn attribute_of(object: &Value, name: &str) -> Option<Value> {
    object.as_attributes().and_then(|a| a.get(name)).cloned()
}

impl Scope for StaticModuleScope {
    fn lookup(&self, traversal: &Traversal, file: &SourceFile) -> Lookup {
        let (reference, diags) = parse_ref(traversal, file);
        let Some(reference) = reference else {
            return if diags.is_empty() {
                Lookup::NotFound
            } else {
                Lookup::Failed(diags)
            };
        };
        match &reference.subject {
            Subject::InputVariable(name) => match self.variables.get(name) {
                Some(value) => Lookup::Found { value: value.clone(), consumed: 1 },
                None => {
                    let mut detail = format!("An input variable with the name \"{name}\" has not been declared.");
                    match suggest_name(name, self.variables.keys().map(String::as_str)) {
                        Some(suggestion) => detail = format!("{detail} Did you mean \"{suggestion}\"?"),
                        None => {
                            detail = format!("{detail} This variable can be declared with a variable \"{name}\" {{}} block.")
                        }
                    }
                    failed(file, traversal, "Reference to undeclared input variable", detail)
                }
            },
            Subject::LocalValue(name) => self.local_value(name, traversal, file),
            Subject::PathAttr(name) => match attribute_of(&self.path_values, name) {
                Some(value) => Lookup::Found { value, consumed: 1 },
                None => failed(
                    file,
                    traversal,
                    "Invalid \"path\" attribute",
                    format!("The \"path\" object does not have an attribute named \"{name}\"."),
                ),
            },
            Subject::TerraformAttr(name) => match attribute_of(&self.terraform_values, name) {
                Some(value) => Lookup::Found { value, consumed: 1 },
                None => failed(
                    file,
                    traversal,
                    "Invalid \"terraform\" attribute",
                    format!("The \"terraform\" object does not have an attribute named \"{name}\". The only supported attributes are terraform.workspace, the name of the currently-selected workspace, and terraform.applying, a boolean which is true only during apply."),
                ),
            },
            Subject::CountAttr(_) => failed(
                file,
                traversal,
                "Reference to \"count\" in non-counted context",
                "The \"count\" object can only be used in \"module\", \"resource\", and \"data\" blocks, and only when the \"count\" argument is set.".into(),
            ),
            Subject::ForEachAttr(_) => failed(
                file,
                traversal,
                "Reference to \"each\" in context without for_each",
                "The \"each\" object can be used only in \"module\" or \"resource\" blocks, and only when the \"for_each\" argument is set.".into(),
            ),
            Subject::SelfObject => failed(
                file,
                traversal,
                "Invalid \"self\" reference",
                "The \"self\" object is not available in this context. This object can be used only in resource provisioner, connection, and postcondition blocks.".into(),
            ),
            Subject::ModuleCall(call)
            | Subject::ModuleCallInstance { call, .. }
            | Subject::ModuleCallInstanceOutput { call, .. } => failed(
                file,
                traversal,
                "Reference to undeclared module",
                format!("No module call named \"{call}\" is declared in the root module."),
            ),
            Subject::Resource(resource) | Subject::ResourceInstance { resource, .. }
                if self.resources.contains_key(&resource.to_string()) =>
            {
                let value = self.resources[&resource.to_string()].clone();
                // `type.name` is the root and one attribute step;
                // `data.type.name` one more. Instance keys and attributes
                // after that are the evaluator's.
                let consumed = if resource.mode == ResourceMode::Data { 2 } else { 1 };
                Lookup::Found { value, consumed }
            }
            Subject::Resource(resource) | Subject::ResourceInstance { resource, .. } => {
                let kind = match resource.mode {
                    ResourceMode::Managed => "managed resource",
                    ResourceMode::Data => "data resource",
                    ResourceMode::Ephemeral => "ephemeral resource",
                };
                failed(
                    file,
                    traversal,
                    "Reference to undeclared resource",
                    format!(
                        "{} {kind} \"{}\" \"{}\" has not been declared in the root module.",
                        if kind.starts_with('e') { "An" } else { "A" },
                        resource.type_name,
                        resource.name
                    ),
                )
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

    fn base_dir(&self) -> &Path {
        &self.base_dir
    }

    fn function(&self, name: &str) -> Option<Arc<dyn ExternalFunction>> {
        self.functions.get(name).cloned()
    }

    fn provider_function(
        &self,
        provider: &str,
        name: &str,
    ) -> Result<Arc<dyn ExternalFunction>, FunctionLookupError> {
        match &self.provider_functions {
            Some(source) => source.provider_function(provider, name),
            None => Err(undeclared_provider_function(provider, name)),
        }
    }

    fn builtin_available(&self, name: &str) -> bool {
        name != "plantimestamp" || self.now.is_some()
    }

    fn now(&self) -> Option<&str> {
        self.now.as_deref()
    }
}
