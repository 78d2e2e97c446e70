//! Built-in functions: `format` and `formatlist`, cty's printf-like
//! formatting. The format string is scanned exactly as cty's state machine
//! does (flags, width, precision, `[n]` argument index, verb, in that
//! order), so malformed strings fail at the same offsets with the same
//! messages. Numbers are printed as Go's `fmt` prints `*big.Int` and
//! `*big.Float` values, on top of `Number::text`.

use super::string::{grapheme_count, string_arg};
use super::{CallContext, Function, FunctionError, FunctionResult, Param, ReturnType};
use num_bigint::BigInt;
use num_traits::Signed;
use terrace_value::convert::convert;
use terrace_value::gostr;
use terrace_value::json::to_json;
use terrace_value::{Number, Type, Value};
use unicode_segmentation::UnicodeSegmentation;

pub(crate) fn register(out: &mut Vec<Function>) {
    let args_param = || {
        Param::new("args", Type::Dynamic)
            .allow_null()
            .allow_unknown()
    };
    out.push(
        Function::new(
            "format",
            vec![Param::new("format", Type::String)],
            ReturnType::Static(Type::String),
            format,
        )
        .variadic(args_param()),
    );
    out.push(
        Function::new(
            "formatlist",
            vec![Param::new("format", Type::String)],
            ReturnType::Static(Type::list(Type::String)),
            formatlist,
        )
        .variadic(args_param()),
    );
}

fn format(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let fmt = string_arg(args, 0)?;
    if args[1..].iter().any(|a| !a.is_wholly_known()) {
        // Collections can only be printed as JSON, which needs every part
        // known; literal text before the first verb is known already.
        let mut result = Value::unknown(Type::String).refine().not_null();
        if let Some(idx) = fmt.find('%').filter(|&i| i > 0) {
            result = result.string_prefix(&fmt[..idx]);
        }
        return Ok(result.new_value());
    }
    format_fsm(fmt, &args[1..]).map(Value::string)
}

fn formatlist(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let fmt = string_arg(args, 0)?;
    let args = &args[1..];
    if args.is_empty() {
        return Ok(Value::list(
            Type::String,
            vec![Value::string(format_fsm(fmt, args)?)],
        ));
    }

    // Sequences are iterated in step; everything else is repeated.
    let mut iter_len: Option<(usize, usize)> = None;
    let mut sequences: Vec<Option<&[Value]>> = vec![None; args.len()];
    let mut has_unknown = false;
    for (i, arg) in args.iter().enumerate() {
        let ty = arg.ty();
        if (ty.is_list() || ty.is_set() || ty.is_tuple()) && !arg.is_null() {
            let length_known = arg.is_known() && arg.length().is_ok_and(|l| l.is_known());
            if !ty.is_tuple() && !length_known {
                has_unknown = true;
                continue;
            }
            let this_len = arg.length_int().unwrap_or(0);
            match iter_len {
                None => iter_len = Some((this_len, i)),
                Some((len, chooser)) if len != this_len => {
                    return Err(FunctionError::arg(
                        i + 1,
                        format!(
                            "argument {} has length {}, which is inconsistent with argument {} of length {}",
                            i + 1,
                            this_len,
                            chooser + 1,
                            len
                        ),
                    ));
                }
                Some(_) => {}
            }
            if !arg.is_known() {
                has_unknown = true;
                continue;
            }
            sequences[i] = arg.as_elements();
        } else if ty.is_dynamic() && !arg.is_known() {
            has_unknown = true;
        }
    }
    if has_unknown {
        return Ok(Value::unknown(Type::list(Type::String)));
    }
    let iterations = match iter_len {
        Some((0, _)) => return Ok(Value::list(Type::String, Vec::new())),
        Some((len, _)) => len,
        None => 1,
    };

    let mut results = Vec::with_capacity(iterations);
    'results: for iteration in 0..iterations {
        let mut call_args = Vec::with_capacity(args.len());
        for (i, arg) in args.iter().enumerate() {
            let value = match sequences[i] {
                Some(elems) => elems
                    .get(iteration)
                    .cloned()
                    .unwrap_or_else(|| Value::null(Type::Dynamic)),
                None => arg.clone(),
            };
            if !value.is_wholly_known() {
                results.push(Value::unknown(Type::String).refine_not_null());
                continue 'results;
            }
            call_args.push(value);
        }
        match format_fsm(fmt, &call_args) {
            Ok(s) => results.push(Value::string(s)),
            Err(e) => {
                return Err(FunctionError::call(format!(
                    "error on format iteration {iteration}: {}",
                    e.message
                )));
            }
        }
    }
    Ok(Value::list(Type::String, results))
}

