//! `terrace output [-json] [-raw] [-no-color] [-state=path] [NAME]`: the
//! root module's output values from the current state, in Terraform's
//! three forms: HCL-like (`name = value`, sensitive ones as
//! `<sensitive>` when listing all), `-json` (one value, or every output
//! with its type and sensitivity), and `-raw` (a string, number or bool
//! printed without quotes or newline, for shell scripts).

// A command reports at most a few diagnostics, so returning them by value
// costs nothing worth boxing for.
#![allow(clippy::result_large_err)]

use crate::state_meta::{self, Ui};
use std::collections::BTreeMap;
use terrace_gocompat::json as gojson;
use terrace_states::model::OutputState;
use terrace_syntax::Diagnostic;
use terrace_syntax::PRODUCT;
use terrace_value::{Type, Value};

const HELP: &str = "Usage: terrace [global options] output [options] [NAME]

  Reads an output variable from a state file and prints the value.
  With no additional arguments, output will display all the outputs for
  the root module. If NAME is not specified, all outputs are printed.

Options:

  -state=path      Path to the state file to read. Defaults to
                   \"terraform.tfstate\".

  -no-color        If specified, output won't contain any color.

  -json            If specified, machine readable output will be
                   printed in JSON format.

  -raw             For value types that can be automatically
                   converted to a string, will print the raw
                   string directly, rather than a human-oriented
                   representation of the value.
";

const HELP_HINT: &str = "For more help on using this command, run:\n  terrace output -help";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Human,
    Json,
    Raw,
}

pub fn run(argv: &[String]) -> i32 {
    let mut ui = Ui::new();
    let (flags, positionals) = state_meta::parse_args(argv, &[]);
    let mut json = false;
    let mut raw = false;
    let mut state = None;
    let mut problems = Vec::new();
    for (name, value) in flags {
        match (name.as_str(), value.as_deref()) {
            ("help" | "h", _) => {
                out!("{HELP}");
                return 0;
            }
            ("json", v) => match state_meta::parse_bool("json", v) {
                Ok(b) => json = b,
                Err(e) => problems.push(e),
            },
            ("raw", v) => match state_meta::parse_bool("raw", v) {
                Ok(b) => raw = b,
                Err(e) => problems.push(e),
            },
            ("no-color", _) => ui.color = false,
            // Accepted as terraform accepts it on every command.
            ("compact-warnings", _) => {}
            ("state", Some(path)) => state = (!path.is_empty()).then(|| path.into()),
            (other, _) => problems.push(format!("flag provided but not defined: -{other}")),
        }
    }
    let mut diags = Vec::new();
    if let Some(problem) = problems.into_iter().next() {
        diags.push(Diagnostic::error(
            "Failed to parse command-line flags",
            problem,
        ));
    } else if positionals.len() > 1 {
        diags.push(Diagnostic::error(
            "Unexpected argument",
            "The output command expects exactly one argument with the name of an output variable \
             or no arguments to show all outputs.",
        ));
    } else if raw && json {
        diags.push(Diagnostic::error(
            "Invalid output format",
            "The -raw and -json options are mutually-exclusive.",
        ));
    } else if raw && positionals.is_empty() {
        diags.push(Diagnostic::error(
            "Output name required",
            "You must give the name of a single output value when using the -raw option.",
        ));
    }
    if !diags.is_empty() {
        // The hint follows the diagnostic, outside its box.
        ui.diagnostics(&diags);
        eprintln!("\n{HELP_HINT}");
        return 1;
    }
    let format = if raw {
        Format::Raw
    } else if json {
        Format::Json
    } else {
        Format::Human
    };

    let outputs = match load_outputs(state) {
        Ok(outputs) => outputs,
        Err(diags) => {
            ui.diagnostics(&diags);
            return 1;
        }
    };
    match render(format, positionals.first().map(String::as_str), &outputs) {
        Ok(Rendered { stdout, warning }) => {
            out!("{stdout}");
            if let Some(w) = warning {
                ui.diagnostics(&[w]);
            }
            0
        }
        Err(d) => {
            ui.diagnostics(&[d]);
            1
        }
    }
}

fn load_outputs(
    state: Option<std::path::PathBuf>,
) -> Result<BTreeMap<String, OutputState>, Vec<Diagnostic>> {
    let mut backend = state_meta::open_backend(terrace_states::backend::LocalBackendOptions {
        state,
        ..Default::default()
    })
    .map_err(|e| {
        vec![Diagnostic::error(
            format!("Error selecting workspace: {e}"),
            "",
        )]
    })?;
    let loaded = state_meta::read_state(backend.as_mut())?;
    Ok(loaded.state.map(|s| s.outputs).unwrap_or_default())
}

