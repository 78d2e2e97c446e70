//! `terrace console`: evaluates expressions in the context of the
//! configuration in the working directory, printing results as
//! `terraform console` does.
//!
//! With a terminal, each line's result is printed after a `> ` prompt. With
//! piped input, terraform evaluates every line but prints only the last
//! line's result, and stops with status 1 at the first line that fails;
//! terrace does the same so scripts see identical output.

use crate::format::format_value;
use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;
use std::sync::Arc;
use terrace_config::input_variables::{collect_input_values, VariableArgument};
use terrace_lang::eval::evaluate;
use terrace_lang::funcs::call::CallError;
use terrace_lang::funcs::Param;
use terrace_lang::module_scope::{LocalDefinition, StaticModuleScope};
use terrace_lang::scope::{ExternalFunction, FunctionLookupError, ProviderFunctionSource};
use terrace_lang::scope::{Lookup, Scope};
use terrace_syntax::ast::{Expr, SourceFile};
use terrace_syntax::render::{render_diagnostic, RenderStyle, SourceMap, DEFAULT_WIDTH};
use terrace_syntax::{Diagnostic, Diagnostics};
use terrace_value::{Marks, Type, Value};

const HELP: &str = "The terrace console allows you to experiment with terrace interpolations.
You may access resources in the state (if you have one) just as you would
from a configuration. For example: \"aws_instance.foo.id\" would evaluate
to the ID of \"aws_instance.foo\" if it exists in your state.

Type in the interpolation to test and hit <enter> to see the result.

To exit the console, type \"exit\" and hit <enter>, or use Control-C or
Control-D.";

pub struct ConsoleOptions {
    pub variables: Vec<VariableArgument>,
    pub color: bool,
}

/// The root module's resources in the working directory's state (none
/// without a state), keyed by `type.name`/`data.type.name`: one object per
/// resource, or a tuple (`count`) or object (`for_each`) of them.
fn state_resources() -> Result<HashMap<String, Value>, Diagnostics> {
    use terrace_addrs::InstanceKey;
    let mut backend = crate::state_meta::open_backend(Default::default())
        .map_err(|e| vec![Diagnostic::error("Failed to load state", e)])?;
    let loaded = crate::state_meta::read_state(backend.as_mut())?;
    let Some(state) = loaded.state else {
        return Ok(HashMap::new());
    };
    let root: Vec<_> = state
        .resources
        .iter()
        .filter(|(addr, _)| addr.module.is_root())
        .collect();
    if root.is_empty() {
        return Ok(HashMap::new());
    }
    let providers = root
        .iter()
        .map(|(_, rs)| rs.provider.provider.clone())
        .collect();
    let schemas = crate::state_meta::Schemas::load(providers)?;
    let mut out = HashMap::new();
    for (addr, rs) in root {
        let Some(schema) = schemas.resource(
            &rs.provider.provider,
            addr.resource.mode,
            &addr.resource.type_name,
        ) else {
            continue;
        };
        let mut singles = Vec::new();
        let mut by_index = Vec::new();
        let mut by_key = std::collections::BTreeMap::new();
        for (key, instance) in &rs.instances {
            let Some(obj) = &instance.current else {
                continue;
            };
            let value = terrace_engine::state_object_value(obj, &schema);
            match key {
                InstanceKey::None => singles.push(value),
                InstanceKey::Int(i) => by_index.push((*i, value)),
                InstanceKey::String(k) => {
                    by_key.insert(k.to_string(), value);
                }
            }
        }
        let value = if let Some(single) = singles.pop() {
            single
        } else if !by_key.is_empty() {
            Value::object(by_key)
        } else {
            by_index.sort_by_key(|(i, _)| *i);
            Value::tuple(by_index.into_iter().map(|(_, v)| v).collect())
        };
        out.insert(addr.resource.to_string(), value);
    }
    Ok(out)
}

/// The outcome of one line.
enum LineResult {
    Value(String),
    Exit,
    Failed(Diagnostics),
}

