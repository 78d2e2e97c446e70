//! Binary and unary operators. As in HCL, each operator is a cty function
//! (`stdlib.AddFunc`, `stdlib.EqualFunc`...) with that function's
//! parameter rules: operands are first converted to the parameter type
//! ("Invalid operand"), then the call machinery handles nulls ("argument
//! must not be null"), unknowns and marks. Both operands are always
//! evaluated: HCL 2.23 does not short-circuit `&&` and `||`.

use super::Evaluator;
use crate::funcs::call::{call_function, CallError};
use crate::funcs::{CallContext, Function, FunctionError, FunctionResult, Param, ReturnType};
use std::sync::OnceLock;
use terrace_syntax::ast::{BinaryOp, BinaryOperand, Expr, UnaryOp};
use terrace_syntax::diagnostic::has_errors;
use terrace_syntax::Span;
use terrace_value::convert::convert;
use terrace_value::ops::ValueError;
use terrace_value::{Type, Value};

struct Operators {
    or: Function,
    and: Function,
    not: Function,
    equal: Function,
    not_equal: Function,
    greater: Function,
    greater_or_equal: Function,
    less: Function,
    less_or_equal: Function,
    add: Function,
    subtract: Function,
    multiply: Function,
    divide: Function,
    modulo: Function,
    negate: Function,
}

fn operators() -> &'static Operators {
    static OPS: OnceLock<Operators> = OnceLock::new();
    OPS.get_or_init(|| {
        let logical = |name| {
            Param::new(name, Type::Bool)
                .allow_dynamic_type()
                .allow_marked()
        };
        let any = |name| {
            Param::new(name, Type::Dynamic)
                .allow_unknown()
                .allow_dynamic_type()
                .allow_null()
        };
        let compare = |name| {
            Param::new(name, Type::Number)
                .allow_unknown()
                .allow_dynamic_type()
                .allow_marked()
        };
        let arith = |name| Param::new(name, Type::Number).allow_dynamic_type();
        let bool_ret = || ReturnType::Static(Type::Bool);
        let num_ret = || ReturnType::Static(Type::Number);
        Operators {
            or: Function::new("or", vec![logical("a"), logical("b")], bool_ret(), or_impl),
            and: Function::new(
                "and",
                vec![logical("a"), logical("b")],
                bool_ret(),
                and_impl,
            ),
            not: Function::new("not", vec![logical("val")], bool_ret(), not_impl),
            equal: Function::new("equal", vec![any("a"), any("b")], bool_ret(), equal_impl),
            not_equal: Function::new(
                "notequal",
                vec![any("a"), any("b")],
                bool_ret(),
                not_equal_impl,
            ),
            greater: Function::new(
                "greaterthan",
                vec![compare("a"), compare("b")],
                bool_ret(),
                greater_impl,
            ),
            greater_or_equal: Function::new(
                "greaterthanorequalto",
                vec![compare("a"), compare("b")],
                bool_ret(),
                greater_or_equal_impl,
            ),
            less: Function::new(
                "lessthan",
                vec![compare("a"), compare("b")],
                bool_ret(),
                less_impl,
            ),
            less_or_equal: Function::new(
                "lessthanorequalto",
                vec![compare("a"), compare("b")],
                bool_ret(),
                less_or_equal_impl,
            ),
            add: Function::new("add", vec![arith("a"), arith("b")], num_ret(), add_impl),
            subtract: Function::new(
                "subtract",
                vec![arith("a"), arith("b")],
                num_ret(),
                subtract_impl,
            ),
            multiply: Function::new(
                "multiply",
                vec![arith("a"), arith("b")],
                num_ret(),
                multiply_impl,
            ),
            divide: Function::new(
                "divide",
                vec![arith("a"), arith("b")],
                num_ret(),
                divide_impl,
            ),
            modulo: Function::new(
                "modulo",
                vec![arith("a"), arith("b")],
                num_ret(),
                modulo_impl,
            ),
            negate: Function::new(
                "negate",
                vec![Param::new("num", Type::Number)
                    .allow_dynamic_type()
                    .allow_marked()],
                num_ret(),
                negate_impl,
            ),
        }
    })
}

fn binary_function(op: BinaryOp) -> &'static Function {
    let ops = operators();
    match op {
        BinaryOp::Or => &ops.or,
        BinaryOp::And => &ops.and,
        BinaryOp::Equal => &ops.equal,
        BinaryOp::NotEqual => &ops.not_equal,
        BinaryOp::Greater => &ops.greater,
        BinaryOp::GreaterOrEqual => &ops.greater_or_equal,
        BinaryOp::Less => &ops.less,
        BinaryOp::LessOrEqual => &ops.less_or_equal,
        BinaryOp::Add => &ops.add,
        BinaryOp::Subtract => &ops.subtract,
        BinaryOp::Multiply => &ops.multiply,
        BinaryOp::Divide => &ops.divide,
        BinaryOp::Modulo => &ops.modulo,
    }
}