/// One `%...` sequence, as cty's scanner records it.
struct Verb<'a> {
    raw: &'a str,
    offset: usize,
    arg_num: i64,
    mode: char,
    zero: bool,
    sharp: bool,
    minus: bool,
    /// Width and precision, or -1 when absent.
    width: i64,
    prec: i64,
}

fn accumulate(n: i64, digit: u8) -> i64 {
    n.wrapping_mul(10).wrapping_add(i64::from(digit - b'0'))
}

/// cty's `formatFSM`: the formatted string, or the first error.
fn format_fsm(fmt: &str, args: &[Value]) -> FunctionResult<String> {
    let bytes = fmt.as_bytes();
    let end = bytes.len();
    let mut buf = String::with_capacity(fmt.len());
    let mut next_arg: i64 = 1;
    let mut highest_arg: i64 = 0;
    let mut p = 0;

    let unexpected_end =
        || FunctionError::call(format!("invalid format string starting at offset {end}"));
    let unrecognized = |p: usize| {
        let c = fmt[p..].chars().next().unwrap_or('\u{fffd}');
        FunctionError::call(format!(
            "unrecognized format character {} at offset {p}",
            gostr::quote_rune(c)
        ))
    };

    while p < end {
        if bytes[p] != b'%' {
            let c = fmt[p..].chars().next().unwrap_or('\u{fffd}');
            buf.push(c);
            p += c.len_utf8();
            continue;
        }
        let start = p;
        p += 1;
        if p == end {
            return Err(unexpected_end());
        }
        if bytes[p] == b'%' {
            buf.push('%');
            p += 1;
            continue;
        }

        let mut verb = Verb {
            raw: "",
            offset: start,
            arg_num: next_arg,
            mode: 'v',
            zero: false,
            sharp: false,
            minus: false,
            width: -1,
            prec: -1,
        };
        while p < end {
            match bytes[p] {
                b'0' => verb.zero = true,
                b'#' => verb.sharp = true,
                b'-' => verb.minus = true,
                b'+' | b' ' => {}
                _ => break,
            }
            p += 1;
        }
        if p < end && (b'1'..=b'9').contains(&bytes[p]) {
            verb.width = 0;
            while p < end && bytes[p].is_ascii_digit() {
                verb.width = accumulate(verb.width, bytes[p]);
                p += 1;
            }
        }
        if p < end && bytes[p] == b'.' {
            verb.prec = 0;
            p += 1;
            while p < end && bytes[p].is_ascii_digit() {
                verb.prec = accumulate(verb.prec, bytes[p]);
                p += 1;
            }
        }
        if p < end && bytes[p] == b'[' {
            verb.arg_num = 0;
            p += 1;
            if p == end {
                return Err(unexpected_end());
            }
            if !(b'1'..=b'9').contains(&bytes[p]) {
                return Err(unrecognized(p));
            }
            while p < end && bytes[p].is_ascii_digit() {
                verb.arg_num = accumulate(verb.arg_num, bytes[p]);
                p += 1;
            }
            if p == end {
                return Err(unexpected_end());
            }
            if bytes[p] != b']' {
                return Err(unrecognized(p));
            }
            p += 1;
        }
        if p == end {
            return Err(unexpected_end());
        }
        if !bytes[p].is_ascii_alphabetic() {
            return Err(unrecognized(p));
        }
        verb.mode = char::from(bytes[p]);
        p += 1;
        verb.raw = &fmt[start..p];
        highest_arg = highest_arg.max(verb.arg_num);
        format_append(&verb, &mut buf, args)?;
        next_arg = verb.arg_num.saturating_add(1);
    }

    if highest_arg < args.len() as i64 {
        let first_bad = (highest_arg + 1) as usize;
        if highest_arg == 0 {
            return Err(FunctionError::arg(
                first_bad,
                "too many arguments; no verbs in format string",
            ));
        }
        return Err(FunctionError::arg(
            first_bad,
            format!("too many arguments; only {highest_arg} used by format string"),
        ));
    }
    Ok(buf)
}