/// What a successful `output` prints.
#[derive(Debug, PartialEq)]
struct Rendered {
    stdout: String,
    /// "No outputs found", after the (empty) output.
    warning: Option<Diagnostic>,
}

fn render(
    format: Format,
    name: Option<&str>,
    outputs: &BTreeMap<String, OutputState>,
) -> Result<Rendered, Diagnostic> {
    let ok = |stdout: String| {
        Ok(Rendered {
            stdout,
            warning: None,
        })
    };
    if outputs.is_empty() && format != Format::Json {
        return Ok(Rendered {
            stdout: String::new(),
            warning: Some(no_outputs_warning()),
        });
    }
    let one = |name: &str| -> Result<Value, Diagnostic> {
        outputs
            .get(name)
            .map(|o| o.value.unmark_deep().0)
            .ok_or_else(|| missing_output(name))
    };
    match (format, name) {
        (Format::Human, Some(name)) => {
            let value = one(name)?;
            ok(format!("{}\n", terrace_plans::format_value(&value, 0)))
        }
        (Format::Human, None) => {
            let mut lines = String::new();
            for (name, output) in outputs {
                if output.sensitive {
                    lines.push_str(&format!("{name} = <sensitive>\n"));
                } else {
                    let (value, _) = output.value.unmark_deep();
                    lines.push_str(&format!(
                        "{name} = {}\n",
                        terrace_plans::format_value(&value, 0)
                    ));
                }
            }
            ok(format!("{}\n", lines.trim()))
        }
        (Format::Json, Some(name)) => {
            let value = one(name)?;
            ok(format!("{}\n", value_json(&value)?))
        }
        (Format::Json, None) => {
            let mut doc = String::from("{");
            for (i, (name, output)) in outputs.iter().enumerate() {
                if i > 0 {
                    doc.push(',');
                }
                let (value, _) = output.value.unmark_deep();
                gojson::write_string(&mut doc, name);
                doc.push_str(&format!(
                    ":{{\"sensitive\":{},\"type\":{},\"value\":{}}}",
                    output.sensitive,
                    terrace_value::typejson::type_to_json(value.ty()),
                    value_json(&value)?
                ));
            }
            doc.push('}');
            ok(format!(
                "{}\n",
                gojson::indent(&gojson::compact(doc.as_bytes()))
            ))
        }
        (Format::Raw, name) => {
            let name = name.unwrap_or_default();
            let value = one(name)?;
            ok(raw_text(name, &value)?)
        }
    }
}

/// A value as `ctyjson.Marshal` writes it (compact, HTML-safe).
fn value_json(value: &Value) -> Result<String, Diagnostic> {
    let text = terrace_value::json::to_json(value, value.ty())
        .map_err(|e| Diagnostic::error(e.to_string(), ""))?;
    Ok(gojson::compact(text.as_bytes()))
}

/// `-raw`: the value converted to a string.
fn raw_text(name: &str, value: &Value) -> Result<String, Diagnostic> {
    let unsupported =
        |detail: String| Diagnostic::error("Unsupported value for raw output", detail);
    let converted = match terrace_value::convert::convert(value, &Type::String) {
        Ok(v) => v,
        Err(_) => {
            return Err(unsupported(format!(
                "The -raw option only supports strings, numbers, and boolean values, but output \
                 value {name:?} is {}.\n\nUse the -json option for machine-readable \
                 representations of output values that have complex types.",
                value.ty().friendly_name()
            )))
        }
    };
    if converted.is_null() {
        return Err(unsupported(format!(
            "The value for output value {name:?} is null, so -raw mode cannot print it."
        )));
    }
    match converted.as_str() {
        Some(s) if converted.is_known() => Ok(s.to_string()),
        _ => Err(unsupported(format!(
            "The value for output value {name:?} won't be known until after a successful \
             {PRODUCT} apply, so -raw mode cannot print it."
        ))),
    }
}

fn no_outputs_warning() -> Diagnostic {
    Diagnostic::warning(
        "No outputs found",
        format!(
            "The state file either has no outputs defined, or all the defined outputs are empty. \
         Please define an output in your configuration with the `output` keyword and run \
         `{PRODUCT} refresh` for it to become available. If you are using interpolation, \
         please verify the interpolated value is not empty. You can use the `{PRODUCT} \
         console` command to assist."
        ),
    )
}

