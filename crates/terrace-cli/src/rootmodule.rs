//! The parts of the configuration in the working directory that the console
//! needs: `variable` blocks with the values given to them, and `locals`.
//! Variable values come, lowest precedence first, from defaults, `TF_VAR_`
//! environment variables, `terraform.tfvars`, `terraform.tfvars.json`,
//! `*.auto.tfvars(.json)` in lexical order, then `-var` and `-var-file` in
//! command-line order, as Terraform documents.
//!
//! This is a focused loader for the console; the full module-tree loader
//! (`terrace-config`) will replace it and keep these rules.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use terrace_lang::eval::evaluate;
use terrace_lang::module_scope::LocalDefinition;
use terrace_lang::scope::MapScope;
use terrace_lang::typeexpr::type_constraint_with_defaults;
use terrace_syntax::ast::{Attribute, Block, Body, Expr, File, SourceFile};
use terrace_syntax::{Diagnostic, Diagnostics};
use terrace_value::convert::{apply_defaults, convert, TypeDefaults};
use terrace_value::{Marks, Type, Value};

pub struct VariableDeclaration {
    pub name: String,
    pub ty: Type,
    pub defaults: Option<TypeDefaults>,
    pub default: Option<Value>,
    pub sensitive: bool,
    pub nullable: bool,
}

#[derive(Default)]
pub struct RootModule {
    pub files: Vec<File>,
    pub variables: Vec<VariableDeclaration>,
    pub locals: HashMap<String, LocalDefinition>,
}

/// Where a variable value came from, for precedence and messages.
pub enum VariableSource {
    /// `-var name=value` or `TF_VAR_name`: a raw string, parsed as HCL only
    /// when the variable's type is not a primitive.
    Raw { name: String, text: String },
    /// A `.tfvars` file (native or JSON).
    File(String),
}

/// Loads `.tf`, `.tf.json` and `.tofu` files of `dir` (a `.tofu` file
/// replaces the `.tf` of the same name).
pub fn load(dir: &Path) -> (RootModule, Diagnostics) {
    let mut diags = Vec::new();
    let mut module = RootModule::default();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return (module, diags);
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().map(|t| t.is_file()).unwrap_or(false))
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| !n.starts_with('.') && !n.starts_with('#') && !n.ends_with('~'))
        .filter(|n| {
            n.ends_with(".tf")
                || n.ends_with(".tf.json")
                || n.ends_with(".tofu")
                || n.ends_with(".tofu.json")
        })
        .collect();
    names.sort();
    let replaced_by_tofu = |name: &str| {
        let tofu = if let Some(stem) = name.strip_suffix(".tf") {
            format!("{stem}.tofu")
        } else if let Some(stem) = name.strip_suffix(".tf.json") {
            format!("{stem}.tofu.json")
        } else {
            return false;
        };
        names.contains(&tofu)
    };
    for name in names.iter().filter(|n| !replaced_by_tofu(n)) {
        let Ok(text) = std::fs::read_to_string(dir.join(name)) else {
            diags.push(Diagnostic::error(
                "Failed to read file",
                format!("The file \"{name}\" could not be read."),
            ));
            continue;
        };
        let (file, file_diags) = terrace_syntax::parse_file(name, &text);
        diags.extend(file_diags);
        collect_declarations(&mut module, &file, &mut diags);
        module.files.push(file);
    }
    (module, diags)
}

fn collect_declarations(module: &mut RootModule, file: &File, diags: &mut Diagnostics) {
    let Body::Native(body) = &file.body else {
        // JSON configuration bodies need the schema-driven decoder of
        // terrace-config; the console reads native syntax only for now.
        return;
    };
    for block in &body.blocks {
        match block.block_type.as_str() {
            "variable" => {
                if let Some(decl) = decode_variable(block, &file.source, diags) {
                    module.variables.push(decl);
                }
            }
            "locals" => {
                if let Body::Native(locals) = &block.body {
                    for attr in &locals.attributes {
                        module.locals.insert(
                            attr.name.clone(),
                            LocalDefinition {
                                expr: attr.expr.clone(),
                                file: file.source.clone(),
                            },
                        );
                    }
                }
            }
            _ => {}
        }
    }
}

fn constant_value(expr: &Expr, source: &Arc<SourceFile>) -> (Value, Diagnostics) {
    evaluate(expr, source, &MapScope::constant())
}