pub fn run(dir: &Path, options: ConsoleOptions) -> i32 {
    let (module, mut diags) = terrace_config::loader::load_module_dir(dir);
    let module = module.unwrap_or_default();
    let (inputs, input_diags) = collect_input_values(dir, &options.variables, std::env::vars());
    diags.extend(input_diags);
    let (variables, variable_diags) = inputs.final_values(&module.variables);
    diags.extend(variable_diags);
    let mut sources = SourceMap::new();
    for file in module.files.iter().chain(inputs.files()) {
        sources.add_source(file.clone());
    }
    let locals: HashMap<String, LocalDefinition> = module
        .locals
        .values()
        .map(|local| {
            let definition = LocalDefinition {
                expr: local.expr.evaluable().0.clone(),
                file: local.expr.file().clone(),
            };
            (local.name.clone(), definition)
        })
        .collect();
    let style = if options.color {
        RenderStyle::Color
    } else {
        RenderStyle::Plain
    };
    if diags.iter().any(Diagnostic::is_error) {
        eprint!("{}", render_for_ui(diags, &sources, style));
        return 1;
    }
    let cwd = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let workspace = std::env::var("TF_WORKSPACE").unwrap_or_else(|_| "default".to_string());
    // Resources of the root module in the state, as expressions see them;
    // one the configuration declares that the state does not hold yet is
    // not known until it is applied, as terraform's console shows it.
    let mut resources = match state_resources() {
        Ok(resources) => resources,
        Err(diags) => {
            eprint!("{}", render_for_ui(diags, &sources, style));
            return 1;
        }
    };
    for key in module
        .managed_resources
        .keys()
        .chain(module.data_resources.keys())
    {
        resources.entry(key.clone()).or_insert_with(Value::dynamic);
    }
    let scope = StaticModuleScope::new(variables, locals, ".", &cwd, &workspace)
        .with_function("type", Arc::new(TypeFunction::new()))
        .with_resources(resources)
        .with_provider_functions(Arc::new(ConsoleProviderFunctions::new(&module, &cwd)));

    // As terraform's console: the configuration's own errors (its locals
    // and outputs) are reported first, and it goes on, the values that
    // failed not known.
    scope.evaluate_locals();
    let mut problems = scope.take_local_diagnostics();
    for output in module.outputs.values() {
        if let Some(expr) = &output.expr {
            let (_, diags) = evaluate(expr.evaluable().0, expr.file(), &scope);
            problems.extend(diags);
        }
    }
    problems.retain(Diagnostic::is_error);
    if !problems.is_empty() {
        eprint!("{}", render_for_ui(problems, &sources, style));
        out!(
            "{}",
            render_for_ui(
                vec![Diagnostic::warning(
                    "Due to the problems above, some expressions may produce unexpected results.",
                    "",
                )],
                &sources,
                style
            )
        );
    }

    let stdin = std::io::stdin();
    let interactive = stdin.is_terminal();
    let mut last = String::new();
    let mut input = stdin.lock();
    let mut line = String::new();
    loop {
        if interactive {
            out!("> ");
            let _ = std::io::stdout().flush();
        }
        line.clear();
        match input.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let text = line.trim_end_matches('\n').trim_end_matches('\r');
        match eval_line(text, &scope) {
            LineResult::Exit => return 0,
            LineResult::Value(result) => {
                if interactive {
                    outln!("{result}");
                } else {
                    last = result;
                }
            }
            LineResult::Failed(diags) => {
                eprint!("{}", render_for_ui(diags, &sources, style));
                if !interactive {
                    return 1;
                }
            }
        }
    }
    if !interactive {
        outln!("{last}");
    }
    0
}

/// The functions of the providers the module declares in
/// `required_providers`, as in a plan: each provider is started the first
/// time one of its functions is looked up, and closed with the console.
struct ConsoleProviderFunctions {
    declared: BTreeMap<String, terrace_addrs::Provider>,
    /// The installed providers, or why they cannot be started.
    factory: Result<crate::provider_factory::CliProviderFactory, Diagnostics>,
    functions: terrace_engine::ProviderFunctions,
}

impl ConsoleProviderFunctions {
    fn new(module: &terrace_config::model::Module, working_dir: &Path) -> ConsoleProviderFunctions {
        let declared: BTreeMap<String, terrace_addrs::Provider> = module
            .required_providers
            .providers
            .keys()
            .filter_map(|local| Some((local.clone(), module.provider_for_local_name(local)?)))
            .collect();
        let needed = declared
            .values()
            .filter(|p| !p.is_builtin())
            .map(|p| (p.clone(), Default::default()))
            .collect();
        let factory =
            crate::commands::providers_schema::installed_executables(Path::new("."), &needed).map(
                |executables| {
                    crate::provider_factory::CliProviderFactory::new(executables, working_dir)
                },
            );
        ConsoleProviderFunctions {
            declared,
            factory,
            functions: Default::default(),
        }
    }
}

impl ProviderFunctionSource for ConsoleProviderFunctions {
    fn provider_function(
        &self,
        provider: &str,
        name: &str,
    ) -> Result<Arc<dyn ExternalFunction>, FunctionLookupError> {
        let undeclared = || terrace_lang::scope::undeclared_provider_function(provider, name);
        let fqn = self.declared.get(provider).ok_or_else(undeclared)?;
        if fqn.is_builtin() && fqn.type_name() == "terraform" {
            return terrace_lang::scope::terraform_provider_function(name).ok_or_else(undeclared);
        }
        match &self.factory {
            Ok(factory) => self.functions.lookup(factory, fqn, provider, name),
            Err(problems) => Err(FunctionLookupError {
                summary: Some("Unknown provider function".to_string()),
                detail: problems
                    .iter()
                    .map(|d| d.summary.as_str())
                    .collect::<Vec<_>>()
                    .join("; "),
            }),
        }
    }
}

