//! Values for the root module's input variables, from everywhere Terraform
//! and OpenTofu take them, lowest precedence first: `TF_VAR_` environment
//! variables, `terraform.tfvars`, `terraform.tfvars.json`,
//! `*.auto.tfvars(.json)` in lexical order, then `-var` and `-var-file` in
//! command-line order. A value given as text (`-var`, `TF_VAR_`) is read by
//! the variable's parsing mode: as a string for primitive types, as an HCL
//! expression otherwise.

use crate::body::Body;
use crate::expr::Expression;
use crate::model::{Variable, VariableParsingMode};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;
use terrace_syntax::ast::SourceFile;
use terrace_syntax::diagnostic::has_errors;
use terrace_syntax::{Diagnostic, Diagnostics, SourceRange};
use terrace_value::convert::{apply_defaults, convert};
use terrace_value::{Marks, Value};

/// A `-var` or `-var-file` argument, in command-line order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VariableArgument {
    /// `-var name=text`.
    Var { name: String, text: String },
    /// `-var-file=path`.
    File(String),
}

/// Where a value came from, for precedence and messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueSource {
    Environment,
    /// `terraform.tfvars` and `*.auto.tfvars`: undeclared names are
    /// warnings.
    AutoFile,
    /// `-var-file`: undeclared names are errors.
    NamedFile,
    CommandLine,
    /// Typed at the terminal when asked for.
    Entered,
}

#[derive(Clone, Debug)]
enum GivenValue {
    /// Text to read by the variable's parsing mode.
    Text(String),
    /// An expression from a variables file, evaluated without a context.
    Expr(Expression),
    /// A variable's final value, as a saved plan recorded it.
    Final(Value),
    /// A value not yet converted to the variable's type.
    Value(Value),
}

impl Given {
    /// The value as given, before conversion to the variable's type.
    fn raw_value(&self, name: &str, mode: VariableParsingMode) -> (Value, Diagnostics) {
        match &self.value {
            GivenValue::Expr(e) => e.constant_value(),
            GivenValue::Text(text) => parse_text_value(name, text, mode),
            GivenValue::Final(v) | GivenValue::Value(v) => (v.clone(), Vec::new()),
        }
    }
}

#[derive(Clone, Debug)]
struct Given {
    value: GivenValue,
    source: ValueSource,
    /// The value expression, for values from files.
    range: Option<SourceRange>,
    /// The file it came from, for values from files.
    file_name: Option<String>,
}

/// Every value given for the root module's variables, before the
/// variables' declarations are consulted.
#[derive(Clone, Debug, Default)]
pub struct InputValues {
    /// By name; a later source replaced an earlier one.
    values: HashMap<String, Given>,
    /// Every value given in a file or on the command line, in order, for
    /// reporting names no variable declares.
    given_in_order: Vec<(String, Given)>,
    /// The variables files read, for rendering diagnostics.
    files: Vec<Arc<SourceFile>>,
}

impl InputValues {
    /// Values given directly (for tests and embedders): name → text read by
    /// the variable's parsing mode.
    pub fn from_text(values: impl IntoIterator<Item = (String, String)>) -> InputValues {
        let mut out = InputValues::default();
        for (name, text) in values {
            out.insert(
                name,
                Given {
                    value: GivenValue::Text(text),
                    source: ValueSource::CommandLine,
                    range: None,
                    file_name: None,
                },
            );
        }
        out
    }

    /// A value given as a value (a test's `variables` block), converted to
    /// the variable's type like any other given value; `range` is the
    /// expression it came from.
    pub fn add_value(&mut self, name: &str, value: Value, range: Option<SourceRange>) {
        self.values.insert(
            name.to_string(),
            Given {
                value: GivenValue::Value(value),
                source: ValueSource::CommandLine,
                range,
                file_name: None,
            },
        );
    }