fn missing_output(name: &str) -> Diagnostic {
    Diagnostic::error(
        format!("Output {name:?} not found"),
        format!(
            "The output variable requested could not be found in the state file. If you recently \
         added this to your configuration, be sure to run `{PRODUCT} apply`, since the state \
         won't be updated with new output variables until that command is run."
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use terrace_value::Number;

    fn outputs() -> BTreeMap<String, OutputState> {
        let mut m = BTreeMap::new();
        let mut add = |name: &str, value: Value, sensitive: bool| {
            m.insert(name.to_string(), OutputState { value, sensitive });
        };
        add("str", Value::string("<a>&"), false);
        let big = Number::parse("1.5e30")
            .map(Value::number)
            .unwrap_or_else(|| Value::int(0));
        add("num", big, false);
        add("flag", Value::bool(true), false);
        add(
            "list",
            Value::tuple(vec![Value::int(1), Value::string("a")]),
            false,
        );
        add("secret", Value::string("hunter2"), true);
        add("nul", Value::null(Type::String), false);
        m
    }

    // Expected texts are terraform 1.11.4's for outputs with these values.
    #[test]
    fn formats_as_terraform_does() {
        let outs = outputs();
        let cases: &[(Format, Option<&str>, Result<&str, &str>)] = &[
            (Format::Human, Some("str"), Ok("\"<a>&\"\n")),
            (Format::Human, Some("secret"), Ok("\"hunter2\"\n")),
            (
                Format::Human,
                None,
                Ok("flag = true\nlist = [\n  1,\n  \"a\",\n]\nnul = tostring(null)\nnum = 1500000000000000000000000000000\nsecret = <sensitive>\nstr = \"<a>&\"\n"),
            ),
            (Format::Raw, Some("str"), Ok("<a>&")),
            (Format::Raw, Some("num"), Ok("1500000000000000000000000000000")),
            (Format::Raw, Some("flag"), Ok("true")),
            (Format::Raw, Some("secret"), Ok("hunter2")),
            (Format::Raw, Some("list"), Err("Unsupported value for raw output")),
            (Format::Raw, Some("nul"), Err("Unsupported value for raw output")),
            (Format::Raw, Some("nope"), Err("Output \"nope\" not found")),
            (Format::Json, Some("str"), Ok("\"\\u003ca\\u003e\\u0026\"\n")),
            (Format::Json, Some("list"), Ok("[1,\"a\"]\n")),
            (Format::Json, Some("nope"), Err("Output \"nope\" not found")),
        ];
        for (format, name, want) in cases {
            let got = render(*format, *name, &outs);
            match (got, want) {
                (Ok(r), Ok(text)) => assert_eq!(r.stdout, *text, "{format:?} {name:?}"),
                (Err(d), Err(summary)) => assert_eq!(d.summary, *summary, "{format:?} {name:?}"),
                (got, _) => panic!("{format:?} {name:?}: {got:?}"),
            }
        }
    }

    #[test]
    fn json_lists_every_output_with_its_type() {
        let mut outs = BTreeMap::new();
        outs.insert(
            "s".to_string(),
            OutputState {
                value: Value::string("x"),
                sensitive: true,
            },
        );
        outs.insert(
            "t".to_string(),
            OutputState {
                value: Value::tuple(vec![Value::int(1)]),
                sensitive: false,
            },
        );
        let got = render(Format::Json, None, &outs).map(|r| r.stdout);
        let want = "{\n  \"s\": {\n    \"sensitive\": true,\n    \"type\": \"string\",\n    \"value\": \"x\"\n  },\n  \"t\": {\n    \"sensitive\": false,\n    \"type\": [\n      \"tuple\",\n      [\n        \"number\"\n      ]\n    ],\n    \"value\": [\n      1\n    ]\n  }\n}\n";
        assert_eq!(got, Ok(want.to_string()));
    }

    #[test]
    fn no_outputs_warns_except_in_json() {
        let none = BTreeMap::new();
        let human = render(Format::Human, None, &none).map(|r| r.warning.map(|w| w.summary));
        assert_eq!(human, Ok(Some("No outputs found".to_string())));
        let json = render(Format::Json, None, &none).map(|r| (r.stdout, r.warning.is_none()));
        assert_eq!(json, Ok(("{}\n".to_string(), true)));
    }
}