fn format_append(verb: &Verb<'_>, buf: &mut String, args: &[Value]) -> FunctionResult<()> {
    let unsupported = |detail: &str| {
        FunctionError::call(format!(
            "unsupported value for {} at {}: {detail}",
            gostr::quote(verb.raw),
            verb.offset
        ))
    };
    let arg = match usize::try_from(verb.arg_num - 1)
        .ok()
        .and_then(|i| args.get(i))
    {
        Some(a) => a,
        None => {
            return Err(FunctionError::call(format!(
                "not enough arguments for {} at {}: need index {} but have {} total",
                gostr::quote(verb.raw),
                verb.offset,
                verb.arg_num,
                args.len()
            )))
        }
    };
    if verb.mode != 'v' && arg.is_null() {
        return Err(unsupported("null value cannot be formatted"));
    }
    match verb.mode {
        'v' => {
            if !verb.sharp && !arg.is_null() {
                if let Some(s) = arg.as_str() {
                    buf.push_str(&pad_width(verb, s.to_string())?);
                    return Ok(());
                }
                if let Some(n) = arg.as_number() {
                    buf.push_str(&pad_width(verb, n.text('g', -1))?);
                    return Ok(());
                }
            }
            let json = to_json(arg, arg.ty()).map_err(|e| unsupported(&e.message))?;
            buf.push_str(&pad_width(verb, json)?);
        }
        't' => {
            let b = convert(arg, &Type::Bool).map_err(|e| unsupported(&e.message))?;
            buf.push_str(if b.as_bool() == Some(true) {
                "true"
            } else {
                "false"
            });
        }
        'b' | 'd' | 'o' | 'x' | 'X' | 'e' | 'E' | 'f' | 'g' | 'G' => {
            let n = convert(arg, &Type::Number).map_err(|e| unsupported(&e.message))?;
            let n = n
                .as_number()
                .ok_or_else(|| unsupported("null value cannot be formatted"))?;
            let spec = strip_index(verb.raw);
            if matches!(verb.mode, 'b' | 'd' | 'o' | 'x' | 'X') {
                let i = match n.to_bigint_exact() {
                    Some(i) if n.is_integer() => i,
                    _ => return Err(unsupported("an integer is required")),
                };
                buf.push_str(&go_sprintf(&spec, &GoNumber::Int(i)));
            } else {
                buf.push_str(&go_sprintf(&spec, &GoNumber::Float(n.clone())));
            }
        }
        's' | 'q' => {
            let s = convert(arg, &Type::String).map_err(|e| unsupported(&e.message))?;
            let s = s
                .as_str()
                .ok_or_else(|| unsupported("null value cannot be formatted"))?;
            // Precision counts characters (grapheme clusters) of the input.
            let s = if verb.prec > 0 {
                let end: usize = s
                    .graphemes(true)
                    .take(usize::try_from(verb.prec).unwrap_or(usize::MAX))
                    .map(str::len)
                    .sum();
                &s[..end]
            } else {
                s
            };
            let text = if verb.mode == 's' {
                s.to_string()
            } else {
                to_json(&Value::string(s), &Type::String).map_err(|e| unsupported(&e.message))?
            };
            buf.push_str(&pad_width(verb, text)?);
        }
        mode => {
            return Err(FunctionError::call(format!(
                "unsupported format verb {} in {} at offset {}",
                gostr::quote_rune(mode),
                gostr::quote(verb.raw),
                verb.offset
            )))
        }
    }
    Ok(())
}