    /// A value typed at the terminal for `name` (read like `-var`'s).
    pub fn add_entered(&mut self, name: &str, text: String) {
        self.insert(
            name.to_string(),
            Given {
                value: GivenValue::Text(text),
                source: ValueSource::Entered,
                range: None,
                file_name: None,
            },
        );
    }

    /// Takes the value given for `name` in `from`, if any; whether there
    /// was one.
    pub fn take_given(&mut self, from: &InputValues, name: &str) -> bool {
        match from.values.get(name) {
            Some(given) => {
                self.values.insert(name.to_string(), given.clone());
                true
            }
            None => false,
        }
    }

    /// The final values a saved plan recorded, which are what applying it
    /// uses.
    pub fn from_final_values(values: impl IntoIterator<Item = (String, Value)>) -> InputValues {
        let mut out = InputValues::default();
        for (name, value) in values {
            out.values.insert(
                name,
                Given {
                    value: GivenValue::Final(value),
                    source: ValueSource::CommandLine,
                    range: None,
                    file_name: None,
                },
            );
        }
        out
    }

    /// What the values given to `apply PLANFILE` mean when the plan
    /// already holds every variable's value (`planned`): a `-var` or
    /// `-var-file` value that differs is an error, an environment one a
    /// warning that it is ignored, names no variable declares errors.
    /// Automatically loaded files are not read for a saved plan.
    pub fn saved_plan_conflicts(
        &self,
        declared: &BTreeMap<String, Variable>,
        planned: &BTreeMap<String, Value>,
    ) -> Diagnostics {
        let mut diags = self.check_undeclared(declared);
        for (name, variable) in declared {
            // Ephemeral values are not in the plan: they are given anew.
            if variable.ephemeral {
                continue;
            }
            let Some(given) = self.values.get(name) else {
                continue;
            };
            let (raw, mut raw_diags) = given.raw_value(name, variable.parsing_mode);
            if has_errors(&raw_diags) {
                diags.append(&mut raw_diags);
                continue;
            }
            let mut convert_diags = Vec::new();
            let value = finalize(variable, raw, given, &mut convert_diags);
            if has_errors(&convert_diags) {
                diags.extend(convert_diags);
                continue;
            }
            let planned_value = planned
                .get(name)
                .cloned()
                .unwrap_or_else(|| Value::null(variable.ty.clone()));
            if value
                .unmark_deep()
                .0
                .raw_equals(&planned_value.unmark_deep().0)
            {
                continue;
            }
            let shown = |v: &Value| {
                if variable.sensitive || v.deep_marks().is_sensitive() {
                    "(sensitive value)".to_string()
                } else {
                    terrace_value::compact::compact_value_str(v)
                }
            };
            let (planned_text, given_text) = (shown(&planned_value), shown(&value));
            let ephemeral_hint =
                "To declare an ephemeral variable which is not saved in the plan file, use ephemeral = true.";
            let mut d = match given.source {
                ValueSource::AutoFile => continue,
                ValueSource::Environment => Diagnostic::warning(
                    "Ignoring variable when applying a saved plan",
                    format!("The variable {name} cannot be overriden when applying a saved plan file, because a saved plan includes the variable values that were set when it was created. The saved plan specifies {planned_text} as the value whereas during apply the value {given_text} was set by an environment variable. {ephemeral_hint}"),
                ),
                ValueSource::CommandLine | ValueSource::Entered | ValueSource::NamedFile => {
                    let how = if given.source == ValueSource::CommandLine {
                        "a CLI argument"
                    } else {
                        "a .tfvars file passed through -var-file argument"
                    };
                    Diagnostic::error(
                        "Can't change variable when applying a saved plan",
                        format!("The variable {name} cannot be set using the -var and -var-file options when applying a saved plan file, because a saved plan includes the variable values that were set when it was created. The saved plan specifies {planned_text} as the value whereas during apply the value {given_text} was set by {how}. {ephemeral_hint}"),
                    )
                }
            };
            d.subject = given.range.clone();
            diags.push(d);
        }
        diags
    }