fn result_type(f: &Function) -> Type {
    match &f.return_type {
        ReturnType::Static(t) => t.clone(),
        ReturnType::Computed(_) => Type::Dynamic,
    }
}

fn call_error_message(e: CallError) -> String {
    match e {
        CallError::Function(FunctionError { message, .. }) => message,
        CallError::NotEnoughArguments { missing } => format!("missing argument {missing:?}"),
        CallError::TooManyArguments { expected } => format!("expected {expected} arguments"),
    }
}

impl<'a> Evaluator<'a> {
    /// A chain `first op rhs op rhs ...`, folded from the left in a loop so
    /// its length costs no stack. Each step is HCL's `BinaryOpExpr`: both
    /// operands are evaluated and converted, and a step whose chain so far
    /// produced an error yields an unknown value of its result type.
    pub(crate) fn eval_binary(&mut self, first: &'a Expr, rest: &'a [BinaryOperand]) -> Value {
        let start = self.diags.len();
        let mut lhs_value = self.eval(first);
        let mut lhs_span = first.span;
        for operand in rest {
            let span = lhs_span.to(operand.rhs.span);
            lhs_value =
                self.eval_binary_step(span, operand.op, (lhs_value, lhs_span), &operand.rhs, start);
            lhs_span = span;
        }
        lhs_value
    }

    fn eval_binary_step(
        &mut self,
        span: Span,
        op: BinaryOp,
        (l, lhs_span): (Value, Span),
        rhs: &'a Expr,
        start: usize,
    ) -> Value {
        let f = binary_function(op);
        let r = self.eval(rhs);
        let l = match convert(&l, &f.params[0].ty) {
            Ok(v) => v,
            Err(e) => {
                self.push_error_about(
                    "Invalid operand",
                    format!("Unsuitable value for left operand: {}.", e.message),
                    lhs_span,
                    Some(span),
                    lhs_span,
                );
                l
            }
        };
        let r = match convert(&r, &f.params[1].ty) {
            Ok(v) => v,
            Err(e) => {
                self.push_error_about(
                    "Invalid operand",
                    format!("Unsuitable value for right operand: {}.", e.message),
                    rhs.span,
                    Some(span),
                    rhs.span,
                );
                r
            }
        };
        if has_errors(&self.diags[start..]) {
            return Value::unknown(result_type(f));
        }
        let ctx = CallContext::default();
        match call_function(f, vec![l, r], &ctx) {
            Ok(v) => v,
            Err(e) => {
                self.push_error(
                    "Operation failed",
                    format!("Error during operation: {}.", call_error_message(e)),
                    span,
                    None,
                );
                Value::unknown(result_type(f))
            }
        }
    }

    pub(crate) fn eval_unary(&mut self, span: Span, op: UnaryOp, operand: &'a Expr) -> Value {
        let ops = operators();
        let f = match op {
            UnaryOp::Not => &ops.not,
            UnaryOp::Negate => &ops.negate,
        };
        let start = self.diags.len();
        let v = self.eval(operand);
        let v = match convert(&v, &f.params[0].ty) {
            Ok(v) => v,
            Err(e) => {
                self.push_error_about(
                    "Invalid operand",
                    format!("Unsuitable value for unary operand: {}.", e.message),
                    operand.span,
                    Some(span),
                    operand.span,
                );
                v
            }
        };
        if has_errors(&self.diags[start..]) {
            return Value::unknown(result_type(f));
        }
        let ctx = CallContext::default();
        match call_function(f, vec![v], &ctx) {
            Ok(v) => v,
            Err(e) => {
                self.push_error(
                    "Operation failed",
                    format!("Error during operation: {}.", call_error_message(e)),
                    span,
                    None,
                );
                Value::unknown(result_type(f))
            }
        }
    }
}

// ----- the operator implementations (cty's stdlib bool/number/general) -----

fn value_error(e: ValueError) -> FunctionError {
    FunctionError::call(e.to_string())
}

macro_rules! binary_impl {
    ($name:ident, $method:ident) => {
        fn $name(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
            args[0].$method(&args[1]).map_err(value_error)
        }
    };
}

binary_impl!(or_impl, or);
binary_impl!(and_impl, and);
binary_impl!(greater_impl, greater_than);
binary_impl!(greater_or_equal_impl, greater_than_or_equal_to);
binary_impl!(less_impl, less_than);
binary_impl!(less_or_equal_impl, less_than_or_equal_to);
binary_impl!(add_impl, add);
binary_impl!(subtract_impl, subtract);
binary_impl!(multiply_impl, multiply);
binary_impl!(divide_impl, divide);
binary_impl!(modulo_impl, modulo);

fn equal_impl(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    Ok(args[0].equals(&args[1]))
}

fn not_equal_impl(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    Ok(args[0].not_equal(&args[1]))
}

fn not_impl(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    args[0].not().map_err(value_error)
}

fn negate_impl(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    args[0].negate().map_err(value_error)
}
