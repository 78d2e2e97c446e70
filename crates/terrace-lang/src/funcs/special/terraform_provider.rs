//! The functions of Terraform's built-in `terraform` provider
//! (`terraform.io/builtin/terraform`), available as
//! `provider::terraform::NAME` in modules that declare that provider:
//! `encode_tfvars`, `decode_tfvars` and `encode_expr`.
//!
//! As for every provider function, arguments that are not wholly known
//! make an unknown result, and marks are taken off the arguments and put
//! on the result.

use super::hclwrite;
use crate::eval::{diagnostic_error_string, evaluate, valid_identifier};
use crate::funcs::call::CallError;
use crate::funcs::{FunctionError, Param};
use crate::scope::{ExternalFunction, MapScope};
use std::sync::Arc;
use terrace_syntax::ast::Body;
use terrace_syntax::diagnostic::has_errors;
use terrace_value::gostr;
use terrace_value::{Type, Value};

/// The names `provider::terraform::` offers.
pub const TERRAFORM_PROVIDER_FUNCTIONS: &[&str] =
    &["decode_tfvars", "encode_expr", "encode_tfvars"];

/// One of the built-in provider's functions by name.
pub fn terraform_provider_function(name: &str) -> Option<Arc<dyn ExternalFunction>> {
    let f: Arc<dyn ExternalFunction> = match name {
        "encode_tfvars" => Arc::new(TfFunction {
            params: vec![Param::new("value", Type::Dynamic)],
            ret: Type::String,
            imp: encode_tfvars,
        }),
        "decode_tfvars" => Arc::new(TfFunction {
            params: vec![Param::new("src", Type::String)],
            ret: Type::Dynamic,
            imp: decode_tfvars,
        }),
        "encode_expr" => Arc::new(TfFunction {
            params: vec![Param::new("value", Type::Dynamic)],
            ret: Type::String,
            imp: encode_expr,
        }),
        _ => return None,
    };
    Some(f)
}

struct TfFunction {
    params: Vec<Param>,
    ret: Type,
    imp: fn(&Value) -> Result<Value, FunctionError>,
}

impl ExternalFunction for TfFunction {
    fn params(&self) -> &[Param] {
        &self.params
    }

    fn variadic(&self) -> Option<&Param> {
        None
    }

    fn return_type(&self) -> Type {
        self.ret.clone()
    }

    fn call(&self, args: Vec<Value>) -> Result<Value, CallError> {
        let Some(arg) = args.first() else {
            return Err(CallError::NotEnoughArguments {
                missing: self.params[0].name,
            });
        };
        if arg.is_null() {
            return Err(FunctionError::arg(0, "argument must not be null").into());
        }
        let (arg, marks) = arg.unmark_deep();
        if !arg.is_wholly_known() {
            let unknown = Value::unknown(self.ret.clone());
            return Ok(if self.ret.is_dynamic() {
                unknown
            } else {
                unknown.refine_not_null()
            }
            .mark(marks));
        }
        let result = (self.imp)(&arg)?;
        Ok(result.mark(marks))
    }
}

fn encode_tfvars(value: &Value) -> Result<Value, FunctionError> {
    let attrs = match value.as_attributes() {
        Some(a) if value.ty().is_object() || value.ty().is_map() => a,
        _ => {
            return Err(FunctionError::call(
                "invalid value to encode: must be an object whose attribute names will become the encoded variable names",
            ))
        }
    };
    let mut items = Vec::with_capacity(attrs.len());
    for (name, v) in attrs {
        if !valid_identifier(name) {
            return Err(FunctionError::call(format!(
                "invalid variable name {}: must be a valid identifier, per Terraform's rules for input variable declarations",
                gostr::quote(name)
            )));
        }
        items.push((name.as_str(), v));
    }
    let text = hclwrite::tfvars_text(&items)
        .ok_or_else(|| FunctionError::call("value is not wholly known"))?;
    Ok(Value::string(text))
}

fn encode_expr(value: &Value) -> Result<Value, FunctionError> {
    let text = hclwrite::expression_text(value)
        .ok_or_else(|| FunctionError::call("value is not wholly known"))?;
    Ok(Value::string(text))
}