    fn insert(&mut self, name: String, given: Given) {
        if given.source != ValueSource::Environment {
            self.given_in_order.push((name.clone(), given.clone()));
        }
        self.values.insert(name, given);
    }

    /// The variables files that were read.
    pub fn files(&self) -> &[Arc<SourceFile>] {
        &self.files
    }

    /// The value given for `variable`, as given (not yet converted to its
    /// type), or `None` when no value was given.
    pub fn value_for(&self, variable: &Variable) -> Option<(Value, Diagnostics)> {
        let given = self.values.get(&variable.name)?;
        Some(given.raw_value(&variable.name, variable.parsing_mode))
    }

    /// Every name given a value, with the value as given (a variables
    /// file's expression evaluated, text read as an expression), the last
    /// source winning: for readers that take values whether or not a
    /// variable declares them, as a test file's `var.` does.
    pub fn given_values(&self) -> BTreeMap<String, (Value, Diagnostics)> {
        self.values
            .iter()
            .map(|(name, given)| {
                (
                    name.clone(),
                    given.raw_value(name, VariableParsingMode::Hcl),
                )
            })
            .collect()
    }

    /// Values given for names no variable declares: warnings for
    /// automatically loaded files, errors for `-var-file` and `-var`.
    /// Values given for names no variable declares: errors on the command
    /// line; from files, warnings (the first two in full, then one that
    /// counts the rest), since one variables file often serves several
    /// configurations.
    pub fn check_undeclared(&self, declared: &BTreeMap<String, Variable>) -> Diagnostics {
        let mut diags = Vec::new();
        let mut from_files = 0usize;
        for (name, given) in &self.given_in_order {
            if declared.contains_key(name) {
                continue;
            }
            match given.source {
                ValueSource::Environment => {}
                ValueSource::CommandLine | ValueSource::Entered => diags.push(Diagnostic::error(
                    "Value for undeclared variable",
                    format!("A variable named \"{name}\" was assigned on the command line, but the root module does not declare a variable of that name. To use this value, add a \"variable\" block to the configuration."),
                )),
                ValueSource::AutoFile | ValueSource::NamedFile => {
                    from_files += 1;
                    if from_files > 2 {
                        continue;
                    }
                    let path = given.file_name.clone().unwrap_or_default();
                    let path = path.strip_prefix("./").unwrap_or(&path);
                    diags.push(Diagnostic::warning(
                        "Value for undeclared variable",
                        format!("The root module does not declare a variable named \"{name}\" but a value was found in file \"{path}\". If you meant to use this value, add a \"variable\" block to the configuration.\n\nTo silence these warnings, use TF_VAR_... environment variables to provide certain \"global\" settings to all configurations in your organization. To reduce the verbosity of these warnings, use the -compact-warnings option."),
                    ));
                }
            }
        }
        if from_files > 2 {
            diags.push(Diagnostic::warning(
                "Values for undeclared variables",
                format!(
                    "In addition to the other similar warnings shown, {} other variable(s) defined without being declared.",
                    from_files - 2
                ),
            ));
        }
        diags
    }

    /// The final value of every declared variable, as plans and the console
    /// see it: the given value (or default) with type defaults applied,
    /// converted to the type constraint and marked sensitive where
    /// declared. A variable with neither value nor default is unknown.
    pub fn final_values(
        &self,
        variables: &BTreeMap<String, Variable>,
    ) -> (HashMap<String, Value>, Diagnostics) {
        let (out, mut diags, unsuitable) = self.final_values_by_stage(variables);
        diags.extend(unsuitable);
        (out, diags)
    }