fn find_attr<'a>(block: &'a Block, name: &str) -> Option<&'a Attribute> {
    match &block.body {
        Body::Native(body) => body.attributes.iter().find(|a| a.name == name),
        Body::Json(_) => None,
    }
}

fn decode_variable(
    block: &Block,
    source: &Arc<SourceFile>,
    diags: &mut Diagnostics,
) -> Option<VariableDeclaration> {
    let name = block.labels.first()?.0.clone();
    let (ty, defaults) = match find_attr(block, "type") {
        Some(attr) => {
            let eval_constant = |e: &Expr| constant_value(e, source);
            let (ty, defaults, type_diags) =
                type_constraint_with_defaults(&attr.expr, source, &eval_constant);
            diags.extend(type_diags);
            (ty, defaults)
        }
        None => (Type::Dynamic, None),
    };
    let bool_attr =
        |attr: &str, fallback: bool, diags: &mut Diagnostics| match find_attr(block, attr) {
            Some(a) => {
                let (value, d) = constant_value(&a.expr, source);
                diags.extend(d);
                value.as_bool().unwrap_or(fallback)
            }
            None => fallback,
        };
    let sensitive = bool_attr("sensitive", false, diags);
    let nullable = bool_attr("nullable", true, diags);
    let default = find_attr(block, "default").and_then(|attr| {
        let (value, d) = constant_value(&attr.expr, source);
        diags.extend(d);
        let value = match &defaults {
            Some(defaults) => apply_defaults(&value, defaults),
            None => value,
        };
        match convert(&value, &ty) {
            Ok(v) => Some(v),
            Err(err) => {
                diags.push(
                    Diagnostic::error(
                        "Invalid default value for variable",
                        format!("This default value is not compatible with the variable's type constraint: {err}."),
                    )
                    .with_subject(source.range(attr.expr.span)),
                );
                None
            }
        }
    });
    Some(VariableDeclaration {
        name,
        ty,
        defaults,
        default,
        sensitive,
        nullable,
    })
}

/// The final value of every declared variable. A variable with neither a
/// default nor a given value is unknown, as in `terraform console`.
pub fn variable_values(
    module: &RootModule,
    dir: &Path,
    cli_values: &[VariableSource],
    diags: &mut Diagnostics,
) -> HashMap<String, Value> {
    let declared: HashMap<&str, &VariableDeclaration> = module
        .variables
        .iter()
        .map(|v| (v.name.as_str(), v))
        .collect();
    let mut given: HashMap<String, (Value, Option<Arc<SourceFile>>, terrace_syntax::Span)> =
        HashMap::new();

    let mut env: Vec<(String, String)> = std::env::vars()
        .filter_map(|(k, v)| k.strip_prefix("TF_VAR_").map(|n| (n.to_string(), v)))
        .collect();
    env.sort();
    for (name, text) in env {
        if let Some(decl) = declared.get(name.as_str()) {
            if let Some(value) = raw_value(decl, &text, diags) {
                given.insert(name, (value, None, Default::default()));
            }
        }
    }

    let mut files = Vec::new();
    for name in ["terraform.tfvars", "terraform.tfvars.json"] {
        if dir.join(name).is_file() {
            files.push(dir.join(name).to_string_lossy().into_owned());
        }
    }
    if let Ok(entries) = std::fs::read_dir(dir) {
        let mut auto: Vec<String> = entries
            .filter_map(|e| e.ok())
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| n.ends_with(".auto.tfvars") || n.ends_with(".auto.tfvars.json"))
            .collect();
        auto.sort();
        files.extend(
            auto.into_iter()
                .map(|n| dir.join(n).to_string_lossy().into_owned()),
        );
    }
    for path in &files {
        load_tfvars_file(path, false, &declared, &mut given, diags);
    }
    for source in cli_values {
        match source {
            VariableSource::Raw { name, text, .. } => match declared.get(name.as_str()) {
                Some(decl) => {
                    if let Some(value) = raw_value(decl, text, diags) {
                        given.insert(name.clone(), (value, None, Default::default()));
                    }
                }
                None => diags.push(Diagnostic::error(
                    "Value for undeclared variable",
                    format!("A variable named \"{name}\" was assigned on the command line, but the root module does not declare a variable of that name. To use this value, add a \"variable\" block to the configuration."),
                )),
            },
            VariableSource::File(path) => load_tfvars_file(path, true, &declared, &mut given, diags),
        }
    }

    let mut values = HashMap::new();
    for decl in &module.variables {
        let value = match given.remove(&decl.name) {
            Some((value, file, span)) => finalize(decl, value, file.as_ref(), span, diags),
            None => decl
                .default
                .clone()
                .unwrap_or_else(|| Value::unknown(decl.ty.clone())),
        };
        let value = if decl.sensitive {
            value.mark(Marks::SENSITIVE)
        } else {
            value
        };
        values.insert(decl.name.clone(), value);
    }
    values
}

