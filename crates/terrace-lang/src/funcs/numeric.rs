//! Built-in functions: numeric (`abs`, `ceil`, `floor`, `log`, `max`,
//! `min`, `parseint`, `pow`, `signum`), as cty's stdlib defines them, plus
//! the number-argument helpers the other groups share (cty's `gocty`
//! conversions to Go `int` and `float64`, with their error texts).

use super::{CallContext, Function, FunctionError, FunctionResult, Param, ReturnType};
use num_bigint::{BigInt, Sign};
use std::cmp::Ordering;
use terrace_value::gomath;
use terrace_value::gostr;
use terrace_value::{Number, Type, Value};

pub(crate) fn register(out: &mut Vec<Function>) {
    let num = || Param::new("num", Type::Number);
    out.push(Function::new(
        "abs",
        vec![num().allow_dynamic_type().allow_marked()],
        ReturnType::Static(Type::Number),
        abs,
    ));
    out.push(Function::new(
        "ceil",
        vec![num()],
        ReturnType::Static(Type::Number),
        ceil,
    ));
    out.push(Function::new(
        "floor",
        vec![num()],
        ReturnType::Static(Type::Number),
        floor,
    ));
    out.push(Function::new(
        "log",
        vec![num(), Param::new("base", Type::Number)],
        ReturnType::Static(Type::Number),
        log,
    ));
    out.push(Function::new(
        "pow",
        vec![num(), Param::new("power", Type::Number)],
        ReturnType::Static(Type::Number),
        pow,
    ));
    out.push(Function::new(
        "signum",
        vec![num()],
        ReturnType::Static(Type::Number),
        signum,
    ));
    out.push(
        Function::new("max", vec![], ReturnType::Static(Type::Number), max)
            .variadic(Param::new("numbers", Type::Number).allow_dynamic_type()),
    );
    out.push(
        Function::new("min", vec![], ReturnType::Static(Type::Number), min)
            .variadic(Param::new("numbers", Type::Number).allow_dynamic_type()),
    );
    out.push(Function::new(
        "parseint",
        vec![
            Param::new("number", Type::Dynamic),
            Param::new("base", Type::Number),
        ],
        ReturnType::Computed(parseint_type),
        parseint,
    ));
}

// ----- helpers shared with the other function groups -----

/// gocty's message for a number that does not fit a Go `int`.
pub(super) const NOT_WHOLE_NUMBER: &str =
    "value must be a whole number, between -9223372036854775808 and 9223372036854775807";

/// The number as a Go `int`, as `gocty.FromCtyValue(v, &intVar)` does it.
pub(super) fn whole_number(n: &Number) -> Result<i64, String> {
    n.to_i64().ok_or_else(|| NOT_WHOLE_NUMBER.to_string())
}

/// The number as a Go `float64`, as `gocty.FromCtyValue(v, &floatVar)` does
/// it: precision may be lost, but a finite number must not become infinite.
pub(super) fn float64(n: &Number) -> Result<f64, String> {
    let f = n.to_f64();
    if f.is_infinite() && !n.is_infinite() {
        return Err(format!(
            "value must be between {:.6} and {:.6} inclusive",
            -f64::MAX,
            f64::MAX
        ));
    }
    Ok(f)
}

/// `cty.NumberFloatVal`, which panics on NaN; cty's call machinery turns
/// that panic into the error Terraform prints (without the stack trace).
pub(super) fn float_number(f: f64) -> FunctionResult<Value> {
    match Number::from_f64(f) {
        Some(n) => Ok(Value::number(n)),
        None => Err(FunctionError::call(
            "panic in function implementation: Float.SetFloat64(NaN)",
        )),
    }
}

/// The known number in argument `index`. The call machinery guarantees it
/// for parameters of number type that do not allow nulls or unknowns.
pub(super) fn number_arg(args: &[Value], index: usize) -> FunctionResult<&Number> {
    args.get(index)
        .and_then(Value::as_number)
        .ok_or_else(|| FunctionError::arg(index, "a known number is required"))
}

// ----- implementations -----

fn abs(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    // The parameter allows marks, so they are carried over by hand.
    let marks = args[0].marks();
    let n = number_arg(args, 0)?;
    Ok(Value::number(n.abs()).mark(marks))
}

fn ceil(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let n = number_arg(args, 0)?;
    if n.is_infinite() {
        return Ok(Value::number(n.clone()));
    }
    Ok(Value::number(n.ceil()))
}

fn floor(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let n = number_arg(args, 0)?;
    if n.is_infinite() {
        return Ok(Value::number(n.clone()));
    }
    Ok(Value::number(n.floor()))
}