    /// `final_values`, with its diagnostics in two parts by when terraform
    /// makes them: first those about the values as given (names no
    /// variable declares, text that does not parse), which it reports
    /// before planning; then those about values unsuitable for their
    /// variables (the wrong type, a null for a non-nullable variable),
    /// which it reports from the plan itself.
    pub fn final_values_by_stage(
        &self,
        variables: &BTreeMap<String, Variable>,
    ) -> (HashMap<String, Value>, Diagnostics, Diagnostics) {
        let mut diags = self.check_undeclared(variables);
        let mut unsuitable = Diagnostics::new();
        let mut out = HashMap::new();
        for (name, variable) in variables {
            let value = match self.values.get(name) {
                None => variable
                    .default
                    .clone()
                    .unwrap_or_else(|| Value::unknown(variable.ty.clone())),
                Some(Given {
                    value: GivenValue::Final(value),
                    ..
                }) => value.clone(),
                Some(given) => {
                    let (raw, raw_diags) = given.raw_value(name, variable.parsing_mode);
                    let failed = has_errors(&raw_diags);
                    diags.extend(raw_diags);
                    if failed {
                        Value::unknown(variable.ty.clone())
                    } else {
                        finalize(variable, raw, given, &mut unsuitable)
                    }
                }
            };
            let value = if variable.sensitive {
                value.mark(Marks::SENSITIVE)
            } else {
                value
            };
            out.insert(name.clone(), value);
        }
        (out, diags, unsuitable)
    }
}

fn finalize(variable: &Variable, value: Value, given: &Given, diags: &mut Diagnostics) -> Value {
    // A value from a file is blamed on where it is written; one from
    // elsewhere on the variable's declaration, naming where it was set.
    let set_outside_files = match (&given.range, given.source) {
        (Some(_), _) => None,
        (None, ValueSource::CommandLine) => {
            Some(format!("set using -var=\"{}=...\"", variable.name))
        }
        (None, ValueSource::Environment) => Some(format!(
            "set using the TF_VAR_{} environment variable",
            variable.name
        )),
        (None, ValueSource::Entered) => Some("set using an interactive prompt".to_string()),
        (None, ValueSource::AutoFile | ValueSource::NamedFile) => {
            Some("set from outside of the configuration".to_string())
        }
    };
    let name = &variable.name;
    let declared_at = &variable.decl_range;
    let value = match &variable.type_defaults {
        Some(defaults) if !value.is_null() => apply_defaults(&value, defaults),
        _ => value,
    };
    let value = match convert(&value, &variable.constraint_type) {
        Ok(v) => v,
        Err(err) => {
            // Only the message: terraform leaves out the path into the
            // value (`[1]: `) here.
            let message = &err.message;
            let (detail, subject) = match (&set_outside_files, &given.range) {
                (Some(how), _) => (
                    format!("Unsuitable value for var.{name} {how}: {message}."),
                    Some(declared_at.clone()),
                ),
                // A sensitive value's text is not shown: the declaration
                // is, and where the value was written is named.
                (None, Some(range)) if variable.sensitive => (
                    format!("The given value is not suitable for var.{name}, which is sensitive: {message}. Invalid value defined at {range}."),
                    Some(declared_at.clone()),
                ),
                (None, range) => (
                    format!("The given value is not suitable for var.{name} declared at {declared_at}: {message}."),
                    range.clone(),
                ),
            };
            let mut d = Diagnostic::error("Invalid value for input variable", detail);
            d.subject = subject;
            diags.push(d);
            return Value::unknown(variable.ty.clone());
        }
    };
    if !value.is_null() || variable.nullable {
        return value;
    }
    if let Some(default) = &variable.default {
        return default.clone();
    }
    let (detail, subject) = match &set_outside_files {
        Some(how) => (
            format!("Unsuitable value for var.{name} {how}: required variable may not be set to null."),
            Some(declared_at.clone()),
        ),
        None => (
            format!("The given value is not suitable for var.{name} defined at {declared_at}: required variable may not be set to null."),
            given.range.clone(),
        ),
    };
    let mut d = Diagnostic::error("Required variable not set", detail);
    d.subject = subject;
    diags.push(d);
    Value::unknown(variable.ty.clone())
}

