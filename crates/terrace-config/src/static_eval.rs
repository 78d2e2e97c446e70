//! Static evaluation: the values a configuration must know while it is
//! loaded, before any provider runs (OpenTofu's `StaticEvaluator` and
//! `staticScopeData`). Only input variables, local values derived from
//! them, `path.*` and `terraform.workspace` are available; anything else
//! is refused with OpenTofu's diagnostics ("Dynamic value in static
//! context"...).
//!
//! Each module has one `StaticContext`. A root module's variables come from
//! the values given on the command line, in files and in the environment;
//! a child module's from the arguments of the `module` block that calls it,
//! evaluated in the caller's context when first needed, so an argument
//! that is dynamic only matters if the child uses it statically.
//!
//! Values are computed once per context and remembered; a cycle among local
//! values is found through the stack of what is being evaluated and
//! reported as "Circular reference" instead of recursing forever.

use crate::body::Attribute;
use crate::expr::Expression;
use crate::input_variables::InputValues;
use crate::model::{Local, Variable};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use terrace_lang::references::{parse_ref, references, Subject};
use terrace_lang::scope::{Lookup, Scope};
use terrace_syntax::ast::{SourceFile, Traversal};
use terrace_syntax::diagnostic::has_errors;
use terrace_syntax::{Diagnostic, Diagnostics, SourceRange};
use terrace_value::convert::{apply_defaults, convert};
use terrace_value::gostr::quote;
use terrace_value::{Marks, Value};

/// What is being evaluated statically, for messages: the module path, a
/// subject such as `provider.aws.west.for_each`, and where it is declared.
#[derive(Clone, Debug)]
pub struct StaticIdentifier {
    pub module: Vec<String>,
    pub subject: String,
    pub decl_range: SourceRange,
}

impl std::fmt::Display for StaticIdentifier {
    /// `module.a.module.b:var.x`, or just the subject in the root module.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.module.is_empty() {
            return f.write_str(&self.subject);
        }
        let path: Vec<String> = self.module.iter().map(|m| format!("module.{m}")).collect();
        write!(f, "{}:{}", path.join("."), self.subject)
    }
}

/// What to do with a root module variable that has neither a value nor a
/// default.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MissingRootVariable {
    /// Its value is unknown (as in `validate` and `console`).
    Unknown,
    /// It is an error ("No value for required variable").
    Error,
    /// Its value comes later, one set of values at a time (each run block
    /// of `terrace test`): it is unknown now, and a provider `for_each`
    /// that depends on it is left undecided rather than an error.
    DecidedLater,
}

/// Where a module's input variable values come from.
#[derive(Clone)]
pub enum VariableValues {
    /// The root module: values from the command line, variable files and
    /// the environment.
    Root {
        values: Arc<InputValues>,
        missing: MissingRootVariable,
    },
    /// A child module: the calling block's arguments, evaluated in the
    /// caller's context.
    Call {
        parent: Arc<StaticContext>,
        arguments: BTreeMap<String, Attribute>,
        /// Where "Missing required variable in module call" points.
        missing_item_range: SourceRange,
    },
    /// Defaults only; variables without one are unknown (for checking a
    /// module on its own).
    Defaults,
}

type Memo = Mutex<HashMap<String, (Value, Diagnostics)>>;

/// A variable's value, its diagnostics, and whether a failure should be
/// attributed to whatever needed the value (OpenTofu does so except for a
/// value that does not convert to the type constraint).
type VariableMemo = Mutex<HashMap<String, (Value, Diagnostics, bool)>>;

pub struct StaticContext {
    module_path: Vec<String>,
    variables: BTreeMap<String, Variable>,
    locals: BTreeMap<String, Local>,
    module_dir: String,
    root_dir: String,
    workspace: String,
    cwd: PathBuf,
    values: VariableValues,
    variable_memo: VariableMemo,
    local_memo: Memo,
}

impl std::fmt::Debug for StaticContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StaticContext")
            .field("module_path", &self.module_path)
            .field("module_dir", &self.module_dir)
            .finish_non_exhaustive()
    }
}

/// The location-independent parts every context of one configuration
/// shares.
#[derive(Clone, Debug)]
pub struct StaticSettings {
    /// `path.root`.
    pub root_dir: String,
    /// `terraform.workspace`.
    pub workspace: String,
    /// `path.cwd` (made absolute).
    pub cwd: PathBuf,
}

