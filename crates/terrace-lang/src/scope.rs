//! What an expression can see while it is evaluated: the values behind root
//! names (`var`, `local`, resources, for-expression temporaries are the
//! evaluator's own business), provider-defined functions, and the
//! surroundings functions need (module directory, run timestamp).
//!
//! The engine implements [`Scope`] over immutable snapshots of its state so
//! one scope serves every expression of a resource instance; [`MapScope`]
//! is the plain name → value version used by tests, `.tfvars` evaluation
//! and the console.

use crate::funcs::call::CallError;
use crate::funcs::Param;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use terrace_syntax::ast::{SourceFile, Traversal};
use terrace_syntax::Diagnostics;
use terrace_value::{Type, Value};

/// The answer to "what does this traversal's root refer to?".
#[derive(Clone, Debug)]
pub enum Lookup {
    /// The value of the root together with its first `consumed` steps
    /// (`consumed == 0`: the root name alone). The evaluator applies the
    /// remaining steps with HCL's attribute and index rules, so a scope may
    /// answer `var.x.y` with the value of `var.x` and `consumed == 1`
    /// without building an object holding every variable.
    Found { value: Value, consumed: usize },
    /// [`Lookup::Found`], with warnings about the reference itself (an
    /// attribute the provider deprecates).
    FoundWithWarnings {
        value: Value,
        consumed: usize,
        warnings: Diagnostics,
    },
    /// No such name: the evaluator reports HCL's "Unknown variable" with a
    /// suggestion drawn from [`Scope::root_names`].
    NotFound,
    /// The scope reported the problem itself (an undeclared variable, a
    /// malformed reference...). The expression's value becomes unknown.
    Failed(Diagnostics),
}

/// Why a provider function could not be found. The evaluator reports it
/// as "Unknown provider function" (or `summary` when given) with the call
/// name as subject.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionLookupError {
    pub summary: Option<String>,
    pub detail: String,
}

/// A function that is not part of the built-in table, such as a provider
/// function. The evaluator checks argument counts and converts each
/// argument to its parameter type (reporting HCL's diagnostics) before
/// calling it; the implementation handles nulls, unknowns and marks.
pub trait ExternalFunction: Send + Sync {
    fn params(&self) -> &[Param];
    fn variadic(&self) -> Option<&Param>;
    fn call(&self, args: Vec<Value>) -> Result<Value, CallError>;
    /// The type a call returns, as its signature declares it.
    fn return_type(&self) -> Type {
        Type::Dynamic
    }
}

pub trait Scope {
    /// Resolves the root of a scope traversal. `file` is the source the
    /// traversal's spans point into, for diagnostics.
    fn lookup(&self, traversal: &Traversal, file: &SourceFile) -> Lookup;

    /// Names offered as "Did you mean" suggestions for unknown roots.
    fn root_names(&self) -> Vec<String> {
        Vec::new()
    }

    /// Whether references are allowed at all; when false every reference is
    /// HCL's "Variables not allowed" (as in `.tfvars` files).
    fn variables_allowed(&self) -> bool {
        true
    }

    /// Whether function calls are allowed at all; when false every call is
    /// HCL's "Function calls not allowed" (as in `.tfvars` files).
    fn functions_allowed(&self) -> bool {
        true
    }

    /// Whether the functions that read files (`file`, `templatefile`,
    /// `fileexists`...) may run.
    fn file_functions_allowed(&self) -> bool {
        true
    }

    /// Terraform's "pure only" mode (validation): the impure functions
    /// `bcrypt`, `timestamp` and `uuid` return unknown values.
    fn pure_only(&self) -> bool {
        false
    }

    /// Whether the built-in function `name` exists in this context. Terraform
    /// offers `plantimestamp` only where a plan is being made, not in the
    /// console.
    fn builtin_available(&self, name: &str) -> bool {
        let _ = name;
        true
    }

    /// The directory relative file paths are resolved against (the module
    /// directory).
    fn base_dir(&self) -> &Path;

    /// RFC 3339 timestamp of the run, for `timestamp()`/`plantimestamp()`.
    fn now(&self) -> Option<&str> {
        None
    }

    /// A function this scope adds to the built-in table or overrides it
    /// with (as the console adds `type`), by plain name.
    fn function(&self, name: &str) -> Option<Arc<dyn ExternalFunction>> {
        let _ = name;
        None
    }

    /// A function in the `provider::NAME::` namespace. The default knows
    /// none, with Terraform's explanation.
    fn provider_function(
        &self,
        provider: &str,
        name: &str,
    ) -> Result<Arc<dyn ExternalFunction>, FunctionLookupError> {
        Err(undeclared_provider_function(provider, name))
    }
}