/// OpenTofu's `VariableParsingMode.Parse`.
pub fn parse_text_value(name: &str, text: &str, mode: VariableParsingMode) -> (Value, Diagnostics) {
    match mode {
        VariableParsingMode::Literal => (Value::string(text), Vec::new()),
        VariableParsingMode::Hcl => {
            let source = SourceFile::new(format!("<value for var.{name}>"), text);
            let (expr, diags) = terrace_syntax::parse_expression(&source);
            if has_errors(&diags) {
                return (Value::dynamic(), diags);
            }
            Expression::native(&source, expr).constant_value()
        }
    }
}

/// Collects the values for the root module in `dir` from the environment
/// (`env`: every environment variable; only `TF_VAR_` ones are used), the
/// automatically loaded variables files, and `args`.
pub fn collect_input_values(
    dir: &Path,
    args: &[VariableArgument],
    env: impl IntoIterator<Item = (String, String)>,
) -> (InputValues, Diagnostics) {
    collect(Some(dir), args, env)
}

/// The values given to `apply PLANFILE`, to check against the plan's:
/// `TF_VAR_` variables and `args`; variables files are not loaded
/// automatically then.
pub fn collect_saved_plan_overrides(
    args: &[VariableArgument],
    env: impl IntoIterator<Item = (String, String)>,
) -> (InputValues, Diagnostics) {
    collect(None, args, env)
}

fn collect(
    auto_files_dir: Option<&Path>,
    args: &[VariableArgument],
    env: impl IntoIterator<Item = (String, String)>,
) -> (InputValues, Diagnostics) {
    let mut values = InputValues::default();
    let mut diags = Vec::new();
    let mut from_env: Vec<(String, String)> = env
        .into_iter()
        .filter_map(|(k, v)| k.strip_prefix("TF_VAR_").map(|n| (n.to_string(), v)))
        .collect();
    from_env.sort();
    for (name, text) in from_env {
        values.insert(
            name,
            Given {
                value: GivenValue::Text(text),
                source: ValueSource::Environment,
                range: None,
                file_name: None,
            },
        );
    }

    let mut files = Vec::new();
    for name in ["terraform.tfvars", "terraform.tfvars.json"] {
        if let Some(dir) = auto_files_dir.filter(|d| d.join(name).is_file()) {
            files.push(auto_file_path(dir, name));
        }
    }
    if let Some((dir, Ok(entries))) = auto_files_dir.map(|d| (d, std::fs::read_dir(d))) {
        let mut auto: Vec<String> = entries
            .filter_map(|e| e.ok())
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| n.ends_with(".auto.tfvars") || n.ends_with(".auto.tfvars.json"))
            .collect();
        auto.sort();
        files.extend(auto.into_iter().map(|n| auto_file_path(dir, &n)));
    }
    for path in &files {
        load_variables_file(path, ValueSource::AutoFile, &mut values, &mut diags);
    }
    for arg in args {
        match arg {
            VariableArgument::Var { name, text } => values.insert(
                name.clone(),
                Given {
                    value: GivenValue::Text(text.clone()),
                    source: ValueSource::CommandLine,
                    range: None,
                    file_name: None,
                },
            ),
            VariableArgument::File(path) => {
                load_variables_file(path, ValueSource::NamedFile, &mut values, &mut diags)
            }
        }
    }
    (values, diags)
}

/// The name an automatically loaded variables file is read (and shown in
/// diagnostics) by: joined to its directory as Go's `filepath.Join` does,
/// so one in the working directory is `terraform.tfvars`, not
/// `./terraform.tfvars`, as terraform names it.
fn auto_file_path(dir: &Path, name: &str) -> String {
    terrace_gocompat::path::clean(&format!("{}/{name}", dir.to_string_lossy()))
}