impl StaticContext {
    pub fn new(
        module_path: Vec<String>,
        variables: BTreeMap<String, Variable>,
        locals: BTreeMap<String, Local>,
        module_dir: &Path,
        settings: &StaticSettings,
        values: VariableValues,
    ) -> StaticContext {
        StaticContext {
            module_path,
            variables,
            locals,
            module_dir: path_string(module_dir),
            root_dir: settings.root_dir.clone(),
            workspace: settings.workspace.clone(),
            cwd: settings.cwd.clone(),
            values,
            variable_memo: Mutex::default(),
            local_memo: Mutex::default(),
        }
    }

    /// Whether values missing now are decided later
    /// ([`MissingRootVariable::DecidedLater`]), for this module or the
    /// modules that call it.
    pub fn decides_missing_values_later(&self) -> bool {
        match &self.values {
            VariableValues::Root { missing, .. } => *missing == MissingRootVariable::DecidedLater,
            VariableValues::Call { parent, .. } => parent.decides_missing_values_later(),
            VariableValues::Defaults => false,
        }
    }

    pub fn module_path(&self) -> &[String] {
        &self.module_path
    }

    /// An identifier in this context's module.
    pub fn identifier(
        &self,
        subject: impl Into<String>,
        decl_range: SourceRange,
    ) -> StaticIdentifier {
        StaticIdentifier {
            module: self.module_path.clone(),
            subject: subject.into(),
            decl_range,
        }
    }

    /// Evaluates `expr` statically (OpenTofu's `StaticEvaluator.Evaluate`).
    pub fn evaluate(&self, expr: &Expression, ident: &StaticIdentifier) -> (Value, Diagnostics) {
        let (value, diags, _) = self.eval_with_stack(expr, std::slice::from_ref(ident));
        (value, diags)
    }

    /// [`StaticContext::evaluate`], also saying whether the references
    /// could all be resolved (`false`: the expression was not evaluated).
    pub fn evaluate_parts(
        &self,
        expr: &Expression,
        ident: &StaticIdentifier,
    ) -> (Value, Diagnostics, bool) {
        self.eval_with_stack(expr, std::slice::from_ref(ident))
    }

    /// Evaluates `expr` and checks the value may be used where static
    /// values go (OpenTofu's `DecodeExpression` checks): not sensitive, not
    /// ephemeral. `None` when there were errors.
    pub fn evaluate_for_use(
        &self,
        expr: &Expression,
        ident: &StaticIdentifier,
    ) -> (Option<Value>, Diagnostics) {
        let (value, mut diags) = self.evaluate(expr, ident);
        if has_errors(&diags) {
            return (None, diags);
        }
        let marks = value.deep_marks();
        if marks.is_sensitive() {
            diags.push(
                Diagnostic::error(
                    "Sensitive value not allowed",
                    format!("Sensitive values, or values derived from sensitive values, cannot be used as {ident}."),
                )
                .with_subject(expr.range()),
            );
            return (None, diags);
        }
        if marks.is_ephemeral() {
            diags.push(
                Diagnostic::error(
                    "Ephemeral value not allowed",
                    format!("Ephemeral values, or values derived from ephemeral values, cannot be used as {ident}."),
                )
                .with_subject(expr.range()),
            );
            return (None, diags);
        }
        (Some(value), diags)
    }

    /// The value of input variable `name` (with its diagnostics), as a
    /// static reference to it would see it.
    pub fn variable_value(&self, name: &str, range: &SourceRange) -> (Value, Diagnostics) {
        let top = self.identifier(format!("var.{name}"), range.clone());
        self.get_variable(name, range, &[top])
    }

    /// The value of input variable `name` as `requester` sees it.
    pub fn variable_value_from(
        &self,
        name: &str,
        range: &SourceRange,
        requester: &StaticIdentifier,
    ) -> (Value, Diagnostics) {
        self.get_variable(name, range, std::slice::from_ref(requester))
    }