const DECODE_FILENAME: &str = "<decode_tfvars argument>";

fn decode_tfvars(src: &Value) -> Result<Value, FunctionError> {
    let text = src.as_str().unwrap_or_default();
    let (file, diags) = terrace_syntax::parse_native_file(DECODE_FILENAME, text);
    if let Some(d) = diags.iter().find(|d| d.is_error()) {
        return Err(FunctionError::call(format!(
            "invalid tfvars syntax: {}",
            diagnostic_error_string(d)
        )));
    }
    let Body::Native(body) = &file.body else {
        return Err(FunctionError::call("invalid tfvars content"));
    };
    if let Some(block) = body.blocks.first() {
        let d = terrace_syntax::Diagnostic::error(
            format!("Unexpected {} block", gostr::quote(&block.block_type)),
            "Blocks are not allowed here.",
        )
        .with_subject(file.source.range(block.type_span));
        return Err(FunctionError::call(format!(
            "invalid tfvars content: {}",
            diagnostic_error_string(&d)
        )));
    }
    let scope = MapScope::constant();
    let mut values = std::collections::BTreeMap::new();
    for attr in &body.attributes {
        let (v, diags) = evaluate(&attr.expr, &file.source, &scope);
        if has_errors(&diags) {
            let first = diags
                .iter()
                .find(|d| d.is_error())
                .map(diagnostic_error_string)
                .unwrap_or_default();
            return Err(FunctionError::call(format!(
                "invalid expression for variable {}: {first}",
                gostr::quote(&attr.name)
            )));
        }
        values.insert(attr.name.clone(), v);
    }
    Ok(Value::object(values))
}

#[cfg(test)]
mod tests {
    use super::*;
    use terrace_value::Marks;

    fn call(name: &str, arg: Value) -> Result<Value, CallError> {
        terraform_provider_function(name)
            .map(|f| f.call(vec![arg]))
            .unwrap_or(Err(CallError::TooManyArguments { expected: 0 }))
    }

    fn obj(items: Vec<(&str, Value)>) -> Value {
        Value::object(items.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    }

    fn text(r: Result<Value, CallError>) -> String {
        match r {
            Ok(v) => v
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| format!("{v:?}")),
            Err(e) => format!("error: {e:?}"),
        }
    }

    #[test]
    fn encode_expr_formats_like_hclwrite() {
        let s = Value::string;
        let n = Value::int;
        let rows: Vec<(Value, &str)> = vec![
            (n(1), "1"),
            (Value::bool(true), "true"),
            (s("a\nb\t\"${x}%{y}$z\\"), "\"a\\nb\\t\\\"$${x}%%{y}$z\\\\\""),
            (Value::empty_tuple(), "[]"),
            (Value::empty_object(), "{}"),
            (Value::tuple(vec![n(1), s("x"), Value::null(Type::Dynamic)]), "[1, \"x\", null]"),
            (obj(vec![("a", n(1))]), "{\n  a = 1\n}"),
            (
                obj(vec![
                    ("a", n(1)),
                    ("bbb", Value::tuple(vec![n(1), n(2)])),
                    ("c", obj(vec![("d", s("x${y}")), ("e f", Value::null(Type::Dynamic))])),
                ]),
                "{\n  a   = 1\n  bbb = [1, 2]\n  c = {\n    d     = \"x$${y}\"\n    \"e f\" = null\n  }\n}",
            ),
            (
                Value::tuple(vec![
                    obj(vec![("a", n(1))]),
                    obj(vec![("bb", n(2)), ("c", Value::tuple(vec![obj(vec![("x", n(1))])]))]),
                ]),
                "[{\n  a = 1\n  }, {\n  bb = 2\n  c = [{\n    x = 1\n  }]\n}]",
            ),
            (
                obj(vec![("1a", n(1)), ("a-b", n(2)), ("_x", n(3)), ("if", n(4)), ("é", n(5))]),
                "{\n  \"1a\" = 1\n  _x   = 3\n  a-b  = 2\n  if   = 4\n  é    = 5\n}",
            ),
            (Value::tuple(vec![obj(vec![("a", obj(vec![("b", Value::tuple(vec![Value::empty_object()]))]))]), s("x")]), "[{\n  a = {\n    b = [{}]\n  }\n}, \"x\"]"),
        ];
        for (v, want) in rows {
            assert_eq!(text(call("encode_expr", v.clone())), want, "{v:?}");
        }
    }

