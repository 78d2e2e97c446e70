//! Built-in functions: encodings (`base64*`, `textencodebase64`,
//! `textdecodebase64`, `urlencode`, `csvdecode`, `jsonencode`,
//! `jsondecode`, `yamlencode`, `yamldecode`, and OpenTofu's `base64gunzip`
//! and `urldecode`).
//!
//! Byte-level behaviour follows the Go libraries Terraform uses: Go's
//! base64 decoder (which skips line breaks and reports the offset of the
//! first bad byte), `net/url` escaping, `encoding/csv`, `compress/gzip`
//! (see `deflate`), `golang.org/x/text` character sets (see `charset`) and
//! go-cty-yaml (see `yaml`). JSON goes through `terrace_value::json`.

mod charset;
mod deflate;
mod yaml;

use super::{
    arg_str, redact, CallContext, Function, FunctionError, FunctionResult, Param, ReturnType,
};
use std::collections::{BTreeMap, HashSet};
use terrace_gocompat::url::{query_escape, query_unescape};
use terrace_syntax::PRODUCT;
use terrace_value::gostr;
use terrace_value::{Marks, Refinement, Type, Value};

pub(crate) fn register(out: &mut Vec<Function>) {
    let string_fn = |name: &'static str, param: Param, implementation| {
        Function::new(
            name,
            vec![param],
            ReturnType::Static(Type::String),
            implementation,
        )
    };
    out.push(string_fn(
        "base64decode",
        Param::new("str", Type::String).allow_marked(),
        base64decode,
    ));
    out.push(string_fn(
        "base64encode",
        Param::new("str", Type::String),
        base64encode,
    ));
    out.push(string_fn(
        "base64gzip",
        Param::new("str", Type::String),
        base64gzip,
    ));
    out.push(string_fn(
        "base64gunzip",
        Param::new("str", Type::String).allow_marked(),
        base64gunzip,
    ));
    out.push(string_fn(
        "urlencode",
        Param::new("str", Type::String),
        urlencode,
    ));
    out.push(string_fn(
        "urldecode",
        Param::new("str", Type::String),
        urldecode,
    ));
    out.push(Function::new(
        "textencodebase64",
        vec![
            Param::new("string", Type::String),
            Param::new("encoding", Type::String),
        ],
        ReturnType::Static(Type::String),
        textencodebase64,
    ));
    out.push(Function::new(
        "textdecodebase64",
        vec![
            Param::new("source", Type::String),
            Param::new("encoding", Type::String),
        ],
        ReturnType::Static(Type::String),
        textdecodebase64,
    ));
    out.push(Function::new(
        "csvdecode",
        vec![Param::new("str", Type::String)],
        ReturnType::Computed(csvdecode_type),
        csvdecode,
    ));
    out.push(Function::new(
        "jsonencode",
        vec![Param::new("val", Type::Dynamic)
            .allow_unknown()
            .allow_dynamic_type()
            .allow_null()],
        ReturnType::Static(Type::String),
        jsonencode,
    ));
    // cty's JSONDecodeFunc declares no result refinement.
    out.push(
        Function::new(
            "jsondecode",
            vec![Param::new("str", Type::String)],
            ReturnType::Computed(jsondecode_type),
            jsondecode,
        )
        .nullable_result(),
    );
    out.push(
        Function::new(
            "yamlencode",
            vec![Param::new("value", Type::Dynamic)
                .allow_null()
                .allow_dynamic_type()],
            ReturnType::Static(Type::String),
            yamlencode,
        )
        .nullable_result(),
    );
    out.push(
        Function::new(
            "yamldecode",
            vec![Param::new("src", Type::String)],
            ReturnType::Computed(yamldecode_type),
            yamldecode,
        )
        .nullable_result(),
    );
}

// ----- base64 -----

pub(super) use terrace_gocompat::base64::{decode as base64_decode, encode as base64_encode};

fn unmark_str(value: &Value) -> (Value, Marks) {
    value.clone().unmark()
}