    fn eval_with_stack(
        &self,
        expr: &Expression,
        stack: &[StaticIdentifier],
    ) -> (Value, Diagnostics, bool) {
        let (plain, read_diags) = expr.evaluable();
        let mut diags = read_diags.to_vec();
        if has_errors(&diags) {
            return (Value::dynamic(), diags, false);
        }
        let file = expr.file();
        let (refs, ref_diags) = references(plain, file);
        diags.extend(ref_diags);
        if has_errors(&diags) {
            return (Value::dynamic(), diags, false);
        }
        if refs.is_empty() {
            let scope = ResolvedScope::default();
            let (value, more) = terrace_lang::eval::evaluate(plain, file, &scope);
            diags.extend(more);
            return (value, diags, true);
        }
        let Some(top) = stack.last() else {
            return (Value::dynamic(), diags, false);
        };
        let mut invalid = Vec::new();
        for r in &refs {
            let range = file.range(r.span);
            let summary = match &r.subject {
                Subject::LocalValue(_)
                | Subject::InputVariable(_)
                | Subject::PathAttr(_)
                | Subject::TerraformAttr(_) => continue,
                Subject::ModuleCallInstanceOutput { .. } => {
                    "Module output not supported in static context"
                }
                Subject::ProviderFunction { .. } => "Provider function in static context",
                _ => "Dynamic value in static context",
            };
            invalid.push(
                Diagnostic::error(
                    summary,
                    format!(
                        "Unable to use {} in static context, which is required by {top}",
                        r.subject
                    ),
                )
                .with_subject(range),
            );
        }
        if !invalid.is_empty() {
            diags.extend(invalid);
            return (Value::dynamic(), diags, false);
        }
        let mut scope = ResolvedScope::default();
        for r in &refs {
            let range = file.range(r.span);
            let (value, more) = match &r.subject {
                Subject::InputVariable(name) => {
                    let (v, d) = self.get_variable(name, &range, stack);
                    scope.variables.insert(name.clone(), v.clone());
                    (v, d)
                }
                Subject::LocalValue(name) => {
                    let (v, d) = self.get_local(name, &range, stack);
                    scope.locals.insert(name.clone(), v.clone());
                    (v, d)
                }
                Subject::PathAttr(name) => {
                    let (v, d) = self.path_attr(name, &range);
                    scope.path.insert(name.clone(), v.clone());
                    (v, d)
                }
                Subject::TerraformAttr(name) => {
                    let (v, d) = self.terraform_attr(name, &range);
                    scope.terraform.insert(name.clone(), v.clone());
                    (v, d)
                }
                _ => (Value::dynamic(), Vec::new()),
            };
            let _ = value;
            diags.extend(more);
        }
        if has_errors(&diags) {
            return (Value::dynamic(), diags, false);
        }
        let (value, more) = terrace_lang::eval::evaluate(plain, file, &scope);
        diags.extend(more);
        (value, diags, true)
    }

    /// OpenTofu's `enhanceDiagnostics`: when a dependency failed, say what
    /// needed it.
    fn enhance(
        &self,
        ident: &StaticIdentifier,
        mut diags: Diagnostics,
        stack: &[StaticIdentifier],
    ) -> Diagnostics {
        if has_errors(&diags) {
            if let Some(top) = stack.last() {
                diags.push(
                    Diagnostic::error(
                        "Unable to compute static value",
                        format!("{top} depends on {ident} which is not available"),
                    )
                    .with_subject(top.decl_range.clone()),
                );
            }
        }
        diags
    }

    fn get_local(
        &self,
        name: &str,
        range: &SourceRange,
        stack: &[StaticIdentifier],
    ) -> (Value, Diagnostics) {
        let Some(local) = self.locals.get(name) else {
            return (
                Value::dynamic(),
                vec![
                    Diagnostic::error("Undefined local", format!("Undefined local local.{name}"))
                        .with_subject(range.clone()),
                ],
            );
        };
        let id = self.identifier(format!("local.{name}"), local.decl_range.clone());
        let id_text = id.to_string();
        if stack.iter().any(|frame| frame.to_string() == id_text) {
            return (
                Value::dynamic(),
                vec![Diagnostic::error(
                    "Circular reference",
                    format!("{id_text} is self referential"),
                )
                .with_subject(id.decl_range.clone())],
            );
        }
        let memo = lock(&self.local_memo).get(name).cloned();
        let (value, inner) = match memo {
            Some(m) => m,
            None => {
                let mut inner_stack = stack.to_vec();
                inner_stack.push(id.clone());
                let (value, diags, _) = self.eval_with_stack(&local.expr, &inner_stack);
                let diags = dedup(diags);
                lock(&self.local_memo).insert(name.to_string(), (value.clone(), diags.clone()));
                (value, diags)
            }
        };
        (value, self.enhance(&id, inner, stack))
    }