fn log(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let num = float64(number_arg(args, 0)?).map_err(FunctionError::call)?;
    let base = float64(number_arg(args, 1)?).map_err(FunctionError::call)?;
    float_number(gomath::log(num) / gomath::log(base))
}

fn pow(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let num = float64(number_arg(args, 0)?).map_err(FunctionError::call)?;
    let power = float64(number_arg(args, 1)?).map_err(FunctionError::call)?;
    float_number(gomath::pow(num, power))
}

fn signum(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let n = whole_number(number_arg(args, 0)?).map_err(FunctionError::call)?;
    Ok(Value::int(n.signum()))
}

/// `max` and `min` keep the winning argument itself (and so its precision);
/// ties go to the earliest argument.
fn extreme(args: &[Value], wanted: Ordering) -> FunctionResult<Value> {
    if args.is_empty() {
        return Err(FunctionError::call("must pass at least one number"));
    }
    let mut best: Option<(&Number, &Value)> = None;
    for (i, arg) in args.iter().enumerate() {
        let n = number_arg(args, i)?;
        match best {
            Some((b, _)) if n.cmp(b) != wanted => {}
            _ => best = Some((n, arg)),
        }
    }
    match best {
        Some((_, v)) => Ok(v.clone()),
        None => Err(FunctionError::call("must pass at least one number")),
    }
}

fn max(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    extreme(args, Ordering::Greater)
}

fn min(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    extreme(args, Ordering::Less)
}

fn parseint_type(_: &CallContext<'_>, args: &[Value]) -> FunctionResult<Type> {
    let ty = args[0].ty();
    if *ty != Type::String {
        return Err(FunctionError::arg(
            0,
            format!(
                "first argument must be a string, not {}",
                ty.friendly_name()
            ),
        ));
    }
    Ok(Type::Number)
}

fn parseint(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let text = args[0]
        .as_str()
        .ok_or_else(|| FunctionError::arg(0, "a known string is required"))?;
    let base = whole_number(number_arg(args, 1)?).map_err(|m| FunctionError::arg(1, m))?;
    if !(2..=62).contains(&base) {
        return Err(FunctionError::arg(
            1,
            "base must be a whole number between 2 and 62 inclusive",
        ));
    }
    match parse_big_int(text, base as u32) {
        Some(n) => Ok(Value::number(Number::from_bigint(&n))),
        None => Err(FunctionError::arg(
            0,
            format!(
                "cannot parse {} as a base {} integer",
                gostr::quote(text),
                base
            ),
        )),
    }
}

/// `big.Int.SetString(s, base)` for an explicit base: an optional sign,
/// then at least one digit and nothing else (no prefix, no underscores).
/// Up to base 36 letters are case-insensitive; above it lower case letters
/// are 10-35 and upper case ones 36-61.
fn parse_big_int(text: &str, base: u32) -> Option<BigInt> {
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if digits.is_empty() {
        return None;
    }
    let mut values = Vec::with_capacity(digits.len());
    for b in digits.bytes() {
        let d = match b {
            b'0'..=b'9' => u32::from(b - b'0'),
            b'a'..=b'z' => u32::from(b - b'a') + 10,
            b'A'..=b'Z' if base <= 36 => u32::from(b - b'A') + 10,
            b'A'..=b'Z' => u32::from(b - b'A') + 36,
            _ => return None,
        };
        if d >= base {
            return None;
        }
        values.push(d as u8);
    }
    let magnitude = BigInt::from_radix_be(Sign::Plus, &values, base)?;
    Some(if negative { -magnitude } else { magnitude })
}

#[cfg(test)]
mod tests {
    use super::super::testing::{call, err_arg, err_call, num};
    use terrace_value::{Marks, Value};

    #[test]
    fn abs_ceil_floor() {
        call("abs", vec![num("-1.5")], Ok(num("1.5")));
        call("abs", vec![Value::int(3)], Ok(Value::int(3)));
        call(
            "abs",
            vec![Value::int(-3).mark(Marks::SENSITIVE)],
            Ok(Value::int(3).mark(Marks::SENSITIVE)),
        );
        call("abs", vec![num("-Inf")], Ok(num("+Inf")));
        call("ceil", vec![num("1.2")], Ok(Value::int(2)));
        call("ceil", vec![num("-1.2")], Ok(Value::int(-1)));
        call("ceil", vec![num("-Inf")], Ok(num("-Inf")));
        call("ceil", vec![Value::int(5)], Ok(Value::int(5)));
        call("floor", vec![num("-1.2")], Ok(Value::int(-2)));
        call("floor", vec![num("1.9")], Ok(Value::int(1)));
        call("floor", vec![num("+Inf")], Ok(num("+Inf")));
        call("floor", vec![Value::int(-4)], Ok(Value::int(-4)));
    }