/// cty's `formatPadWidth`: pads to the width in grapheme clusters, with
/// zeros or spaces, on the left or (with `-`) on the right.
fn pad_width(verb: &Verb<'_>, text: String) -> FunctionResult<String> {
    if verb.width < 0 {
        return Ok(text);
    }
    let given = grapheme_count(&text) as i64;
    if given >= verb.width {
        return Ok(text);
    }
    // A width in the billions would make Go (and so Terraform) run out of
    // memory; here it is an error instead of an abort.
    let pad_len = usize::try_from(verb.width - given).unwrap_or(usize::MAX);
    let mut out = String::new();
    if out
        .try_reserve_exact(pad_len.saturating_add(text.len()))
        .is_err()
    {
        return Err(FunctionError::call(
            "panic in function implementation: runtime error: out of memory",
        ));
    }
    let pad = if verb.zero { '0' } else { ' ' };
    if verb.minus {
        out.push_str(&text);
        out.extend(std::iter::repeat_n(pad, pad_len));
    } else {
        out.extend(std::iter::repeat_n(pad, pad_len));
        out.push_str(&text);
    }
    Ok(out)
}

/// The verb without its `[n]` argument index, for Go's `fmt`.
fn strip_index(raw: &str) -> String {
    match (raw.find('['), raw.find(']')) {
        (Some(start), Some(end)) => format!("{}{}", &raw[..start], &raw[end + 1..]),
        _ => raw.to_string(),
    }
}

enum GoNumber {
    Int(BigInt),
    Float(Number),
}

/// Go's `fmt.Sprintf(spec, x)` for one `*big.Int` or `*big.Float`, where
/// `spec` is a single verb with flags, width and precision.
fn go_sprintf(spec: &str, x: &GoNumber) -> String {
    let bytes = spec.as_bytes();
    let end = bytes.len();
    let mut i = 1;
    let (mut minus, mut plus, mut sharp, mut zero, mut space) = (false, false, false, false, false);
    while i < end {
        match bytes[i] {
            b'#' => sharp = true,
            b'0' => zero = true,
            b'+' => plus = true,
            b'-' => minus = true,
            b' ' => space = true,
            _ => break,
        }
        i += 1;
    }
    let mut width = None;
    match parse_go_num(bytes, i) {
        GoNum::Missing => {}
        GoNum::Number(n, next) => {
            width = Some(n);
            i = next;
        }
        GoNum::TooLarge => i = end,
    }
    let mut prec = None;
    if i < end && bytes[i] == b'.' {
        i += 1;
        match parse_go_num(bytes, i) {
            GoNum::Missing => prec = Some(0),
            GoNum::Number(n, next) => {
                prec = Some(n);
                i = next;
            }
            GoNum::TooLarge => i = end,
        }
    }
    if i >= end {
        // Go gives up on the verb and reports the unused argument.
        let shown = match x {
            GoNumber::Int(n) => format!("*big.Int={n}"),
            GoNumber::Float(n) => format!("*big.Float={}", n.text('g', -1)),
        };
        return format!("%!(NOVERB)%!(EXTRA {shown})");
    }
    let flags = GoFlags {
        minus,
        plus,
        sharp,
        zero,
        space,
        width,
        prec,
    };
    let verb = char::from(bytes[i]);
    match x {
        GoNumber::Int(n) => go_format_int(&flags, verb, n),
        GoNumber::Float(n) => go_format_float(&flags, verb, n),
    }
}

enum GoNum {
    Missing,
    Number(usize, usize),
    TooLarge,
}

/// Go's `parsenum`, which refuses numbers above a million.
fn parse_go_num(bytes: &[u8], start: usize) -> GoNum {
    let mut n: usize = 0;
    let mut i = start;
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        if n > 1_000_000 {
            return GoNum::TooLarge;
        }
        n = n * 10 + usize::from(bytes[i] - b'0');
        i += 1;
    }
    if i == start {
        GoNum::Missing
    } else {
        GoNum::Number(n, i)
    }
}

struct GoFlags {
    minus: bool,
    plus: bool,
    sharp: bool,
    zero: bool,
    space: bool,
    width: Option<usize>,
    prec: Option<usize>,
}