    fn get_variable(
        &self,
        name: &str,
        range: &SourceRange,
        stack: &[StaticIdentifier],
    ) -> (Value, Diagnostics) {
        let Some(variable) = self.variables.get(name) else {
            return (
                Value::dynamic(),
                vec![Diagnostic::error(
                    "Undefined variable",
                    format!("Undefined variable var.{name}"),
                )
                .with_subject(range.clone())],
            );
        };
        if variable.const_set && !variable.is_const {
            return (
                Value::dynamic(),
                vec![Diagnostic::error(
                    "Unable to use variable in static context",
                    format!("The variable {} cannot be used in a static context, because it is declared as \"const = false\".", quote(&variable.name)),
                )
                .with_subject(range.clone())],
            );
        }
        let id = self.identifier(
            format!("var.{}", variable.name),
            variable.decl_range.clone(),
        );
        let memo = lock(&self.variable_memo).get(name).cloned();
        let (value, diags, enhance) = match memo {
            Some(m) => m,
            None => {
                let computed = self.compute_variable(variable, &id);
                lock(&self.variable_memo).insert(name.to_string(), computed.clone());
                computed
            }
        };
        if enhance {
            (value, self.enhance(&id, diags, stack))
        } else {
            (value, diags)
        }
    }

    /// The final value of a variable: the raw value from the caller with
    /// type defaults applied, converted to the type constraint, nulls
    /// handled, and marked (OpenTofu's `GetInputVariable`).
    fn compute_variable(
        &self,
        variable: &Variable,
        id: &StaticIdentifier,
    ) -> (Value, Diagnostics, bool) {
        let (raw, mut diags) = self.raw_variable_value(variable);
        let Some(raw) = raw else {
            return (Value::dynamic(), diags, true);
        };
        if has_errors(&diags) {
            return (Value::dynamic(), diags, true);
        }
        let given = match &variable.type_defaults {
            Some(defaults) if !raw.is_null() => apply_defaults(&raw, defaults),
            _ => raw,
        };
        let mut value = match convert(&given, &variable.constraint_type) {
            Ok(v) => v,
            Err(e) => {
                diags.push(Diagnostic::error(
                    "Invalid value for input variable",
                    format!(
                        "The given value is not suitable for {} declared at {}: {e}.",
                        id.subject, id.decl_range
                    ),
                ));
                return (Value::unknown(variable.ty.clone()), diags, false);
            }
        };
        if value.is_null() && !variable.nullable {
            match &variable.default {
                Some(default) => value = default.clone(),
                None => diags.push(
                    Diagnostic::error(
                        "Required variable not set",
                        format!("The given value is not suitable for {} defined at {}: required variable may not be set to null.", id.subject, id.decl_range),
                    )
                    .with_subject(id.decl_range.clone()),
                ),
            }
        }
        if variable.sensitive {
            value = value.mark(Marks::SENSITIVE);
        }
        if variable.ephemeral {
            value = value.mark(Marks::EPHEMERAL);
        }
        (value, diags, true)
    }

    /// The value the caller gives (OpenTofu's `StaticModuleCall.vars`):
    /// `None` with errors when there is none to give.
    fn raw_variable_value(&self, variable: &Variable) -> (Option<Value>, Diagnostics) {
        match &self.values {
            VariableValues::Defaults => (
                Some(
                    variable
                        .default
                        .clone()
                        .unwrap_or_else(|| Value::unknown(variable.ty.clone())),
                ),
                Vec::new(),
            ),
            VariableValues::Root { values, missing } => {
                if let Some((value, diags)) = values.value_for(variable) {
                    return (Some(value), diags);
                }
                match (&variable.default, missing) {
                    (Some(default), _) => (Some(default.clone()), Vec::new()),
                    (None, MissingRootVariable::Unknown | MissingRootVariable::DecidedLater) => (Some(Value::unknown(variable.ty.clone())), Vec::new()),
                    (None, MissingRootVariable::Error) => (
                        None,
                        vec![Diagnostic::error(
                            "No value for required variable",
                            format!("The root module input variable {} is not set, and has no default value. Use a -var or -var-file command line argument to provide a value for this variable.", quote(&variable.name)),
                        )
                        .with_subject(variable.decl_range.clone())],
                    ),
                }
            }
            VariableValues::Call {
                parent,
                arguments,
                missing_item_range,
            } => match arguments.get(&variable.name) {
                None => match &variable.default {
                    Some(default) => (Some(default.clone()), Vec::new()),
                    None => (
                        None,
                        vec![
                            Diagnostic::error("Missing required variable in module call", "")
                                .with_subject(missing_item_range.clone()),
                        ],
                    ),
                },
                Some(attr) => {
                    let ident = StaticIdentifier {
                        module: self.module_path.clone(),
                        subject: format!("var.{}", variable.name),
                        decl_range: attr.range.clone(),
                    };
                    let (value, diags) = parent.evaluate(&attr.expr, &ident);
                    (Some(value), diags)
                }
            },
        }
    }

