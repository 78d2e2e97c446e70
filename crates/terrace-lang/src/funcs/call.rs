//! Calling a function: argument count and type checks, conversion of each
//! argument to its parameter type (as HCL's FunctionCallExpr does before cty
//! sees the call), then cty's `Function.Call` rules for nulls, unknowns,
//! dynamic types and marks.

use super::{CallContext, Function, FunctionError, FunctionResult, Param, ReturnType};
use terrace_value::convert::convert;
use terrace_value::{Marks, Type, Value};

/// Why a call could not be made, for the evaluator to turn into HCL's
/// diagnostics ("Not enough function arguments", "Too many function
/// arguments", "Invalid function argument", "Error in function call").
#[derive(Clone, Debug, PartialEq)]
pub enum CallError {
    NotEnoughArguments { missing: &'static str },
    TooManyArguments { expected: usize },
    Function(FunctionError),
}

impl From<FunctionError> for CallError {
    fn from(e: FunctionError) -> CallError {
        CallError::Function(e)
    }
}

/// Calls `function` with `args`. The return type computation and the
/// implementation only ever see arguments converted to their parameter
/// types, with marks removed unless the parameter allows them.
pub fn call_function(
    function: &Function,
    args: Vec<Value>,
    ctx: &CallContext<'_>,
) -> Result<Value, CallError> {
    if args.len() < function.params.len() {
        return Err(CallError::NotEnoughArguments {
            missing: function.params[args.len()].name,
        });
    }
    if function.variadic.is_none() && args.len() > function.params.len() {
        return Err(CallError::TooManyArguments {
            expected: function.params.len(),
        });
    }

    let mut converted = Vec::with_capacity(args.len());
    let mut result_marks = Marks::NONE;
    // An unknown result returned without calling the function carries the
    // marks of every argument, those its parameters would have taken
    // marked too: `tostring(sensitive(x))` is sensitive while x is unknown.
    let mut all_marks = Marks::NONE;
    let mut return_unknown = false;
    let mut untyped_argument = false;
    for (index, arg) in args.into_iter().enumerate() {
        let Some(param) = function.param_for(index) else {
            return Err(CallError::TooManyArguments {
                expected: function.params.len(),
            });
        };
        let arg = convert_argument(param, index, arg)?;
        if arg.is_null() && !param.allow_null {
            return Err(FunctionError::arg(index, "argument must not be null").into());
        }
        if arg.ty().is_dynamic() && !param.allow_dynamic_type {
            return_unknown = true;
            untyped_argument = true;
        }
        let arg = if param.allow_marked {
            all_marks = all_marks.union(arg.deep_marks());
            arg
        } else {
            let (unmarked, marks) = arg.unmark_deep();
            result_marks = result_marks.union(marks);
            unmarked
        };
        if !arg.is_known() && !param.allow_unknown {
            return_unknown = true;
        }
        converted.push(arg);
    }

    // Only an argument of unknown type that its parameter cannot take
    // leaves the result type unknown (cty's `dynTypedArgs`); parameters that
    // allow dynamic types still get their return type computed.
    let return_type = if untyped_argument {
        Type::Dynamic
    } else {
        match &function.return_type {
            ReturnType::Static(ty) => ty.clone(),
            ReturnType::Computed(type_fn) => type_fn(ctx, &converted)?,
        }
    };

    if return_unknown {
        let result = Value::unknown(return_type.clone());
        let result = if function.refine_not_null && !return_type.is_dynamic() {
            result.refine_not_null()
        } else {
            result
        };
        return Ok(result.mark(result_marks.union(all_marks)));
    }

    let result = (function.implementation)(ctx, &converted, &return_type)?;
    let result = if function.refine_not_null && !result.is_known() && !result.ty().is_dynamic() {
        result.refine_not_null()
    } else {
        result
    };
    Ok(result.mark(result_marks))
}

fn convert_argument(param: &Param, index: usize, arg: Value) -> FunctionResult<Value> {
    if param.ty.is_dynamic() {
        return Ok(arg);
    }
    // HCL reports `err.Error()` of cty's path error, which is the message
    // without the path (`alltrue([true, "x"])` says "a bool is required").
    convert(&arg, &param.ty).map_err(|e| FunctionError::arg(index, e.message))
}
