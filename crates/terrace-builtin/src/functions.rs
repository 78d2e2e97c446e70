//! The provider's functions (`provider::terraform::encode_tfvars`,
//! `decode_tfvars`, `encode_expr`) through the `Provider` trait. Their
//! implementations live in terrace-lang, which also uses them directly;
//! here they are only given the shape of a provider function call.

use terrace_lang::funcs::call::CallError;
use terrace_lang::scope::terraform_provider_function;
use terrace_providers::{CallFunctionRequest, CallFunctionResponse, FunctionError};
use terrace_value::convert::convert;

pub fn call(request: CallFunctionRequest) -> CallFunctionResponse {
    CallFunctionResponse {
        result: call_inner(request),
    }
}

fn call_inner(request: CallFunctionRequest) -> Result<terrace_value::Value, FunctionError> {
    let Some(function) = terraform_provider_function(&request.name) else {
        return Err(FunctionError::new(format!(
            "provider function {:?} not found",
            request.name
        )));
    };
    let params = function.params();
    if request.arguments.len() != params.len() {
        return Err(FunctionError::new(format!(
            "function {:?} takes {} argument(s), but {} were given",
            request.name,
            params.len(),
            request.arguments.len()
        )));
    }
    // The caller converts arguments to the parameter types already; a
    // caller that did not still gets Terraform's conversion errors, not
    // a wrong result.
    let mut arguments = Vec::with_capacity(params.len());
    for (index, (argument, param)) in request.arguments.iter().zip(params).enumerate() {
        let converted = convert(argument, &param.ty).map_err(|e| FunctionError {
            text: e.to_string(),
            argument: Some(index),
        })?;
        arguments.push(converted);
    }
    function.call(arguments).map_err(|e| match e {
        CallError::Function(e) => FunctionError {
            text: e.message,
            argument: e.argument,
        },
        CallError::NotEnoughArguments { missing } => {
            FunctionError::new(format!("missing value for argument {missing:?}"))
        }
        CallError::TooManyArguments { expected } => {
            FunctionError::new(format!("function takes {expected} argument(s)"))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use terrace_value::{Type, Value};

    fn run(name: &str, arguments: Vec<Value>) -> Result<Value, FunctionError> {
        call(CallFunctionRequest {
            name: name.into(),
            arguments,
        })
        .result
    }

    #[test]
    fn calls_each_function() {
        let object = Value::object(
            [
                ("a".to_string(), Value::int(1)),
                ("b".to_string(), Value::string("x")),
            ]
            .into(),
        );
        let encoded = run("encode_tfvars", vec![object.clone()]);
        assert_eq!(
            encoded.as_ref().ok().and_then(Value::as_str),
            Some("a = 1\nb = \"x\"\n")
        );
        let decoded = run("decode_tfvars", vec![Value::string("a = 1\nb = \"x\"\n")]);
        assert!(decoded.is_ok_and(|v| v.raw_equals(&object)));
        let expr = run(
            "encode_expr",
            vec![Value::tuple(vec![Value::bool(true), Value::int(2)])],
        );
        assert_eq!(
            expr.as_ref().ok().and_then(Value::as_str),
            Some("[true, 2]")
        );
        // Unknown arguments make unknown results.
        let unknown = run("encode_expr", vec![Value::dynamic()]);
        assert!(unknown.is_ok_and(|v| !v.is_known() && v.ty() == &Type::String));
    }

    #[test]
    fn errors() {
        let cases: Vec<(&str, Vec<Value>, Option<usize>)> = vec![
            ("nope", vec![], None),
            ("encode_expr", vec![], None),
            ("encode_tfvars", vec![Value::int(1)], None),
            ("decode_tfvars", vec![Value::string("a = ")], None),
            ("decode_tfvars", vec![Value::tuple(vec![])], Some(0)),
            ("encode_expr", vec![Value::null(Type::String)], Some(0)),
        ];
        for (name, arguments, argument) in cases {
            match run(name, arguments) {
                Ok(v) => panic!("{name}: unexpected {v:?}"),
                Err(e) => assert_eq!(e.argument, argument, "{name}: {e}"),
            }
        }
        let Err(e) = run("nope", vec![]) else {
            panic!("found nope");
        };
        assert_eq!(e.text, r#"provider function "nope" not found"#);
    }
}