/// Diagnostics in source order, each followed by a blank line as
/// Terraform's UI prints them.
fn render_for_ui(mut diags: Diagnostics, sources: &SourceMap, style: RenderStyle) -> String {
    diags.sort_by_key(|d| {
        d.subject
            .as_ref()
            .map(|s| (s.filename.clone(), s.start.byte))
    });
    diags
        .iter()
        .map(|d| format!("{}\n", render_diagnostic(d, sources, style, DEFAULT_WIDTH)))
        .collect()
}

fn eval_line(text: &str, scope: &StaticModuleScope) -> LineResult {
    match text.trim() {
        "exit" => return LineResult::Exit,
        "help" => return LineResult::Value(HELP.to_string()),
        "" => return LineResult::Value(String::new()),
        _ => {}
    }
    let source = SourceFile::new("<console-input>", text);
    let (expr, diags) = terrace_syntax::parse_expression(&source);
    if terrace_syntax::diagnostic::has_errors(&diags) {
        return LineResult::Failed(diags);
    }
    let reference_diags = check_references(&expr, &source, scope);
    if !reference_diags.is_empty() {
        return LineResult::Failed(reference_diags);
    }
    let (value, diags) = evaluate(&expr, &source, scope);
    let mut all = scope.take_local_diagnostics();
    all.extend(diags);
    if terrace_syntax::diagnostic::has_errors(&all) {
        return LineResult::Failed(all);
    }
    if value.marks().contains(Marks::TYPE_VALUE) {
        return LineResult::Value(value.as_str().unwrap_or_default().to_string());
    }
    if value.deep_marks().contains(Marks::TYPE_VALUE) {
        return LineResult::Failed(vec![Diagnostic::error(
            "Invalid use of type function",
            "The console-only \"type\" function cannot be used as part of an expression.",
        )]);
    }
    LineResult::Value(format_value(&value, 0))
}

/// Terraform resolves every reference in an expression before evaluating
/// it, so a bad reference is an error even in a branch that is never taken
/// or inside `can(...)`.
fn check_references(
    expr: &Expr,
    source: &Arc<SourceFile>,
    scope: &StaticModuleScope,
) -> Diagnostics {
    let mut diags = Vec::new();
    for traversal in terrace_lang::references::traversals(expr) {
        if let Lookup::Failed(failed) = scope.lookup(traversal, source) {
            diags.extend(failed);
        }
    }
    diags
}

/// The console-only `type(value)` function. Its result is the type's text
/// marked `TYPE_VALUE`, which the console prints bare when it is the whole
/// result and refuses when it is part of a larger value, as Terraform does
/// with its type capsule.
struct TypeFunction {
    params: Vec<Param>,
}

impl TypeFunction {
    fn new() -> TypeFunction {
        let value = Param::new("value", Type::Dynamic)
            .allow_null()
            .allow_unknown()
            .allow_dynamic_type()
            .allow_marked();
        TypeFunction {
            params: vec![value],
        }
    }
}

impl ExternalFunction for TypeFunction {
    fn params(&self) -> &[Param] {
        &self.params
    }

    fn variadic(&self) -> Option<&Param> {
        None
    }

    fn call(&self, args: Vec<Value>) -> Result<Value, CallError> {
        let ty = args
            .first()
            .map(|v| v.ty().clone())
            .unwrap_or(Type::Dynamic);
        Ok(Value::string(type_string(&ty)).mark(Marks::TYPE_VALUE))
    }
}

/// A type written over several lines, four spaces per level, as the
/// console's `type()` shows it.
pub fn type_string(ty: &Type) -> String {
    let mut out = String::new();
    write_type(&mut out, ty, 0);
    out
}

fn write_type(out: &mut String, ty: &Type, indent: usize) {
    let pad = |out: &mut String, level: usize| out.push_str(&"    ".repeat(level));
    match ty {
        Type::Object(object) => {
            if object.attributes.is_empty() {
                out.push_str("object({})");
                return;
            }
            out.push_str("object({\n");
            for (name, attribute) in &object.attributes {
                pad(out, indent + 1);
                out.push_str(name);
                out.push_str(": ");
                write_type(out, attribute, indent + 1);
                out.push_str(",\n");
            }
            pad(out, indent);
            out.push_str("})");
        }
        Type::Tuple(elements) => {
            if elements.is_empty() {
                out.push_str("tuple([])");
                return;
            }
            out.push_str("tuple([\n");
            for element in elements.iter() {
                pad(out, indent + 1);
                write_type(out, element, indent + 1);
                out.push_str(",\n");
            }
            pad(out, indent);
            out.push_str("])");
        }
        Type::List(element) | Type::Set(element) | Type::Map(element) => {
            out.push_str(match ty {
                Type::List(_) => "list(",
                Type::Set(_) => "set(",
                _ => "map(",
            });
            if element.is_structural() {
                out.push('\n');
                pad(out, indent + 1);
                write_type(out, element, indent + 1);
                out.push_str(",\n");
                pad(out, indent);
            } else {
                write_type(out, element, indent);
            }
            out.push(')');
        }
        other => out.push_str(&other.friendly_name()),
    }
}