fn load_variables_file(
    path: &str,
    source: ValueSource,
    values: &mut InputValues,
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
    values.files.push(file.source.clone());
    let (attrs, attr_diags) = Body::from_file_owned(file).into_attributes();
    diags.extend(attr_diags);
    for attr in attrs {
        let range = attr.expr.range();
        values.insert(
            attr.name.clone(),
            Given {
                value: GivenValue::Expr(attr.expr),
                source,
                range: Some(range),
                file_name: Some(path.to_string()),
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::Body;
    use crate::decode::decode_file;

    fn variables(src: &str) -> BTreeMap<String, Variable> {
        let (file, _) = terrace_syntax::parse_native_file("main.tf", src);
        let (decoded, diags) = decode_file(&Body::from_file(&file), "main.tf", false);
        assert!(diags.is_empty(), "{diags:?}");
        decoded
            .variables
            .into_iter()
            .map(|v| (v.name.clone(), v))
            .collect()
    }

    #[test]
    fn sources_in_precedence_order_and_undeclared_names() {
        let dir = std::env::temp_dir().join(format!("terrace-config-vars-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let write = |name: &str, text: &str| {
            let _ = std::fs::write(dir.join(name), text);
        };
        write("terraform.tfvars", "a = \"file\"\nstray = 1\n");
        write("b.auto.tfvars.json", "{\"b\": \"${not a template}\"}");
        write("explicit.tfvars", "c = 3\nalso_stray = 2\n");
        let explicit = dir.join("explicit.tfvars").to_string_lossy().into_owned();
        let args = [
            VariableArgument::Var {
                name: "a".into(),
                text: "cli".into(),
            },
            VariableArgument::File(explicit),
            VariableArgument::Var {
                name: "nope".into(),
                text: "x".into(),
            },
        ];
        let env = [
            ("TF_VAR_a".to_string(), "env".to_string()),
            ("TF_VAR_d".to_string(), "[1]".to_string()),
            ("HOME".to_string(), "/".to_string()),
        ];
        let (values, diags) = collect_input_values(&dir, &args, env);
        let _ = std::fs::remove_dir_all(&dir);
        assert!(diags.is_empty(), "{diags:?}");
        let declared = variables(
            "variable \"a\" {}\nvariable \"b\" {}\nvariable \"c\" { type = number }\nvariable \"d\" { type = list(number) }\nvariable \"e\" { default = \"def\" }\nvariable \"f\" {}\n",
        );
        let (finals, diags) = values.final_values(&declared);
        let summary: Vec<(bool, String)> = diags
            .iter()
            .map(|d| {
                (
                    d.is_error(),
                    d.detail.split(" but").next().unwrap_or("").to_string(),
                )
            })
            .collect();
        assert_eq!(
            summary,
            [
                (
                    false,
                    "The root module does not declare a variable named \"stray\"".to_string()
                ),
                // A -var-file value no variable declares is a warning too,
                // as terraform 1.11 words it.
                (
                    false,
                    "The root module does not declare a variable named \"also_stray\"".to_string()
                ),
                (
                    true,
                    "A variable named \"nope\" was assigned on the command line,".to_string()
                ),
            ]
        );
        assert_eq!(finals["a"].as_str(), Some("cli"));
        // JSON variables files are read literally, as HCL reads them.
        assert_eq!(finals["b"].as_str(), Some("${not a template}"));
        assert_eq!(
            finals["c"].as_number().map(|n| n.text('f', -1)),
            Some("3".into())
        );
        assert_eq!(finals["d"].as_elements().map(<[Value]>::len), Some(1));
        assert_eq!(finals["e"].as_str(), Some("def"));
        assert!(!finals["f"].is_known());
    }

    #[test]
    fn text_values_follow_the_parsing_mode() {
        let (v, d) = parse_text_value("x", "[1, 2]", VariableParsingMode::Hcl);
        assert!(d.is_empty());
        assert_eq!(v.as_elements().map(|e| e.len()), Some(2));
        let (v, _) = parse_text_value("x", "[1, 2]", VariableParsingMode::Literal);
        assert_eq!(v.as_str(), Some("[1, 2]"));
        let (_, d) = parse_text_value("x", "[1,", VariableParsingMode::Hcl);
        assert!(has_errors(&d));
        assert!(d[0]
            .subject
            .as_ref()
            .is_some_and(|s| s.filename == "<value for var.x>"));
    }
}