/// `(*big.Int).Format`.
fn go_format_int(f: &GoFlags, verb: char, x: &BigInt) -> String {
    let base = match verb {
        'b' => 2,
        'o' => 8,
        'x' | 'X' => 16,
        _ => 10,
    };
    let sign = if x.is_negative() {
        "-"
    } else if f.plus {
        "+"
    } else if f.space {
        " "
    } else {
        ""
    };
    let prefix = match (f.sharp, verb) {
        (true, 'b') => "0b",
        (true, 'o') => "0",
        (true, 'x') => "0x",
        (true, 'X') => "0X",
        _ => "",
    };
    let mut digits = x.abs().to_str_radix(base);
    if verb == 'X' {
        digits = digits.to_uppercase();
    }
    let mut zeros = 0;
    if let Some(precision) = f.prec {
        if digits.len() < precision {
            zeros = precision - digits.len();
        } else if digits == "0" && precision == 0 {
            return String::new();
        }
    }
    let length = sign.len() + prefix.len() + zeros + digits.len();
    let (mut left, mut right) = (0, 0);
    if let Some(width) = f.width.filter(|&w| length < w) {
        let d = width - length;
        if f.minus {
            right = d;
        } else if f.zero && f.prec.is_none() {
            zeros = d;
        } else {
            left = d;
        }
    }
    let mut out = String::with_capacity(length + left + right);
    out.push_str(&" ".repeat(left));
    out.push_str(sign);
    out.push_str(prefix);
    out.push_str(&"0".repeat(zeros));
    out.push_str(&digits);
    out.push_str(&" ".repeat(right));
    out
}