/// Where a scope that is not the engine's (the console's) finds
/// `provider::NAME::FUNC` functions.
pub trait ProviderFunctionSource: Send + Sync {
    fn provider_function(
        &self,
        provider: &str,
        name: &str,
    ) -> Result<Arc<dyn ExternalFunction>, FunctionLookupError>;
}

/// Terraform's explanation for a provider function that no declared
/// provider offers.
pub fn undeclared_provider_function(provider: &str, name: &str) -> FunctionLookupError {
    FunctionLookupError {
        summary: None,
        detail: format!(
            "There is no function named \"provider::{provider}::{name}\". Ensure that provider name \"{provider}\" is declared in this module's required_providers block, and that this provider offers a function named \"{name}\"."
        ),
    }
}

/// A scope made of a fixed table of root names.
pub struct MapScope {
    pub values: HashMap<String, Value>,
    pub base_dir: PathBuf,
    pub now: Option<String>,
    pub provider_functions: HashMap<(String, String), Arc<dyn ExternalFunction>>,
    pub functions: HashMap<String, Arc<dyn ExternalFunction>>,
    pub variables_allowed: bool,
    pub functions_allowed: bool,
    pub file_functions_allowed: bool,
    pub pure_only: bool,
}

impl Default for MapScope {
    fn default() -> Self {
        MapScope {
            values: HashMap::new(),
            base_dir: PathBuf::from("."),
            now: None,
            provider_functions: HashMap::new(),
            functions: HashMap::new(),
            variables_allowed: true,
            functions_allowed: true,
            file_functions_allowed: true,
            pure_only: false,
        }
    }
}

impl MapScope {
    pub fn new() -> MapScope {
        MapScope::default()
    }

    /// A scope where neither references nor function calls are allowed, as
    /// HCL evaluates with a nil context (`.tfvars` values).
    pub fn constant() -> MapScope {
        MapScope {
            variables_allowed: false,
            functions_allowed: false,
            ..MapScope::default()
        }
    }

    pub fn with(mut self, name: impl Into<String>, value: Value) -> MapScope {
        self.values.insert(name.into(), value);
        self
    }

    pub fn insert(&mut self, name: impl Into<String>, value: Value) {
        self.values.insert(name.into(), value);
    }

    pub fn with_base_dir(mut self, dir: impl Into<PathBuf>) -> MapScope {
        self.base_dir = dir.into();
        self
    }

    pub fn with_now(mut self, now: impl Into<String>) -> MapScope {
        self.now = Some(now.into());
        self
    }

    pub fn with_function(
        mut self,
        name: impl Into<String>,
        function: Arc<dyn ExternalFunction>,
    ) -> MapScope {
        self.functions.insert(name.into(), function);
        self
    }

    pub fn with_provider_function(
        mut self,
        provider: impl Into<String>,
        name: impl Into<String>,
        function: Arc<dyn ExternalFunction>,
    ) -> MapScope {
        self.provider_functions
            .insert((provider.into(), name.into()), function);
        self
    }
}

impl Scope for MapScope {
    fn lookup(&self, traversal: &Traversal, _file: &SourceFile) -> Lookup {
        match self.values.get(&traversal.root) {
            Some(value) => Lookup::Found {
                value: value.clone(),
                consumed: 0,
            },
            None => Lookup::NotFound,
        }
    }

    fn root_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.values.keys().cloned().collect();
        names.sort();
        names
    }

    fn variables_allowed(&self) -> bool {
        self.variables_allowed
    }

    fn functions_allowed(&self) -> bool {
        self.functions_allowed
    }

    fn file_functions_allowed(&self) -> bool {
        self.file_functions_allowed
    }

    fn pure_only(&self) -> bool {
        self.pure_only
    }

    fn base_dir(&self) -> &Path {
        &self.base_dir
    }

    fn now(&self) -> Option<&str> {
        self.now.as_deref()
    }

    fn function(&self, name: &str) -> Option<Arc<dyn ExternalFunction>> {
        self.functions.get(name).cloned()
    }

    fn provider_function(
        &self,
        provider: &str,
        name: &str,
    ) -> Result<Arc<dyn ExternalFunction>, FunctionLookupError> {
        self.provider_functions
            .get(&(provider.to_string(), name.to_string()))
            .cloned()
            .ok_or_else(|| undeclared_provider_function(provider, name))
    }
}

/// The functions of Terraform's built-in `terraform` provider, for scopes
/// of modules that declare it in `required_providers`.
pub use crate::funcs::special::{terraform_provider_function, TERRAFORM_PROVIDER_FUNCTIONS};