    fn path_attr(&self, name: &str, range: &SourceRange) -> (Value, Diagnostics) {
        match name {
            "cwd" => (Value::string(path_string(&self.cwd)), Vec::new()),
            "module" => (Value::string(&self.module_dir), Vec::new()),
            "root" => (Value::string(&self.root_dir), Vec::new()),
            _ => {
                let suggestion = crate::body::name_suggestion(name, &["cwd", "module", "root"])
                    .map(|s| format!(" Did you mean {}?", quote(s)))
                    .unwrap_or_default();
                (
                    Value::dynamic(),
                    vec![Diagnostic::error(
                        "Invalid \"path\" attribute",
                        format!(
                            "The \"path\" object does not have an attribute named {}.{suggestion}",
                            quote(name)
                        ),
                    )
                    .with_subject(range.clone())],
                )
            }
        }
    }

    fn terraform_attr(&self, name: &str, range: &SourceRange) -> (Value, Diagnostics) {
        let fail = |summary: &str, detail: String| {
            (
                Value::dynamic(),
                vec![Diagnostic::error(summary, detail).with_subject(range.clone())],
            )
        };
        match name {
            "workspace" => (Value::string(&self.workspace), Vec::new()),
            "applying" => fail(
                "Invalid attribute in static context",
                "The applying attribute can not be used during static evaluation and is only valid in the plan and apply phases of execution".into(),
            ),
            "env" => fail(
                "Invalid \"terraform\" attribute",
                "The terraform.env attribute was deprecated in v0.10 and removed in v0.12. The \"state environment\" concept was renamed to \"workspace\" in v0.12, and so the workspace name can now be accessed using the terraform.workspace attribute.".into(),
            ),
            _ => fail(
                "Invalid \"terraform\" attribute",
                format!("The \"terraform\" object does not have an attribute named {}. The only supported attribute is terraform.workspace, the name of the currently-selected workspace.", quote(name)),
            ),
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Identical diagnostics once: values are remembered, but a value used
/// twice would otherwise repeat its dependencies' errors once per use at
/// every level.
fn dedup(diags: Diagnostics) -> Diagnostics {
    let mut out: Diagnostics = Vec::with_capacity(diags.len());
    for d in diags {
        if !out.contains(&d) {
            out.push(d);
        }
    }
    out
}

/// A path as Terraform writes `path.module`: forward slashes.
pub(crate) fn path_string(p: &Path) -> String {
    let s = p.to_string_lossy().replace('\\', "/");
    if s.is_empty() {
        ".".into()
    } else {
        s
    }
}

/// The values resolved for one expression.
#[derive(Default)]
struct ResolvedScope {
    variables: HashMap<String, Value>,
    locals: HashMap<String, Value>,
    path: HashMap<String, Value>,
    terraform: HashMap<String, Value>,
}

impl Scope for ResolvedScope {
    fn lookup(&self, traversal: &Traversal, file: &SourceFile) -> Lookup {
        let (reference, diags) = parse_ref(traversal, file);
        let Some(reference) = reference else {
            return if diags.is_empty() {
                Lookup::NotFound
            } else {
                Lookup::Failed(diags)
            };
        };
        let found = match &reference.subject {
            Subject::InputVariable(n) => self.variables.get(n),
            Subject::LocalValue(n) => self.locals.get(n),
            Subject::PathAttr(n) => self.path.get(n),
            Subject::TerraformAttr(n) => self.terraform.get(n),
            _ => None,
        };
        match found {
            Some(value) => Lookup::Found {
                value: value.clone(),
                consumed: 1,
            },
            None => Lookup::Found {
                value: Value::dynamic(),
                consumed: 1,
            },
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
        Path::new(".")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::Body;
    use crate::decode::decode_file;
    use crate::module::new_module;

    fn context(src: &str, values: VariableValues) -> (crate::model::Module, StaticContext) {
        let (file, diags) = terrace_syntax::parse_native_file("main.tf", src);
        assert!(diags.is_empty(), "{diags:?}");
        let (decoded, diags) = decode_file(&Body::from_file(&file), "main.tf", false);
        assert!(diags.is_empty(), "{diags:?}");
        let (module, _) = new_module(vec![decoded], Vec::new(), PathBuf::from("modules/x"));
        let settings = StaticSettings {
            root_dir: ".".into(),
            workspace: "prod".into(),
            cwd: PathBuf::from("/work"),
        };
        let ctx = StaticContext::new(
            vec!["a".into(), "b".into()],
            module.variables.clone(),
            module.locals.clone(),
            &module.source_dir,
            &settings,
            values,
        );
        (module, ctx)
    }

    fn eval(
        ctx: &StaticContext,
        module: &crate::model::Module,
        local: &str,
    ) -> (Value, Diagnostics) {
        let expr = &module.locals[local].expr;
        ctx.evaluate(expr, &ctx.identifier("test", expr.range()))
    }

    #[test]
    fn identifiers_name_their_module() {
        let (_, ctx) = context("", VariableValues::Defaults);
        let ident = ctx.identifier("var.x", SourceRange::default());
        assert_eq!(ident.to_string(), "module.a.module.b:var.x");
        let root = StaticIdentifier {
            module: Vec::new(),
            subject: "local.y".into(),
            decl_range: SourceRange::default(),
        };
        assert_eq!(root.to_string(), "local.y");
    }

    #[test]
    fn path_and_terraform_values() {
        let src = r#"
locals {
  all = "${path.module}|${path.root}|${path.cwd}|${terraform.workspace}"
}
"#;
        let (module, ctx) = context(src, VariableValues::Defaults);
        let (v, d) = eval(&ctx, &module, "all");
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(v.as_str(), Some("modules/x|.|/work|prod"));
    }

    #[test]
    fn doubled_local_chains_end_quickly_with_few_diagnostics() {
        // Each local uses the previous one twice: without remembering
        // values this is 2^40 evaluations.
        let mut src = String::from("resource \"x\" \"y\" {}\nlocals {\n  l0 = x.y.id\n");
        for i in 1..=40 {
            src.push_str(&format!(
                "  l{i} = \"${{local.l{}}}${{local.l{}}}\"\n",
                i - 1,
                i - 1
            ));
        }
        src.push_str("}\n");
        let (module, ctx) = context(&src, VariableValues::Defaults);
        let (_, d) = eval(&ctx, &module, "l40");
        assert!(d.len() < 100, "{} diagnostics", d.len());
        assert_eq!(d[0].summary, "Dynamic value in static context");
        assert_eq!(
            d[0].detail,
            "Unable to use x.y in static context, which is required by module.a.module.b:local.l0"
        );
    }

    #[test]
    fn sensitive_values_are_refused_where_static_values_go() {
        let src = r#"
variable "s" {
  default   = "./x"
  sensitive = true
}
locals {
  src = var.s
}
"#;
        let (module, ctx) = context(src, VariableValues::Defaults);
        let expr = &module.locals["src"].expr;
        let ident = ctx.identifier("module.m.source", expr.range());
        let (v, d) = ctx.evaluate_for_use(expr, &ident);
        assert!(v.is_none());
        assert_eq!(d[0].summary, "Sensitive value not allowed");
        assert!(d[0]
            .detail
            .ends_with("cannot be used as module.a.module.b:module.m.source."));
    }

    #[test]
    fn root_values_are_read_by_parsing_mode_and_converted() {
        let src = r#"
variable "list" {
  type = list(number)
}
variable "text" {}
locals {
  sum  = sum(var.list)
  text = var.text
}
"#;
        let values = InputValues::from_text([
            ("list".to_string(), "[1, 2, \"3\"]".to_string()),
            ("text".to_string(), "[1, 2]".to_string()),
        ]);
        let (module, ctx) = context(
            src,
            VariableValues::Root {
                values: Arc::new(values),
                missing: MissingRootVariable::Error,
            },
        );
        let (v, d) = eval(&ctx, &module, "sum");
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(v.as_number().map(|n| n.text('f', -1)), Some("6".into()));
        let (v, _) = eval(&ctx, &module, "text");
        assert_eq!(v.as_str(), Some("[1, 2]"));
    }
}