    #[test]
    fn encode_tfvars_bodies() {
        let n = Value::int;
        let v = obj(vec![
            ("a", obj(vec![("b", n(1)), ("cc", n(2))])),
            ("list", Value::tuple(vec![n(1), n(2)])),
            ("s", Value::string("x")),
        ]);
        assert_eq!(
            text(call("encode_tfvars", v)),
            "a = {\n  b  = 1\n  cc = 2\n}\nlist = [1, 2]\ns    = \"x\"\n"
        );
        assert_eq!(text(call("encode_tfvars", Value::empty_object())), "");
        assert_eq!(
            text(call(
                "encode_tfvars",
                obj(vec![(
                    "a",
                    Value::tuple(vec![obj(vec![("x", n(1)), ("yy", n(2))])])
                )])
            )),
            "a = [{\n  x  = 1\n  yy = 2\n}]\n"
        );
        assert_eq!(
            call("encode_tfvars", n(1)),
            Err(CallError::Function(FunctionError::call(
                "invalid value to encode: must be an object whose attribute names will become the encoded variable names"
            )))
        );
        assert_eq!(
            call("encode_tfvars", obj(vec![("a b", n(1))])),
            Err(CallError::Function(FunctionError::call(
                "invalid variable name \"a b\": must be a valid identifier, per Terraform's rules for input variable declarations"
            )))
        );
        let secret = call(
            "encode_tfvars",
            obj(vec![("a", n(1).mark(Marks::SENSITIVE))]),
        )
        .map(|v| v.is_sensitive());
        assert_eq!(secret, Ok(true));
        let unknown = call(
            "encode_expr",
            Value::tuple(vec![Value::unknown(Type::String)]),
        )
        .map(|v| v.is_known());
        assert_eq!(unknown, Ok(false));
    }

    #[test]
    fn decode_tfvars_contents() {
        let v = call(
            "decode_tfvars",
            Value::string("a = 1\nb = [1, true]\nc = {x = \"y\"}"),
        )
        .unwrap_or_else(|_| Value::dynamic());
        let attrs = v
            .as_attributes()
            .map(|a| a.keys().cloned().collect::<Vec<_>>());
        assert_eq!(attrs, Some(vec!["a".to_string(), "b".into(), "c".into()]));
        let err = |src: &str| match call("decode_tfvars", Value::string(src)) {
            Err(CallError::Function(e)) => e.message,
            other => format!("{other:?}"),
        };
        assert_eq!(err("a = var.x"), "invalid expression for variable \"a\": <decode_tfvars argument>:1,5-8: Variables not allowed; Variables may not be used here.");
        assert_eq!(err("a = upper(\"x\")"), "invalid expression for variable \"a\": <decode_tfvars argument>:1,5-15: Function calls not allowed; Functions may not be called here.");
        assert_eq!(err("a = "), "invalid tfvars syntax: <decode_tfvars argument>:1,5-5: Missing expression; Expected the start of an expression, but found the end of the file.");
        assert_eq!(err("a = 1\nb {}\nc {}"), "invalid tfvars content: <decode_tfvars argument>:2,1-2: Unexpected \"b\" block; Blocks are not allowed here.");
        assert_eq!(
            err("a = 1\na = 2"),
            "invalid tfvars syntax: <decode_tfvars argument>:2,1-2: Attribute redefined; The argument \"a\" was already set at <decode_tfvars argument>:1,1-2. Each argument may be set only once."
        );
        assert_eq!(
            call("decode_tfvars", Value::string("")).map(|v| v.as_attributes().map(|a| a.len())),
            Ok(Some(0))
        );
    }
}
