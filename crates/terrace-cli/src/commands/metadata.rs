//! `terrace metadata functions -json`: the signatures of the built-in
//! functions in terraform's document shape (`format_version` "1.0",
//! `function_signatures` by name, each name also under `core::`), taken
//! from the function table the evaluator calls, so the description cannot
//! claim a function or a parameter the language does not have.

use crate::PRODUCT;
use serde_json::{Map, Value as Json};
use terrace_lang::funcs::{builtins, function_description, Function, Param};
use terrace_syntax::{Diagnostic, Diagnostics};
use terrace_value::typejson::type_to_json;

/// The version of the document's layout, which terraform 1.11 writes.
const FORMAT_VERSION: &str = "1.0";

fn metadata_usage() -> String {
    format!(
        "Usage: {PRODUCT} [global options] metadata <subcommand> [options] [args]

  This command has subcommands for metadata related purposes.

Subcommands:
    functions    Show signatures and descriptions for the available functions
"
    )
}

fn functions_usage() -> String {
    format!(
        "
Usage: {PRODUCT} [global options] metadata functions -json

  Prints out a json representation of the available function signatures.
"
    )
}

/// `terrace metadata SUBCOMMAND`.
pub fn run(argv: &[String]) -> i32 {
    match argv.first().map(String::as_str) {
        Some("functions") => functions(&argv[1..]),
        Some("-help" | "--help" | "-h" | "--h") => {
            out!("{}", metadata_usage());
            0
        }
        // As terraform: the list of subcommands, and a failure status.
        _ => {
            out!("{}", metadata_usage());
            1
        }
    }
}

fn functions(argv: &[String]) -> i32 {
    let mut json = false;
    let mut color = std::env::var_os("NO_COLOR").is_none();
    for arg in argv {
        // Go's flag package: one or two dashes, `-json=true` as `-json`;
        // the first word that is not a flag ends the flags.
        let Some(flag) = arg.strip_prefix("--").or_else(|| arg.strip_prefix('-')) else {
            break;
        };
        let (name, value) = match flag.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (flag, None),
        };
        match (name, value) {
            ("help" | "h", _) => {
                outln!("{}", functions_usage());
                return 0;
            }
            ("json", None | Some("true" | "1" | "t" | "T" | "TRUE" | "True")) => json = true,
            ("json", Some("false" | "0" | "f" | "F" | "FALSE" | "False")) => json = false,
            ("no-color", _) => color = false,
            _ => {
                error_text(&functions_usage(), color);
                error_text(
                    &format!("Error parsing command-line flags: flag provided but not defined: -{name}\n"),
                    color,
                );
                return 1;
            }
        }
    }
    if !json {
        error_text(
            &format!("The `{PRODUCT} metadata functions` command requires the `-json` flag.\n"),
            color,
        );
        error_text(&functions_usage(), color);
        return 1;
    }
    match functions_document() {
        Ok(text) => {
            outln!("{text}");
            0
        }
        Err(diags) => {
            crate::diag_output::print_diags(
                &diags,
                terrace_syntax::render::SourceMap::new(),
                color,
            );
            1
        }
    }
}

/// Text on standard error as terraform's command UI writes an error: red,
/// then a reset, with a newline after.
fn error_text(text: &str, color: bool) {
    if color {
        eprintln!("\x1b[31m{text}\x1b[0m\x1b[0m");
    } else {
        eprintln!("{text}");
    }
}

/// The whole document, on one line, as Go's encoder writes it.
pub fn functions_document() -> Result<String, Diagnostics> {
    let mut names: Vec<&'static str> = builtins().keys().copied().collect();
    names.sort_unstable();
    let mut signatures: Vec<(String, Json)> = Vec::new();
    let mut diags: Diagnostics = Vec::new();
    for name in names {
        let Some(function) = builtins().get(name) else {
            continue;
        };
        match signature(function) {
            Ok(sig) => {
                signatures.push((format!("core::{name}"), sig.clone()));
                signatures.push((name.to_string(), sig));
            }
            Err(message) => diags.push(Diagnostic::error(
                format!(
                    "Failed to serialize function {}",
                    terrace_value::gostr::quote(name)
                ),
                message,
            )),
        }
    }
    if !diags.is_empty() {
        return Err(diags);
    }
    // Go writes a map's keys in byte order.
    signatures.sort_by(|a, b| a.0.cmp(&b.0));
    let mut doc = Map::new();
    doc.insert("format_version".into(), FORMAT_VERSION.into());
    doc.insert(
        "function_signatures".into(),
        Json::Object(signatures.into_iter().collect()),
    );
    Ok(go_compact_json(&Json::Object(doc)))
}

fn signature(function: &Function) -> Result<Json, String> {
    let mut sig = Map::new();
    if let Some(text) = function_description(function.name) {
        sig.insert("description".into(), text.into());
    }
    let return_type = function.signature_return_type().map_err(|e| e.message)?;
    sig.insert("return_type".into(), type_json(&return_type)?);
    if !function.params.is_empty() {
        let params = function
            .params
            .iter()
            .map(parameter)
            .collect::<Result<Vec<Json>, String>>()?;
        sig.insert("parameters".into(), Json::Array(params));
    }
    if let Some(variadic) = &function.variadic {
        sig.insert("variadic_parameter".into(), parameter(variadic)?);
    }
    Ok(Json::Object(sig))
}

fn parameter(param: &Param) -> Result<Json, String> {
    let mut out = Map::new();
    out.insert("name".into(), param.name.into());
    if param.allow_null {
        out.insert("is_nullable".into(), true.into());
    }
    out.insert("type".into(), type_json(&param.ty)?);
    Ok(Json::Object(out))
}

fn type_json(ty: &terrace_value::Type) -> Result<Json, String> {
    serde_json::from_str(&type_to_json(ty)).map_err(|e| e.to_string())
}

/// `json.Marshal`'s text: compact, with `<`, `>`, `&`, U+2028 and U+2029
/// escaped inside strings (the only place they can occur).
fn go_compact_json(value: &Json) -> String {
    terrace_gocompat::json::escape_html(&serde_json::to_string(value).unwrap_or_default())
}