fn base64decode(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let (value, marks) = unmark_str(&args[0]);
    let text = value.as_str().unwrap_or_default();
    let decoded = base64_decode(text.as_bytes()).map_err(|_| {
        FunctionError::call(format!(
            "failed to decode base64 data {}",
            redact(text, marks)
        ))
    })?;
    let decoded = String::from_utf8(decoded).map_err(|_| {
        FunctionError::call("the result of decoding the provided string is not valid UTF-8")
    })?;
    Ok(Value::string(decoded).mark(marks))
}

fn base64encode(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    Ok(Value::string(base64_encode(arg_str(args, 0)?.as_bytes())))
}

fn base64gzip(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let compressed = deflate::gzip(arg_str(args, 0)?.as_bytes());
    Ok(Value::string(base64_encode(&compressed)))
}

fn base64gunzip(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let (value, marks) = unmark_str(&args[0]);
    let text = value.as_str().unwrap_or_default();
    let decoded = base64_decode(text.as_bytes()).map_err(|_| {
        FunctionError::call(format!(
            "failed to decode base64 data {}",
            redact(text, marks)
        ))
    })?;
    let data = deflate::gunzip(&decoded).map_err(FunctionError::call)?;
    Ok(Value::string(String::from_utf8_lossy(&data)).mark(marks))
}

fn textencodebase64(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let text = arg_str(args, 0)?;
    let encoding_name = arg_str(args, 1)?;
    let encoding =
        charset::lookup(encoding_name).ok_or_else(|| unsupported_encoding(encoding_name))?;
    let bytes = encoding.encode(text).ok_or_else(|| {
        FunctionError::arg(
            0,
            format!(
                "the given string contains characters that cannot be represented in {}",
                encoding.name()
            ),
        )
    })?;
    Ok(Value::string(base64_encode(&bytes)))
}

fn textdecodebase64(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let source = arg_str(args, 0)?;
    let encoding_name = arg_str(args, 1)?;
    let encoding =
        charset::lookup(encoding_name).ok_or_else(|| unsupported_encoding(encoding_name))?;
    let bytes = base64_decode(source.as_bytes()).map_err(|offset| {
        FunctionError::arg(
            0,
            format!("the given value is has an invalid base64 symbol at offset {offset}"),
        )
    })?;
    let decoded = encoding
        .decode(&bytes)
        .filter(|text| !text.contains('\u{fffd}'))
        .ok_or_else(|| {
            FunctionError::arg(
                0,
                format!(
                    "the given string contains symbols that are not defined for {}",
                    encoding.name()
                ),
            )
        })?;
    Ok(Value::string(decoded))
}

fn unsupported_encoding(name: &str) -> FunctionError {
    FunctionError::arg(
        1,
        format!(
            "{} is not a supported IANA encoding name or alias in this {PRODUCT} version",
            gostr::quote(name)
        ),
    )
}

// ----- URLs -----

fn urlencode(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    Ok(Value::string(query_escape(arg_str(args, 0)?)))
}

fn urldecode(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let text = arg_str(args, 0)?;
    query_unescape(text)
        .map(Value::string)
        .map_err(|e| FunctionError::call(format!("failed to decode URL '': {e}")))
}

// ----- CSV -----

/// An `encoding/csv` parse error, reported by cty with only its line.
#[derive(Debug, PartialEq)]
struct CsvError {
    line: usize,
    message: &'static str,
}

impl std::fmt::Display for CsvError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CSV parse error on line {}: {}", self.line, self.message)
    }
}

const QUOTE_ERROR: &str = "extraneous or missing \" in quoted-field";

/// A reader with Go's `encoding/csv` rules: `,` separators, RFC 4180
/// quoting (no lazy quotes), empty lines skipped, `\r\n` read as `\n`.
/// Line numbers count every line read, as Go's `numLine` does.
struct CsvReader<'a> {
    input: &'a str,
    pos: usize,
    line: usize,
}