fn finalize(
    decl: &VariableDeclaration,
    value: Value,
    file: Option<&Arc<SourceFile>>,
    span: terrace_syntax::Span,
    diags: &mut Diagnostics,
) -> Value {
    if value.is_null() && !decl.nullable {
        if let Some(default) = &decl.default {
            return default.clone();
        }
    }
    let value = match &decl.defaults {
        Some(defaults) => apply_defaults(&value, defaults),
        None => value,
    };
    match convert(&value, &decl.ty) {
        Ok(v) => v,
        Err(err) => {
            let mut diag = Diagnostic::error(
                "Invalid value for input variable",
                format!(
                    "The given value is not suitable for var.{}: {err}.",
                    decl.name
                ),
            );
            if let Some(file) = file {
                diag = diag.with_subject(file.range(span));
            }
            diags.push(diag);
            Value::unknown(decl.ty.clone())
        }
    }
}

/// A value given as a raw string: kept as a string for primitive and
/// unconstrained types, parsed as an HCL expression otherwise.
fn raw_value(decl: &VariableDeclaration, text: &str, diags: &mut Diagnostics) -> Option<Value> {
    if decl.ty.is_primitive() || decl.ty.is_dynamic() {
        return Some(Value::string(text));
    }
    let source = SourceFile::new(format!("<value for var.{}>", decl.name), text);
    let (expr, parse_diags) = terrace_syntax::parse_expression(&source);
    if terrace_syntax::diagnostic::has_errors(&parse_diags) {
        diags.extend(parse_diags);
        return None;
    }
    let (value, eval_diags) = constant_value(&expr, &source);
    let failed = terrace_syntax::diagnostic::has_errors(&eval_diags);
    diags.extend(eval_diags);
    (!failed).then_some(value)
}

type GivenValues = HashMap<String, (Value, Option<Arc<SourceFile>>, terrace_syntax::Span)>;

fn load_tfvars_file(
    path: &str,
    explicit: bool,
    declared: &HashMap<&str, &VariableDeclaration>,
    given: &mut GivenValues,
    diags: &mut Diagnostics,
) {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(_) => {
            diags.push(Diagnostic::error(
                "Failed to read variables file",
                format!("Given variables file {path} does not exist."),
            ));
            return;
        }
    };
    let (file, parse_diags) = terrace_syntax::parse_file(path, &text);
    diags.extend(parse_diags);
    let attributes: Vec<(String, Expr, terrace_syntax::Span)> = match &file.body {
        Body::Native(body) => {
            for block in &body.blocks {
                diags.push(
                    Diagnostic::error("Unexpected \"block\" block", "Blocks are not allowed here.")
                        .with_subject(file.source.range(block.type_span)),
                );
            }
            body.attributes
                .iter()
                .map(|a| (a.name.clone(), a.expr.clone(), a.expr.span))
                .collect()
        }
        Body::Json(body) => body
            .properties
            .iter()
            .map(|p| {
                let (expr, d) = terrace_syntax::json_value_to_expr(&file.source, &p.value);
                diags.extend(d);
                (p.name.clone(), expr, p.value.span)
            })
            .collect(),
    };
    for (name, expr, span) in attributes {
        if !declared.contains_key(name.as_str()) {
            let summary = "Value for undeclared variable";
            let detail = format!("The root module does not declare a variable named \"{name}\" but a value was found in file \"{path}\". If you meant to use this value, add a \"variable\" block to the configuration.\n\nTo silence these warnings, use TF_VAR_... environment variables to provide certain \"global\" settings to all configurations in your organization. To reduce the verbosity of these warnings, use the -compact-warnings option.");
            let diag = if explicit {
                Diagnostic::error(summary, detail)
            } else {
                Diagnostic::warning(summary, detail)
            };
            diags.push(diag.with_subject(file.source.range(span)));
            continue;
        }
        let (value, eval_diags) = constant_value(&expr, &file.source);
        diags.extend(eval_diags);
        given.insert(name, (value, Some(file.source.clone()), span));
    }
}
