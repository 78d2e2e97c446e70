//! The root module's scope after a walk, for callers that evaluate
//! expressions of their own against it (a test's assertions): everything
//! a root module expression can name, plus `output.NAME` for the root
//! module's outputs and whatever extra root names the caller supplies.

use crate::scope::{Env, EvalScope};
use crate::values::Repetition;
use crate::RootEvaluator;
use std::collections::BTreeMap;
use std::path::Path;
use terrace_addrs::ModuleInstance;
use terrace_config::expr::Expression;
use terrace_lang::scope::{Lookup, Scope};
use terrace_syntax::ast::{SourceFile, Traversal};
use terrace_syntax::{Diagnostic, Diagnostics};
use terrace_value::Value;

pub(crate) struct WalkRoot<'s, 'a> {
    pub env: &'s Env<'a>,
}

struct ExtendedScope<'s, 'a, 'x> {
    inner: EvalScope<'s, 'a>,
    extra: &'x BTreeMap<String, Value>,
}

impl WalkRoot<'_, '_> {
    fn output_value(&self, name: &str) -> Option<Value> {
        self.env.values.output(&ModuleInstance::root(), name)
    }
}

impl Scope for ExtendedScope<'_, '_, '_> {
    fn lookup(&self, t: &Traversal, file: &SourceFile) -> Lookup {
        if let Some(value) = self.extra.get(&t.root) {
            return Lookup::Found {
                value: value.clone(),
                consumed: 0,
            };
        }
        if t.root == "output" {
            let Some(terrace_syntax::ast::TraversalStep::Attr { name, span }) = t.steps.first()
            else {
                return Lookup::Failed(vec![Diagnostic::error(
                    "Invalid reference",
                    "The \"output\" object does not support this operation.",
                )
                .with_subject(file.range(t.root_span))]);
            };
            let config = &self.inner.env.ctx.config;
            if !config.module.outputs.contains_key(name) {
                return Lookup::Failed(vec![Diagnostic::error(
                    "Reference to undeclared output value",
                    format!("An output value with the name {name:?} has not been declared."),
                )
                .with_subject(file.range(t.root_span.to(*span)))]);
            }
            let value = self
                .inner
                .env
                .values
                .output(&ModuleInstance::root(), name)
                .unwrap_or_else(Value::dynamic);
            return Lookup::Found { value, consumed: 1 };
        }
        self.inner.lookup(t, file)
    }

    fn root_names(&self) -> Vec<String> {
        let mut names = self.inner.root_names();
        names.push("output".to_string());
        names.extend(self.extra.keys().cloned());
        names
    }

    fn base_dir(&self) -> &Path {
        self.inner.base_dir()
    }

    fn now(&self) -> Option<&str> {
        self.inner.now()
    }

    fn provider_function(
        &self,
        provider: &str,
        name: &str,
    ) -> Result<
        std::sync::Arc<dyn terrace_lang::scope::ExternalFunction>,
        terrace_lang::scope::FunctionLookupError,
    > {
        self.inner.provider_function(provider, name)
    }
}

impl RootEvaluator for WalkRoot<'_, '_> {
    fn evaluate(
        &self,
        expr: &Expression,
        extra: &BTreeMap<String, Value>,
    ) -> (Value, Diagnostics, Vec<(String, String)>) {
        let config = &self.env.ctx.config;
        let scope = ExtendedScope {
            inner: self
                .env
                .scope(config, ModuleInstance::root(), Repetition::default()),
            extra,
        };
        let (value, diags) = expr.evaluate(&scope);
        let described = crate::diagvals::expression_values(expr, &scope);
        (value, diags, described)
    }

    fn outputs(&self) -> BTreeMap<String, Value> {
        self.env
            .ctx
            .config
            .module
            .outputs
            .keys()
            .filter_map(|name| self.output_value(name).map(|v| (name.clone(), v)))
            .collect()
    }
}