impl<'a> CsvReader<'a> {
    fn new(input: &'a str) -> CsvReader<'a> {
        CsvReader {
            input,
            pos: 0,
            line: 0,
        }
    }

    /// Go's `readLine`: the next line including its `\n`, with `\r\n`
    /// normalised and a `\r` before the end of input dropped. An empty
    /// string at the end of the input.
    fn read_line(&mut self) -> String {
        self.line += 1;
        let rest = &self.input[self.pos..];
        let (mut line, at_eof) = match rest.find('\n') {
            Some(i) => (rest[..=i].to_string(), false),
            None => (rest.to_string(), true),
        };
        self.pos += line.len();
        if at_eof && line.ends_with('\r') {
            line.pop();
        }
        if line.ends_with("\r\n") {
            line.truncate(line.len() - 2);
            line.push('\n');
        }
        line
    }

    fn quote_error(&self) -> CsvError {
        CsvError {
            line: self.line,
            message: "extraneous or missing \" in quoted-field",
        }
    }

    /// The next record and the line it starts on; `None` at the end.
    fn read_record(&mut self) -> Result<Option<(usize, Vec<String>)>, CsvError> {
        let mut line = loop {
            if self.pos >= self.input.len() {
                self.line += 1;
                return Ok(None);
            }
            let line = self.read_line();
            if line != "\n" {
                break line;
            }
        };
        let record_line = self.line;
        let mut content_line = record_line;
        let mut fields = Vec::new();
        let mut pos = 0;
        'fields: loop {
            let rest = &line[pos..];
            if !rest.starts_with('"') {
                let (field, next) = match rest.find(',') {
                    Some(i) => (&rest[..i], Some(pos + i + 1)),
                    None => (rest.strip_suffix('\n').unwrap_or(rest), None),
                };
                if field.contains('"') {
                    return Err(CsvError {
                        line: self.line,
                        message: "bare \" in non-quoted-field",
                    });
                }
                fields.push(field.to_string());
                match next {
                    Some(next) => {
                        pos = next;
                        continue 'fields;
                    }
                    None => break 'fields,
                }
            }
            // A quoted field, which may go on over several lines.
            let mut field = String::new();
            pos += 1;
            loop {
                let rest = &line[pos..];
                if let Some(i) = rest.find('"') {
                    field.push_str(&rest[..i]);
                    pos += i + 1;
                    let after = &line[pos..];
                    if after.starts_with('"') {
                        field.push('"');
                        pos += 1;
                    } else if after.starts_with(',') {
                        fields.push(std::mem::take(&mut field));
                        pos += 1;
                        continue 'fields;
                    } else if after.is_empty() || after == "\n" {
                        fields.push(std::mem::take(&mut field));
                        break 'fields;
                    } else {
                        return Err(self.quote_error());
                    }
                } else if !rest.is_empty() {
                    field.push_str(rest);
                    line = self.read_line();
                    pos = 0;
                    if !line.is_empty() {
                        content_line = self.line;
                    }
                } else {
                    // Go reports the last line that had content here.
                    return Err(CsvError {
                        line: content_line,
                        message: QUOTE_ERROR,
                    });
                }
            }
        }
        Ok(Some((record_line, fields)))
    }
}

fn csv_headers(text: &str) -> FunctionResult<Vec<String>> {
    let mut reader = CsvReader::new(text);
    let headers = match reader.read_record() {
        Ok(Some((_, headers))) => headers,
        Ok(None) => return Err(FunctionError::call("missing header line")),
        Err(e) => return Err(FunctionError::call(e.to_string())),
    };
    let mut seen = HashSet::new();
    for name in &headers {
        if !seen.insert(name.as_str()) {
            return Err(FunctionError::call(format!(
                "duplicate column name {}",
                gostr::quote(name)
            )));
        }
    }
    Ok(headers)
}

fn csvdecode_type(_: &CallContext<'_>, args: &[Value]) -> FunctionResult<Type> {
    let Some(text) = args[0].as_str() else {
        return Ok(Type::Dynamic);
    };
    let headers = csv_headers(text)?;
    Ok(Type::list(Type::object(
        headers.into_iter().map(|name| (name, Type::String)),
    )))
}