    #[test]
    fn log_and_pow() {
        call("log", vec![Value::int(8), Value::int(2)], Ok(Value::int(3)));
        call(
            "log",
            vec![Value::int(1000), Value::int(10)],
            Ok(num("2.9999999999999996")),
        );
        call("log", vec![Value::int(10), Value::int(1)], Ok(num("+Inf")));
        call(
            "log",
            vec![Value::int(-1), Value::int(10)],
            err_call("panic in function implementation: Float.SetFloat64(NaN)"),
        );
        call(
            "log",
            vec![num("1e400"), Value::int(10)],
            err_call(&format!(
                "value must be between {:.6} and {:.6} inclusive",
                -f64::MAX,
                f64::MAX
            )),
        );
        call(
            "pow",
            vec![Value::int(2), num("0.5")],
            Ok(num("1.4142135623730951")),
        );
        call("pow", vec![Value::int(0), Value::int(-1)], Ok(num("+Inf")));
        call(
            "pow",
            vec![Value::int(2), Value::int(1024)],
            Ok(num("+Inf")),
        );
        call(
            "pow",
            vec![num("1.0001"), Value::int(100)],
            Ok(num("1.0100496620928734")),
        );
        call(
            "pow",
            vec![Value::int(-8), num("0.5")],
            err_call("panic in function implementation: Float.SetFloat64(NaN)"),
        );
    }

    #[test]
    fn signum() {
        call("signum", vec![Value::int(-3)], Ok(Value::int(-1)));
        call("signum", vec![Value::int(0)], Ok(Value::int(0)));
        call("signum", vec![Value::int(7)], Ok(Value::int(1)));
        call(
            "signum",
            vec![num("0.5")],
            err_call(super::NOT_WHOLE_NUMBER),
        );
        call(
            "signum",
            vec![num("1e30")],
            err_call(super::NOT_WHOLE_NUMBER),
        );
    }

    #[test]
    fn max_min() {
        call(
            "max",
            vec![Value::int(1), num("2.5"), Value::int(-1)],
            Ok(num("2.5")),
        );
        call("min", vec![Value::int(3), num("+Inf")], Ok(Value::int(3)));
        call(
            "min",
            vec![Value::string("2"), Value::int(3)],
            Ok(Value::int(2)),
        );
        call("max", vec![], err_call("must pass at least one number"));
        call(
            "max",
            vec![Value::null(terrace_value::Type::Number)],
            err_arg(0, "argument must not be null"),
        );
    }

    #[test]
    fn parseint() {
        call(
            "parseint",
            vec![Value::string("ff"), Value::int(16)],
            Ok(Value::int(255)),
        );
        call(
            "parseint",
            vec![Value::string("FF"), Value::int(62)],
            Ok(Value::int(2583)),
        );
        call(
            "parseint",
            vec![Value::string("+17"), Value::int(10)],
            Ok(Value::int(17)),
        );
        call(
            "parseint",
            vec![Value::string("-101"), Value::int(2)],
            Ok(Value::int(-5)),
        );
        call(
            "parseint",
            vec![
                Value::string("123456789012345678901234567890"),
                Value::int(10),
            ],
            Ok(num("123456789012345678901234567890")),
        );
        call(
            "parseint",
            vec![Value::string("-0x10"), Value::int(16)],
            err_arg(0, "cannot parse \"-0x10\" as a base 16 integer"),
        );
        call(
            "parseint",
            vec![Value::string("1_000"), Value::int(10)],
            err_arg(0, "cannot parse \"1_000\" as a base 10 integer"),
        );
        call(
            "parseint",
            vec![Value::string(""), Value::int(10)],
            err_arg(0, "cannot parse \"\" as a base 10 integer"),
        );
        call(
            "parseint",
            vec![Value::string("12"), Value::int(1)],
            err_arg(1, "base must be a whole number between 2 and 62 inclusive"),
        );
        call(
            "parseint",
            vec![Value::string("12"), Value::int(63)],
            err_arg(1, "base must be a whole number between 2 and 62 inclusive"),
        );
        call(
            "parseint",
            vec![Value::string("12"), num("2.5")],
            err_arg(1, super::NOT_WHOLE_NUMBER),
        );
        call(
            "parseint",
            vec![Value::int(12), Value::int(10)],
            err_arg(0, "first argument must be a string, not number"),
        );
        call(
            "parseint",
            vec![Value::string("zz").mark(Marks::SENSITIVE), Value::int(10)],
            err_arg(0, "cannot parse \"zz\" as a base 10 integer"),
        );
    }
}