/// `(*big.Float).Format`.
fn go_format_float(f: &GoFlags, verb: char, x: &Number) -> String {
    let default_prec = if matches!(verb, 'g' | 'G') { -1 } else { 6 };
    let prec = f
        .prec
        .map_or(default_prec, |p| i32::try_from(p).unwrap_or(i32::MAX));
    let text = x.text(verb, prec);
    let (sign, body) = match text.as_bytes().first() {
        Some(b'-') => ("-", &text[1..]),
        Some(b'+') => (if f.space { " " } else { "+" }, &text[1..]),
        _ if f.plus => ("+", text.as_str()),
        _ if f.space => (" ", text.as_str()),
        _ => ("", text.as_str()),
    };
    let padding = f
        .width
        .map_or(0, |w| w.saturating_sub(sign.len() + body.len()));
    if f.zero && !x.is_infinite() {
        format!("{sign}{}{body}", "0".repeat(padding))
    } else if f.minus {
        format!("{sign}{body}{}", " ".repeat(padding))
    } else {
        format!("{}{sign}{body}", " ".repeat(padding))
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use terrace_value::{Refinement, Type, Value};

    fn f(fmt: &str, args: Vec<Value>, want: &str) {
        let mut all = vec![s(fmt)];
        all.extend(args);
        call("format", all, Ok(s(want)));
    }

    fn ferr(fmt: &str, args: Vec<Value>, message: &str) {
        let mut all = vec![s(fmt)];
        all.extend(args);
        call("format", all, err_call(message));
    }

    #[test]
    fn integers() {
        f(
            "%d",
            vec![num("12345678901234567890123")],
            "12345678901234567890123",
        );
        f(
            "%5d|%-5d|%05d|%+d|% d",
            vec![Value::int(42); 5],
            "   42|42   |00042|+42| 42",
        );
        f(
            "%x %X %o %b",
            vec![
                Value::int(255),
                Value::int(255),
                Value::int(8),
                Value::int(5),
            ],
            "ff FF 10 101",
        );
        f(
            "%#x %#o %#X %#b",
            vec![
                Value::int(255),
                Value::int(8),
                Value::int(255),
                Value::int(5),
            ],
            "0xff 010 0XFF 0b101",
        );
        f("%.3d", vec![Value::int(7)], "007");
        f("%.0d|%.0x", vec![Value::int(0), Value::int(0)], "|");
        f(
            "%8.3d|%08.3d|",
            vec![Value::int(-5), Value::int(5)],
            "    -005|     005|",
        );
        f(
            "%#08x|%-05d|",
            vec![Value::int(255), Value::int(3)],
            "0x0000ff|3    |",
        );
        f(
            "%x|%+x|% x|%+o",
            vec![
                Value::int(-255),
                Value::int(255),
                Value::int(255),
                Value::int(8),
            ],
            "-ff|+ff| ff|+10",
        );
        f("%d %x", vec![s("12"), s("255")], "12 ff");
        f("%d", vec![num("1e30")], "1000000000000000000000000000000");
        ferr(
            "%d",
            vec![num("1.5")],
            "unsupported value for \"%d\" at 0: an integer is required",
        );
        ferr(
            "%d",
            vec![num("+Inf")],
            "unsupported value for \"%d\" at 0: an integer is required",
        );
        ferr(
            "%d",
            vec![s("x")],
            "unsupported value for \"%d\" at 0: a number is required",
        );
        ferr(
            "%d",
            vec![Value::bool(true)],
            "unsupported value for \"%d\" at 0: number required",
        );
    }

    #[test]
    fn floats() {
        f(
            "%f|%.2f",
            vec![num("3.14159"), num("3.14159")],
            "3.141590|3.14",
        );
        f(
            "%10.3f|%-10.2f|%010.2f",
            vec![num("3.14159"), num("2.5"), num("-2.5")],
            "     3.142|2.50      |-000002.50",
        );
        f(
            "%e|%E",
            vec![num("123456.789"), num("0.000123")],
            "1.234568e+05|1.230000E-04",
        );
        f(
            "%g|%g|%G|%.3g",
            vec![num("123456789"), num("1e21"), num("1e-7"), num("3.14159")],
            "1.23456789e+08|1e+21|1E-07|3.14",
        );
        f(
            "%f",
            vec![num("1e100")],
            &format!("1{}.000000", "0".repeat(100)),
        );
        f(
            "%.0f %.0f %.0f",
            vec![num("0.5"), num("1.5"), num("2.5")],
            "0 2 2",
        );
        f(
            "%08.3f|% .3e|%+g",
            vec![num("-3.14159"), Value::int(5), Value::int(5)],
            "-003.142| 5.000e+00|+5",
        );
        f("%-08.2f|", vec![num("1.5")], "00001.50|");
        f(
            "%08.2f|%-8.2f|",
            vec![num("+Inf"), num("-Inf")],
            "    +Inf|-Inf    |",
        );
        f(
            "% f|%+f|%f|%e",
            vec![num("+Inf"), num("+Inf"), num("+Inf"), num("+Inf")],
            " Inf|+Inf|+Inf|+Inf",
        );
        f(
            "%.2f|%g|%g",
            vec![num("-0.001"), num("0.0001"), num("0.00001")],
            "-0.00|0.0001|1e-05",
        );
        f(
            "%.10g",
            vec![Value::number(
                terrace_value::Number::parse("1")
                    .unwrap()
                    .div(&terrace_value::Number::parse("3").unwrap())
                    .unwrap(),
            )],
            "0.3333333333",
        );
    }

    #[test]
    fn values_and_strings() {
        f(
            "%v|%v|%v",
            vec![
                num("1e100"),
                num("0.1"),
                num("123456789012345678901234567890"),
            ],
            "1e+100|0.1|1.2345678901234567890123456789e+29",
        );
        f(
            "%v %v %v",
            vec![s("s"), Value::bool(true), Value::null(Type::String)],
            "s true null",
        );
        f(
            "%#v|%#v|%#v",
            vec![s("s"), num("1.5"), Value::bool(true)],
            "\"s\"|1.5|true",
        );
        f(
            "%v",
            vec![Value::tuple(vec![
                num("1.5"),
                s("x"),
                Value::null(Type::Dynamic),
                Value::bool(true),
            ])],
            "[1.5,\"x\",null,true]",
        );
        f(
            "%v",
            vec![obj(vec![
                ("b", Value::tuple(vec![Value::bool(true)])),
                ("a", Value::int(1)),
            ])],
            "{\"a\":1,\"b\":[true]}",
        );
        f(
            "%v",
            vec![set_of(Type::String, strs(&["b", "a"]))],
            "[\"a\",\"b\"]",
        );
        f(
            "%10v|%-10v|%5v|%6.2v|",
            vec![num("1.5"), s("ab"), Value::bool(true), num("3.14159")],
            "       1.5|ab        | true|3.14159|",
        );
        f(
            "%s|%s|%s",
            vec![Value::int(12), Value::bool(true), num("1e30")],
            "12|true|1000000000000000000000000000000",
        );
        f(
            "%q|%q",
            vec![s("a\"b\n<>&"), Value::int(5)],
            "\"a\\\"b\\n\\u003c\\u003e\\u0026\"|\"5\"",
        );
        f(
            "%q",
            vec![s("\u{8}\u{c}\u{1}\u{2028}\u{7f}")],
            "\"\\b\\f\\u0001\\u2028\u{7f}\"",
        );
        f(
            "%t|%5t|%t",
            vec![s("true"), Value::bool(true), Value::bool(false)],
            "true|true|false",
        );
        f(
            "%-6s|%6s|%05s|%05v|",
            vec![s("ab"), s("héllo"), s("ab"), s("ab")],
            "ab    | héllo|000ab|000ab|",
        );
        f(
            "%.2s|%5.1s|%.3s|%5.0s|%-5q|%.1q",
            vec![
                s("héllo"),
                s("xyz"),
                s("👍🏽👍🏽👍🏽👍🏽"),
                s("ab"),
                s("a"),
                s("abc"),
            ],
            "hé|    x|👍🏽👍🏽👍🏽|   ab|\"a\"  |\"a\"",
        );
        ferr(
            "%s",
            vec![Value::tuple(vec![Value::int(1)])],
            "unsupported value for \"%s\" at 0: string required",
        );
        ferr(
            "%t",
            vec![Value::int(1)],
            "unsupported value for \"%t\" at 0: bool required",
        );
        ferr(
            "%t",
            vec![s("yes")],
            "unsupported value for \"%t\" at 0: a bool is required",
        );
        ferr(
            "%s",
            vec![Value::null(Type::String)],
            "unsupported value for \"%s\" at 0: null value cannot be formatted",
        );
        ferr(
            "%v",
            vec![Value::tuple(vec![num("+Inf")])],
            "unsupported value for \"%v\" at 0: cannot serialize infinity as JSON",
        );
    }

    #[test]
    fn scanning_and_arguments() {
        f("%[2]s %[1]s %s", vec![s("a"), s("b")], "b a b");
        f(
            "%-[1]d|%3[1]d|%.[1]d|%.2[1]f",
            vec![Value::int(1)],
            "1|  1|1|1.00",
        );
        f("%%s %d", vec![Value::int(1)], "%s 1");
        f("abc", vec![], "abc");
        f("héllo %s", vec![s("wörld")], "héllo wörld");
        ferr(
            "%[3]s",
            vec![s("a"), s("b")],
            "not enough arguments for \"%[3]s\" at 0: need index 3 but have 2 total",
        );
        ferr(
            "%s %s",
            vec![s("a")],
            "not enough arguments for \"%s\" at 3: need index 2 but have 1 total",
        );
        ferr(
            "%[1]d %d",
            vec![Value::int(1)],
            "not enough arguments for \"%d\" at 6: need index 2 but have 1 total",
        );
        ferr(
            "%z",
            vec![Value::int(1)],
            "unsupported format verb 'z' in \"%z\" at offset 0",
        );
        ferr(
            "%99999999999999999s",
            vec![s("a")],
            "panic in function implementation: runtime error: out of memory",
        );
        ferr(
            "%5",
            vec![Value::int(1)],
            "invalid format string starting at offset 2",
        );
        ferr("abc%", vec![], "invalid format string starting at offset 4");
        ferr(
            "%s%",
            vec![s("a")],
            "invalid format string starting at offset 3",
        );
        ferr(
            "%[2]",
            vec![Value::int(1), Value::int(2)],
            "invalid format string starting at offset 4",
        );
        ferr(
            "%[1",
            vec![Value::int(1)],
            "invalid format string starting at offset 3",
        );
        ferr(
            "%!",
            vec![Value::int(1)],
            "unrecognized format character '!' at offset 1",
        );
        ferr(
            "%[x]d",
            vec![Value::int(1)],
            "unrecognized format character 'x' at offset 2",
        );
        ferr(
            "%[0]d",
            vec![Value::int(1)],
            "unrecognized format character '0' at offset 2",
        );
        ferr(
            "%[1].2f",
            vec![Value::int(1)],
            "unrecognized format character '.' at offset 4",
        );
        call(
            "format",
            vec![s("%s"), s("a"), s("b")],
            err_arg(2, "too many arguments; only 1 used by format string"),
        );
        call(
            "format",
            vec![s("abc"), s("a")],
            err_arg(1, "too many arguments; no verbs in format string"),
        );
        call(
            "format",
            vec![s("abc%%"), s("x")],
            err_arg(1, "too many arguments; no verbs in format string"),
        );
    }

    #[test]
    fn unknowns_and_marks() {
        let prefixed = Value::unknown_refined(
            Type::String,
            Refinement {
                not_null: true,
                string_prefix: Some("id-".to_string()),
                ..Refinement::default()
            },
        );
        call(
            "format",
            vec![s("id-%s"), unknown(Type::String)],
            Ok(prefixed),
        );
        call(
            "format",
            vec![s("%s"), unknown(Type::String)],
            Ok(unknown_nn(Type::String)),
        );
        call(
            "format",
            vec![s("%v"), Value::tuple(vec![unknown(Type::String)])],
            Ok(unknown_nn(Type::String)),
        );
        call(
            "format",
            vec![s("%v"), Value::null(Type::Dynamic)],
            Ok(Value::dynamic()),
        );
        call(
            "format",
            vec![s("%s"), sensitive(s("x"))],
            Ok(sensitive(s("x"))),
        );
        call(
            "format",
            vec![unknown(Type::String), s("x")],
            Ok(unknown_nn(Type::String)),
        );
    }

    #[test]
    fn formatlist() {
        call(
            "formatlist",
            vec![s("%s-%s"), str_tuple(&["a", "b"]), str_tuple(&["c", "d"])],
            Ok(str_list(&["a-c", "b-d"])),
        );
        call(
            "formatlist",
            vec![s("%s-%s"), str_tuple(&["a", "b"]), s("x")],
            Ok(str_list(&["a-x", "b-x"])),
        );
        call(
            "formatlist",
            vec![s("%s-%s"), str_tuple(&["a", "b"]), str_tuple(&["c"])],
            err_arg(
                2,
                "argument 2 has length 1, which is inconsistent with argument 1 of length 2",
            ),
        );
        call(
            "formatlist",
            vec![s("%s"), Value::empty_tuple()],
            Ok(str_list(&[])),
        );
        call("formatlist", vec![s("x")], Ok(str_list(&["x"])));
        call(
            "formatlist",
            vec![s("%s"), s("a"), s("b")],
            err_call(
                "error on format iteration 0: too many arguments; only 1 used by format string",
            ),
        );
        call(
            "formatlist",
            vec![s("%d"), str_tuple(&["a"])],
            err_call("error on format iteration 0: unsupported value for \"%d\" at 0: a number is required"),
        );
        call(
            "formatlist",
            vec![
                s("%s %s"),
                set_of(Type::String, strs(&["b", "a"])),
                str_tuple(&["x", "y"]),
            ],
            Ok(str_list(&["a x", "b y"])),
        );
        call(
            "formatlist",
            vec![s("%v"), obj(vec![("a", Value::int(1))])],
            Ok(str_list(&["{\"a\":1}"])),
        );
        call(
            "formatlist",
            vec![s("%s")],
            err_call("not enough arguments for \"%s\" at 0: need index 1 but have 0 total"),
        );
        call(
            "formatlist",
            vec![s("%s"), Value::tuple(vec![s("a"), unknown(Type::String)])],
            Ok(list_of(
                Type::String,
                vec![s("a"), unknown_nn(Type::String)],
            )),
        );
        call(
            "formatlist",
            vec![s("%s"), unknown(Type::list(Type::String))],
            Ok(unknown_nn(Type::list(Type::String))),
        );
        call(
            "formatlist",
            vec![s("%v"), Value::null(Type::list(Type::String))],
            Ok(str_list(&["null"])),
        );
    }
}