fn csvdecode(_: &CallContext<'_>, args: &[Value], ret: &Type) -> FunctionResult<Value> {
    let text = arg_str(args, 0)?;
    let element_type = ret.element_type().cloned().unwrap_or(Type::Dynamic);
    let mut reader = CsvReader::new(text);
    let headers = match reader.read_record() {
        Ok(Some((_, headers))) => headers,
        Ok(None) => return Err(FunctionError::call("missing header line")),
        Err(e) => return Err(FunctionError::call(e.to_string())),
    };
    let mut rows = Vec::new();
    loop {
        match reader.read_record() {
            Ok(None) => break,
            Ok(Some((line, fields))) => {
                if fields.len() != headers.len() {
                    return Err(FunctionError::call(format!(
                        "CSV parse error on line {line}: wrong number of fields"
                    )));
                }
                let attrs: BTreeMap<String, Value> = headers
                    .iter()
                    .cloned()
                    .zip(fields.into_iter().map(Value::string))
                    .collect();
                rows.push(Value::object(attrs));
            }
            Err(e) => return Err(FunctionError::call(e.to_string())),
        }
    }
    Ok(Value::list(element_type, rows))
}

// ----- JSON -----

fn jsonencode(_: &CallContext<'_>, args: &[Value], ret: &Type) -> FunctionResult<Value> {
    let value = &args[0];
    if !value.is_wholly_known() {
        // The first character still tells a consumer what kind of JSON
        // value this will be, unless it could be `null`.
        if !value.is_definitely_not_null() {
            return Ok(Value::unknown(ret.clone()));
        }
        let prefix = match value.ty() {
            Type::String => Some("\""),
            Type::Object(_) | Type::Map(_) => Some("{"),
            Type::Tuple(_) | Type::List(_) | Type::Set(_) => Some("["),
            _ => None,
        };
        let refinement = Refinement {
            not_null: true,
            string_prefix: prefix.map(str::to_string),
            ..Refinement::default()
        };
        return Ok(Value::unknown_refined(ret.clone(), refinement));
    }
    if value.is_null() {
        return Ok(Value::string("null"));
    }
    let text = terrace_value::json::to_json(value, value.ty())
        .map_err(|e| FunctionError::call(e.to_string()))?;
    Ok(Value::string(text.trim()))
}

fn jsondecode_type(_: &CallContext<'_>, args: &[Value]) -> FunctionResult<Type> {
    let source = &args[0];
    let Some(text) = source.as_str() else {
        let prefix = source
            .refinement()
            .and_then(|r| r.string_prefix.as_deref())
            .unwrap_or("");
        return match prefix.trim().chars().next() {
            None | Some('{' | '[' | 'n') => Ok(Type::Dynamic),
            Some('"') => Ok(Type::String),
            Some('t' | 'f') => Ok(Type::Bool),
            Some('-' | '0'..='9' | '.') => Ok(Type::Number),
            Some(c) => Err(FunctionError::arg(
                0,
                format!(
                    "a JSON document cannot begin with the character {}",
                    gostr::quote_rune(c)
                ),
            )),
        };
    };
    terrace_value::json::implied_type(text.as_bytes())
        .map_err(|e| FunctionError::call(e.to_string()))
}

fn jsondecode(_: &CallContext<'_>, args: &[Value], ret: &Type) -> FunctionResult<Value> {
    let text = arg_str(args, 0)?;
    terrace_value::json::from_json(text.as_bytes(), ret)
        .map_err(|e| FunctionError::call(e.to_string()))
}

// ----- YAML -----

fn yamlencode(_: &CallContext<'_>, args: &[Value], ret: &Type) -> FunctionResult<Value> {
    if !args[0].is_wholly_known() {
        return Ok(Value::unknown(ret.clone()));
    }
    yaml::marshal(&args[0])
        .map(Value::string)
        .map_err(FunctionError::call)
}

fn yamldecode_type(_: &CallContext<'_>, args: &[Value]) -> FunctionResult<Type> {
    match args[0].as_str() {
        Some(text) => yaml::implied_type(text).map_err(FunctionError::call),
        None => Ok(Type::Dynamic),
    }
}

fn yamldecode(_: &CallContext<'_>, args: &[Value], ret: &Type) -> FunctionResult<Value> {
    yaml::unmarshal(arg_str(args, 0)?, ret).map_err(FunctionError::call)
}

#[cfg(test)]
mod tests;
