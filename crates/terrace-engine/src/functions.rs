//! Provider-defined functions (`provider::NAME::FUNC(...)`): the module's
//! local provider name is resolved to its provider, the function is looked
//! up in the provider's schema (or, failing that, its GetFunctions answer)
//! and calls go to one unconfigured instance of the provider, started the
//! first time a walk needs it and closed when the walk ends.

use crate::ProviderFactory;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock};
use terrace_addrs::Provider as ProviderFqn;
use terrace_lang::funcs::call::CallError;
use terrace_lang::funcs::{FunctionError, Param};
use terrace_lang::scope::{ExternalFunction, FunctionLookupError};
use terrace_providers::{CallFunctionRequest, FunctionParameter, FunctionSpec, Provider};
use terrace_value::{Type, Value};

struct Started {
    provider: Arc<dyn Provider>,
    /// GetFunctions, asked once when the schema does not have a function.
    dynamic: OnceLock<BTreeMap<String, FunctionSpec>>,
}

/// The provider instances serving function calls during one walk (or one
/// console session).
#[derive(Default)]
pub struct ProviderFunctions {
    started: Mutex<HashMap<ProviderFqn, Arc<Started>>>,
}

fn lookup_error(summary: &str, detail: String) -> FunctionLookupError {
    FunctionLookupError {
        summary: Some(summary.to_string()),
        detail,
    }
}

impl ProviderFunctions {
    /// The function `provider::{local}::{name}` for `fqn`.
    pub fn lookup(
        &self,
        providers: &dyn ProviderFactory,
        fqn: &ProviderFqn,
        local: &str,
        name: &str,
    ) -> Result<Arc<dyn ExternalFunction>, FunctionLookupError> {
        let failed = |d: terrace_syntax::Diagnostics| {
            let text: Vec<String> = d.iter().map(|d| d.summary.clone()).collect();
            lookup_error("Unknown provider function", text.join("; "))
        };
        let schema = providers.schema(fqn).map_err(failed)?;
        let started = self.instance(providers, fqn).map_err(failed)?;
        let spec = match schema.functions.get(name) {
            Some(s) => s.clone(),
            None => {
                let dynamic = started
                    .dynamic
                    .get_or_init(|| started.provider.get_functions().functions);
                match dynamic.get(name) {
                    Some(s) => s.clone(),
                    None => {
                        return Err(lookup_error(
                            "Function not found in provider",
                            format!(
                            "Function \"provider::{local}::{name}\" was not registered by provider"
                        ),
                        ))
                    }
                }
            }
        };
        Ok(Arc::new(ProviderFunction::new(
            started.provider.clone(),
            name,
            &spec,
        )))
    }

    fn instance(
        &self,
        providers: &dyn ProviderFactory,
        fqn: &ProviderFqn,
    ) -> Result<Arc<Started>, terrace_syntax::Diagnostics> {
        let mut g = self
            .started
            .lock()
            .map_err(|_| terrace_syntax::Diagnostics::new())?;
        if let Some(s) = g.get(fqn) {
            return Ok(s.clone());
        }
        let provider = providers.start(fqn)?;
        let s = Arc::new(Started {
            provider,
            dynamic: OnceLock::new(),
        });
        g.insert(fqn.clone(), s.clone());
        Ok(s)
    }

    fn close_all(&self) {
        let all: Vec<Arc<Started>> = self
            .started
            .lock()
            .map(|mut g| g.drain().map(|(_, s)| s).collect())
            .unwrap_or_default();
        for s in all {
            let _ = s.provider.close();
        }
    }
}

impl Drop for ProviderFunctions {
    fn drop(&mut self) {
        self.close_all();
    }
}

/// Parameter names live as long as the process: the evaluator's `Param`
/// wants `&'static str`, so each distinct name is interned once.
fn intern(name: &str) -> &'static str {
    static NAMES: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let set = NAMES.get_or_init(|| Mutex::new(HashSet::new()));
    let Ok(mut g) = set.lock() else {
        return "argument";
    };
    if let Some(n) = g.get(name) {
        return n;
    }
    let leaked: &'static str = Box::leak(name.to_string().into_boxed_str());
    g.insert(leaked);
    leaked
}

struct ProviderFunction {
    provider: Arc<dyn Provider>,
    name: String,
    params: Vec<Param>,
    variadic: Option<Param>,
    specs: Vec<FunctionParameter>,
    variadic_spec: Option<FunctionParameter>,
    ret: Type,
}

fn param(p: &FunctionParameter) -> Param {
    let mut out = Param::new(intern(&p.name), p.ty.clone())
        .allow_marked()
        .allow_null()
        .allow_unknown();
    if p.ty.is_dynamic() {
        out = out.allow_dynamic_type();
    }
    out
}

impl ProviderFunction {
    fn new(provider: Arc<dyn Provider>, name: &str, spec: &FunctionSpec) -> ProviderFunction {
        ProviderFunction {
            provider,
            name: name.to_string(),
            params: spec.parameters.iter().map(param).collect(),
            variadic: spec.variadic_parameter.as_ref().map(param),
            specs: spec.parameters.clone(),
            variadic_spec: spec.variadic_parameter.clone(),
            ret: spec.return_type.clone(),
        }
    }
}

impl ExternalFunction for ProviderFunction {
    fn params(&self) -> &[Param] {
        &self.params
    }

    fn variadic(&self) -> Option<&Param> {
        self.variadic.as_ref()
    }

    fn return_type(&self) -> Type {
        self.ret.clone()
    }

    /// Null and unknown arguments are handled here as cty's function
    /// machinery handles them for parameters that do not allow them;
    /// marks come off before the call and go on the result.
    fn call(&self, args: Vec<Value>) -> Result<Value, CallError> {
        let mut plain = Vec::with_capacity(args.len());
        let mut marks = terrace_value::Marks::default();
        let mut unknown = false;
        for (i, a) in args.iter().enumerate() {
            let Some(spec) = self.specs.get(i).or(self.variadic_spec.as_ref()) else {
                return Err(CallError::TooManyArguments {
                    expected: self.specs.len(),
                });
            };
            let (v, m) = a.unmark_deep();
            marks = marks.union(m);
            if v.is_null() && !spec.allow_null_value {
                return Err(FunctionError::arg(i, "argument must not be null").into());
            }
            if !v.is_wholly_known() && !spec.allow_unknown_values {
                unknown = true;
            }
            plain.push(v);
        }
        if unknown {
            return Ok(Value::unknown(self.ret.clone()).mark(marks));
        }
        let resp = self.provider.call_function(CallFunctionRequest {
            name: self.name.clone(),
            arguments: plain,
        });
        match resp.result {
            Ok(v) => Ok(v.mark(marks)),
            Err(e) => Err(match e.argument {
                Some(i) => FunctionError::arg(i, e.text),
                None => FunctionError::call(e.text),
            }
            .into()),
        }
    }
}
