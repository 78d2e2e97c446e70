//! Built-in functions: strings (`chomp`, `endswith`, `indent`, `join`,
//! `lower`, `regex`, `regexall`, `replace`, `split`, `startswith`,
//! `strcontains`, `strrev`, `substr`, `title`, `trim`, `trimprefix`,
//! `trimspace`, `trimsuffix`, `upper`), following cty's stdlib and
//! Terraform's own string functions. "Characters" are grapheme clusters
//! where cty counts them; case mapping is Go's simple per-rune mapping;
//! regular expressions are Go's RE2 dialect (see `goregex`).

mod goregex;

use super::numeric::{number_arg, whole_number};
use super::{CallContext, Function, FunctionError, FunctionResult, Param, ReturnType};
use goregex::GoRegex;
use std::collections::BTreeMap;
use terrace_value::{Type, Value};
use unicode_general_category::{get_general_category, GeneralCategory};
use unicode_segmentation::UnicodeSegmentation;

pub(crate) fn register(out: &mut Vec<Function>) {
    let str_param = |name| Param::new(name, Type::String);
    let string_fn =
        |name, params, imp| Function::new(name, params, ReturnType::Static(Type::String), imp);
    let bool_fn =
        |name, params, imp| Function::new(name, params, ReturnType::Static(Type::Bool), imp);

    out.push(string_fn("chomp", vec![str_param("str")], chomp));
    out.push(bool_fn(
        "endswith",
        vec![str_param("str"), str_param("suffix")],
        endswith,
    ));
    out.push(string_fn(
        "indent",
        vec![Param::new("spaces", Type::Number), str_param("str")],
        indent,
    ));
    out.push(
        string_fn("join", vec![str_param("separator")], join)
            .variadic(Param::new("lists", Type::list(Type::String))),
    );
    out.push(string_fn(
        "lower",
        vec![str_param("str").allow_dynamic_type()],
        lower,
    ));
    out.push(Function::new(
        "regex",
        vec![str_param("pattern"), str_param("string")],
        ReturnType::Computed(regex_type),
        regex,
    ));
    out.push(Function::new(
        "regexall",
        vec![str_param("pattern"), str_param("string")],
        ReturnType::Computed(regexall_type),
        regexall,
    ));
    out.push(string_fn(
        "replace",
        vec![str_param("str"), str_param("substr"), str_param("replace")],
        replace,
    ));
    out.push(Function::new(
        "split",
        vec![str_param("separator"), str_param("str")],
        ReturnType::Static(Type::list(Type::String)),
        split,
    ));
    out.push(bool_fn(
        "startswith",
        vec![str_param("str").allow_unknown(), str_param("prefix")],
        startswith,
    ));
    out.push(
        bool_fn(
            "strcontains",
            vec![str_param("str"), str_param("substr")],
            strcontains,
        )
        .nullable_result(),
    );
    out.push(string_fn(
        "strrev",
        vec![str_param("str").allow_dynamic_type()],
        strrev,
    ));
    out.push(string_fn(
        "substr",
        vec![
            str_param("str").allow_dynamic_type(),
            Param::new("offset", Type::Number).allow_dynamic_type(),
            Param::new("length", Type::Number).allow_dynamic_type(),
        ],
        substr,
    ));
    out.push(string_fn("title", vec![str_param("str")], title));
    out.push(string_fn(
        "trim",
        vec![str_param("str"), str_param("cutset")],
        trim,
    ));
    out.push(string_fn(
        "trimprefix",
        vec![str_param("str"), str_param("prefix")],
        trimprefix,
    ));
    out.push(string_fn("trimspace", vec![str_param("str")], trimspace));
    out.push(string_fn(
        "trimsuffix",
        vec![str_param("str"), str_param("suffix")],
        trimsuffix,
    ));
    out.push(string_fn(
        "upper",
        vec![str_param("str").allow_dynamic_type()],
        upper,
    ));
}

// ----- helpers shared with the other function groups -----

/// The known string in argument `index`; the call machinery guarantees it
/// for string parameters that do not allow nulls or unknowns.
pub(super) fn string_arg(args: &[Value], index: usize) -> FunctionResult<&str> {
    args.get(index)
        .and_then(Value::as_str)
        .ok_or_else(|| FunctionError::arg(index, "a known string is required"))
}

/// The number of grapheme clusters, which is what cty calls characters.
pub(super) fn grapheme_count(s: &str) -> usize {
    s.graphemes(true).count()
}

/// Go's `unicode.IsLetter`: general category L.
pub(super) fn is_go_letter(c: char) -> bool {
    use GeneralCategory::*;
    matches!(
        get_general_category(c),
        UppercaseLetter | LowercaseLetter | TitlecaseLetter | ModifierLetter | OtherLetter
    )
}

/// Go's `unicode.IsDigit`: general category Nd.
pub(super) fn is_go_digit(c: char) -> bool {
    c.is_ascii_digit()
        || (!c.is_ascii() && get_general_category(c) == GeneralCategory::DecimalNumber)
}

/// Go's `unicode.ToUpper`: the simple (one-to-one) case mapping. Rust only
/// offers the full mapping, which agrees wherever it yields one character;
/// where it yields several, the simple mapping is the character itself
/// except for the Greek letters with ypogegrammeni.
fn go_to_upper(c: char) -> char {
    let mut full = c.to_uppercase();
    if let (Some(u), None) = (full.next(), full.next()) {
        return if is_newer_case_pair(c) || is_newer_case_pair(u) {
            c
        } else {
            u
        };
    }
    match c as u32 {
        0x1f80..=0x1f87 | 0x1f90..=0x1f97 | 0x1fa0..=0x1fa7 => {
            char::from_u32(c as u32 + 8).unwrap_or(c)
        }
        0x1fb3 => '\u{1fbc}',
        0x1fc3 => '\u{1fcc}',
        0x1ff3 => '\u{1ffc}',
        _ => c,
    }
}

/// Characters whose case mapping appeared after Unicode 15.0, the version
/// of Go's tables in Terraform 1.11 (Rust's are newer): Terraform leaves
/// them unchanged. Checked against every character Rust maps (Unicode 17).
fn is_newer_case_pair(c: char) -> bool {
    matches!(
        c as u32,
        0x19b
            | 0x264
            | 0x1c89..=0x1c8a
            | 0xa7cb..=0xa7cf
            | 0xa7d2..=0xa7d5
            | 0xa7da..=0xa7dc
            | 0x10d50..=0x10d65
            | 0x10d70..=0x10d85
            | 0x16ea0..=0x16eb8
            | 0x16ebb..=0x16ed3
    )
}

/// Go's `unicode.ToLower` (simple mapping); only U+0130 has a multi-character
/// full lowercase.
fn go_to_lower(c: char) -> char {
    let mut full = c.to_lowercase();
    if let (Some(l), None) = (full.next(), full.next()) {
        return if is_newer_case_pair(c) || is_newer_case_pair(l) {
            c
        } else {
            l
        };
    }
    if c == '\u{130}' {
        return 'i';
    }
    c
}

/// Go's `unicode.ToTitle`: like the upper case mapping except for the Latin
/// digraphs, which have their own title case forms, and Georgian Mkhedruli,
/// whose title case is itself.
fn go_to_title(c: char) -> char {
    match c as u32 {
        0x1c4..=0x1c6 => '\u{1c5}',
        0x1c7..=0x1c9 => '\u{1c8}',
        0x1ca..=0x1cc => '\u{1cb}',
        0x1f1..=0x1f3 => '\u{1f2}',
        0x10d0..=0x10fa | 0x10fd..=0x10ff => c,
        _ => go_to_upper(c),
    }
}

/// Go's `strings.Title`: title-cases the first letter after each
/// separator, where separators are ASCII non-alphanumerics (except `_`) and
/// non-ASCII spaces.
fn go_title(s: &str) -> String {
    let mut prev = ' ';
    s.chars()
        .map(|c| {
            let separator = if (prev as u32) <= 0x7f {
                !(prev.is_ascii_alphanumeric() || prev == '_')
            } else if is_go_letter(prev) || is_go_digit(prev) {
                false
            } else {
                prev.is_whitespace()
            };
            prev = c;
            if separator {
                go_to_title(c)
            } else {
                c
            }
        })
        .collect()
}

// ----- implementations -----

fn chomp(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    // cty removes `(?:\r\n?|\n)*\z`, which is any run of CR and LF at the end.
    let s = string_arg(args, 0)?;
    Ok(Value::string(s.trim_end_matches(['\r', '\n'])))
}

fn endswith(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    Ok(Value::bool(
        string_arg(args, 0)?.ends_with(string_arg(args, 1)?),
    ))
}

fn startswith(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let prefix = string_arg(args, 1)?;
    let s = &args[0];
    if !s.is_known() {
        if prefix.is_empty() {
            return Ok(Value::bool(true));
        }
        let known_prefix = s
            .refinement()
            .and_then(|r| r.string_prefix.as_deref())
            .unwrap_or("");
        if !known_prefix.is_empty() {
            if known_prefix.starts_with(prefix) {
                return Ok(Value::bool(true));
            }
            if known_prefix.len() >= prefix.len() {
                return Ok(Value::bool(false));
            }
        }
        return Ok(Value::unknown(Type::Bool));
    }
    Ok(Value::bool(string_arg(args, 0)?.starts_with(prefix)))
}

fn strcontains(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    Ok(Value::bool(
        string_arg(args, 0)?.contains(string_arg(args, 1)?),
    ))
}

fn indent(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let spaces = whole_number(number_arg(args, 0)?).map_err(FunctionError::call)?;
    let s = string_arg(args, 1)?;
    if spaces < 0 {
        return Err(FunctionError::call(
            "panic in function implementation: strings: negative Repeat count",
        ));
    }
    let newlines = s.matches('\n').count();
    if newlines == 0 {
        return Ok(Value::string(s));
    }
    let spaces = usize::try_from(spaces).unwrap_or(usize::MAX);
    let total = spaces
        .checked_mul(newlines)
        .and_then(|n| n.checked_add(s.len()));
    let mut out = String::new();
    if total.is_none_or(|n| out.try_reserve_exact(n).is_err()) {
        return Err(FunctionError::call(
            "panic in function implementation: runtime error: out of memory",
        ));
    }
    for (i, line) in s.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
            out.extend(std::iter::repeat_n(' ', spaces));
        }
        out.push_str(line);
    }
    Ok(Value::string(out))
}

fn join(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let sep = string_arg(args, 0)?;
    let lists = &args[1..];
    if lists.is_empty() {
        return Err(FunctionError::call("at least one list is required"));
    }
    if lists.iter().any(|l| !l.is_wholly_known()) {
        return Ok(Value::unknown(Type::String));
    }
    let mut items: Vec<&str> = Vec::new();
    for (ai, list) in lists.iter().enumerate() {
        for (ei, elem) in list.as_elements().unwrap_or(&[]).iter().enumerate() {
            match elem.as_str() {
                Some(s) => items.push(s),
                None if lists.len() > 1 => {
                    return Err(FunctionError::arg(
                        ai + 1,
                        format!(
                            "element {ei} of list {} is null; cannot concatenate null values",
                            ai + 1
                        ),
                    ))
                }
                None => {
                    return Err(FunctionError::arg(
                        ai + 1,
                        format!("element {ei} is null; cannot concatenate null values"),
                    ))
                }
            }
        }
    }
    Ok(Value::string(items.join(sep)))
}

fn lower(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    Ok(Value::string(
        string_arg(args, 0)?
            .chars()
            .map(go_to_lower)
            .collect::<String>(),
    ))
}

fn upper(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    Ok(Value::string(
        string_arg(args, 0)?
            .chars()
            .map(go_to_upper)
            .collect::<String>(),
    ))
}

fn title(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    Ok(Value::string(go_title(string_arg(args, 0)?)))
}

fn strrev(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    Ok(Value::string(
        string_arg(args, 0)?
            .graphemes(true)
            .rev()
            .collect::<String>(),
    ))
}

/// cty's `substr`, including its quirks: a negative offset counts from the
/// end, a length of -1 means "the rest", and a zero length with a negative
/// offset is not special-cased (it returns the rest, as cty does).
fn substr(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let s = string_arg(args, 0)?;
    let mut offset = whole_number(number_arg(args, 1)?).map_err(FunctionError::call)?;
    let length = whole_number(number_arg(args, 2)?).map_err(FunctionError::call)?;

    if offset < 0 {
        offset = offset.saturating_add(grapheme_count(s) as i64);
    } else if length == 0 {
        return Ok(Value::string(""));
    }

    let clusters: Vec<&str> = s.graphemes(true).collect();
    let mut sub_start = 0usize;
    if offset > 0 {
        // Seek `offset` clusters forward; running off the end yields "".
        let mut pos = 0i64;
        let mut i = 0usize;
        for cluster in &clusters {
            i += cluster.len();
            pos += 1;
            if pos == offset {
                break;
            }
            if i >= s.len() {
                return Ok(Value::string(""));
            }
        }
        sub_start = i;
    }
    let sub = &s[sub_start..];
    if length < 0 {
        return Ok(Value::string(sub));
    }
    let mut end = 0usize;
    let mut pos = 0i64;
    for cluster in sub.graphemes(true) {
        end += cluster.len();
        pos += 1;
        if pos == length {
            break;
        }
    }
    Ok(Value::string(&sub[..end]))
}

fn split(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let sep = string_arg(args, 0)?;
    let s = string_arg(args, 1)?;
    // Go's strings.Split with an empty separator splits into runes (and an
    // empty string into nothing).
    let parts: Vec<Value> = if sep.is_empty() {
        s.chars().map(|c| Value::string(c.to_string())).collect()
    } else {
        s.split(sep).map(Value::string).collect()
    };
    Ok(Value::list(Type::String, parts))
}

fn trim(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let s = string_arg(args, 0)?;
    let cutset = string_arg(args, 1)?;
    Ok(Value::string(s.trim_matches(|c| cutset.contains(c))))
}

fn trimprefix(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let s = string_arg(args, 0)?;
    Ok(Value::string(
        s.strip_prefix(string_arg(args, 1)?).unwrap_or(s),
    ))
}

fn trimsuffix(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let s = string_arg(args, 0)?;
    Ok(Value::string(
        s.strip_suffix(string_arg(args, 1)?).unwrap_or(s),
    ))
}

fn trimspace(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    // Rust's `trim` uses the White_Space property, which is Go's IsSpace.
    Ok(Value::string(string_arg(args, 0)?.trim()))
}

fn replace(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let s = string_arg(args, 0)?;
    let substr = string_arg(args, 1)?;
    let replacement = string_arg(args, 2)?;
    if substr.len() > 1 && substr.starts_with('/') && substr.ends_with('/') {
        let re = GoRegex::compile(&substr[1..substr.len() - 1])
            .map_err(|e| FunctionError::call(e.to_string()))?;
        return Ok(Value::string(re.replace_all(s, replacement)));
    }
    Ok(Value::string(s.replace(substr, replacement)))
}

/// The shape of a match result: the whole match as a string, a tuple of
/// unnamed groups, or an object of named groups.
fn regex_result_type(pattern: &str) -> FunctionResult<(GoRegex, Type)> {
    let re = GoRegex::compile(pattern).map_err(|e| {
        FunctionError::arg(
            0,
            format!("invalid regexp pattern: {} in {}", e.code, e.expr),
        )
    })?;
    let names = re.names();
    let unnamed = names.iter().filter(|n| n.is_empty()).count();
    let named = names.len() - unnamed;
    let ty = if names.is_empty() {
        Type::String
    } else if unnamed > 0 && named > 0 {
        return Err(FunctionError::arg(
            0,
            "invalid regexp pattern: cannot mix both named and unnamed capture groups",
        ));
    } else if unnamed > 0 {
        Type::tuple(vec![Type::String; unnamed])
    } else {
        Type::object(names.iter().map(|n| (n.clone(), Type::String)))
    };
    Ok((re, ty))
}

fn regex_match_value(
    re: &GoRegex,
    text: &str,
    caps: &[Option<(usize, usize)>],
    ty: &Type,
) -> Value {
    let group = |i: usize| match caps.get(i).copied().flatten() {
        Some((s, e)) => Value::string(&text[s..e]),
        None => Value::null(Type::String),
    };
    match ty {
        Type::Tuple(_) => Value::tuple((1..caps.len()).map(group).collect()),
        Type::Object(_) => {
            // A repeated name takes the value of its last group, matched or not.
            let mut attrs = BTreeMap::new();
            for (i, name) in re.names().iter().enumerate() {
                attrs.insert(name.clone(), group(i + 1));
            }
            Value::object(attrs)
        }
        _ => group(0),
    }
}

fn regex_type(_: &CallContext<'_>, args: &[Value]) -> FunctionResult<Type> {
    match args[0].as_str() {
        Some(pattern) => Ok(regex_result_type(pattern)?.1),
        None => Ok(Type::Dynamic),
    }
}

fn regexall_type(_: &CallContext<'_>, args: &[Value]) -> FunctionResult<Type> {
    match args[0].as_str() {
        Some(pattern) => Ok(Type::list(regex_result_type(pattern)?.1)),
        None => Ok(Type::list(Type::Dynamic)),
    }
}

fn regex(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let (re, ty) = regex_result_type(string_arg(args, 0)?)?;
    let text = string_arg(args, 1)?;
    match re.captures_at(text, 0) {
        Some(caps) => Ok(regex_match_value(&re, text, &caps, &ty)),
        None => Err(FunctionError::call(
            "pattern did not match any part of the given string",
        )),
    }
}

fn regexall(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let (re, ty) = regex_result_type(string_arg(args, 0)?)?;
    let text = string_arg(args, 1)?;
    let matches = re
        .all_captures(text)
        .iter()
        .map(|caps| regex_match_value(&re, text, caps, &ty))
        .collect();
    Ok(Value::list(ty, matches))
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use terrace_value::{Refinement, Type, Value};

    #[test]
    fn chomp_indent_join() {
        call("chomp", vec![s("a\n\r\n\r")], Ok(s("a")));
        call("chomp", vec![s("a\r\r")], Ok(s("a")));
        call("chomp", vec![s("a\n\n ")], Ok(s("a\n\n ")));
        call("chomp", vec![s("")], Ok(s("")));
        call(
            "indent",
            vec![Value::int(2), s("a\nb\n")],
            Ok(s("a\n  b\n  ")),
        );
        call("indent", vec![Value::int(0), s("a\nb")], Ok(s("a\nb")));
        call(
            "indent",
            vec![Value::int(-1), s("a\nb")],
            err_call("panic in function implementation: strings: negative Repeat count"),
        );
        call(
            "indent",
            vec![num("1.5"), s("a")],
            err_call(super::super::numeric::NOT_WHOLE_NUMBER),
        );
        call(
            "join",
            vec![s(","), str_tuple(&["a", "b"]), str_tuple(&["c"])],
            Ok(s("a,b,c")),
        );
        call(
            "join",
            vec![s(",")],
            err_call("at least one list is required"),
        );
        call("join", vec![s(","), Value::empty_tuple()], Ok(s("")));
        call(
            "join",
            vec![
                s(","),
                Value::tuple(vec![s("a"), Value::null(Type::Dynamic)]),
            ],
            err_arg(1, "element 1 is null; cannot concatenate null values"),
        );
        call(
            "join",
            vec![
                s(","),
                str_tuple(&["a"]),
                Value::tuple(vec![s("b"), Value::null(Type::String)]),
            ],
            err_arg(
                2,
                "element 1 of list 2 is null; cannot concatenate null values",
            ),
        );
        call(
            "join",
            vec![s(","), list_of(Type::String, vec![unknown(Type::String)])],
            Ok(unknown_nn(Type::String)),
        );
    }

    #[test]
    fn case_mapping() {
        call("lower", vec![s("ÀÉ İ")], Ok(s("àé i")));
        call("lower", vec![s("HeLLo")], Ok(s("hello")));
        call("upper", vec![s("ßaǆ ǈ")], Ok(s("ßAǄ Ǉ")));
        call("upper", vec![s("ᾳ ᾀ")], Ok(s("ᾼ ᾈ")));
        call(
            "upper",
            vec![s("ƛɤ\u{1c8a}\u{a7d3}")],
            Ok(s("ƛɤ\u{1c8a}\u{a7d3}")),
        );
        call(
            "lower",
            vec![s("\u{a7cb}\u{a7dc}\u{10d50}")],
            Ok(s("\u{a7cb}\u{a7dc}\u{10d50}")),
        );
        // The table of newer mappings matches Rust's Unicode 17 tables;
        // a newer Rust may map more characters that Go 1.23 does not.
        assert!(
            char::UNICODE_VERSION.0 <= 17,
            "re-check is_newer_case_pair for {:?}",
            char::UNICODE_VERSION
        );
        call(
            "upper",
            vec![unknown(Type::String)],
            Ok(unknown_nn(Type::String)),
        );
        call(
            "title",
            vec![s("hello wORLD foo-bar o'neil 3rd ǆa")],
            Ok(s("Hello WORLD Foo-Bar O'Neil 3rd ǅa")),
        );
        call("title", vec![s("ﬁx")], Ok(s("ﬁx")));
        call("title", vec![s("é_a\u{a0}b")], Ok(s("É_a\u{a0}B")));
        call("title", vec![s("")], Ok(s("")));
    }

    #[test]
    fn strrev_substr() {
        call("strrev", vec![s("héllo👍🏽")], Ok(s("👍🏽olléh")));
        call("strrev", vec![s("")], Ok(s("")));
        call("strrev", vec![s("ab")], Ok(s("ba")));
        call("strrev", vec![s("e\u{301}x")], Ok(s("xe\u{301}")));
        call(
            "substr",
            vec![s("hello world"), Value::int(1), Value::int(4)],
            Ok(s("ello")),
        );
        call(
            "substr",
            vec![s("hello"), Value::int(-3), Value::int(-1)],
            Ok(s("llo")),
        );
        call(
            "substr",
            vec![s("hello"), Value::int(-10), Value::int(2)],
            Ok(s("he")),
        );
        call(
            "substr",
            vec![s("hello"), Value::int(10), Value::int(2)],
            Ok(s("")),
        );
        call(
            "substr",
            vec![s("hello"), Value::int(0), Value::int(0)],
            Ok(s("")),
        );
        call(
            "substr",
            vec![s("hello"), Value::int(5), Value::int(1)],
            Ok(s("")),
        );
        call(
            "substr",
            vec![s("hello"), Value::int(4), Value::int(-1)],
            Ok(s("o")),
        );
        call(
            "substr",
            vec![s("hello"), Value::int(-1), Value::int(0)],
            Ok(s("o")),
        );
        call(
            "substr",
            vec![s("héllo👍🏽x"), Value::int(4), Value::int(2)],
            Ok(s("o👍🏽")),
        );
        call(
            "substr",
            vec![s("hello"), num("1.5"), Value::int(2)],
            err_call(super::super::numeric::NOT_WHOLE_NUMBER),
        );
    }

    #[test]
    fn split_and_predicates() {
        call(
            "split",
            vec![s(","), s("a,b,,c")],
            Ok(str_list(&["a", "b", "", "c"])),
        );
        call(
            "split",
            vec![s(""), s("abc")],
            Ok(str_list(&["a", "b", "c"])),
        );
        call("split", vec![s(","), s("")], Ok(str_list(&[""])));
        call("split", vec![s(""), s("")], Ok(str_list(&[])));
        call(
            "startswith",
            vec![s("hello"), s("he")],
            Ok(Value::bool(true)),
        );
        call(
            "startswith",
            vec![s("hello"), s("lo")],
            Ok(Value::bool(false)),
        );
        call(
            "startswith",
            vec![unknown(Type::String), s("")],
            Ok(Value::bool(true)),
        );
        let prefixed = |p: &str| {
            Value::unknown_refined(
                Type::String,
                Refinement {
                    not_null: true,
                    string_prefix: Some(p.to_string()),
                    ..Refinement::default()
                },
            )
        };
        call(
            "startswith",
            vec![prefixed("hello"), s("he")],
            Ok(Value::bool(true)),
        );
        call(
            "startswith",
            vec![prefixed("hello"), s("x")],
            Ok(Value::bool(false)),
        );
        call(
            "startswith",
            vec![prefixed("he"), s("hello")],
            Ok(unknown_nn(Type::Bool)),
        );
        call(
            "startswith",
            vec![unknown(Type::String), s("a")],
            Ok(unknown_nn(Type::Bool)),
        );
        call("endswith", vec![s("hello"), s("lo")], Ok(Value::bool(true)));
        call(
            "endswith",
            vec![s("hello"), s("he")],
            Ok(Value::bool(false)),
        );
        call("endswith", vec![s("hello"), s("")], Ok(Value::bool(true)));
        call(
            "endswith",
            vec![unknown(Type::String), s("")],
            Ok(unknown_nn(Type::Bool)),
        );
        call(
            "strcontains",
            vec![s("hello"), s("ll")],
            Ok(Value::bool(true)),
        );
        call(
            "strcontains",
            vec![s("hello"), s("x")],
            Ok(Value::bool(false)),
        );
        call(
            "strcontains",
            vec![s("hello"), s("")],
            Ok(Value::bool(true)),
        );
        call(
            "strcontains",
            vec![unknown(Type::String), s("x")],
            Ok(unknown(Type::Bool)),
        );
    }

    #[test]
    fn trims() {
        call("trim", vec![s("?!hello?!"), s("!?")], Ok(s("hello")));
        call("trim", vec![s("aaa"), s("")], Ok(s("aaa")));
        call("trim", vec![s("xaxbx"), s("x")], Ok(s("axb")));
        call("trim", vec![s("ééaé"), s("é")], Ok(s("a")));
        call(
            "trimprefix",
            vec![s("helloworld"), s("hello")],
            Ok(s("world")),
        );
        call(
            "trimprefix",
            vec![s("helloworld"), s("world")],
            Ok(s("helloworld")),
        );
        call("trimprefix", vec![s("hello"), s("")], Ok(s("hello")));
        call("trimprefix", vec![s("aab"), s("a")], Ok(s("ab")));
        call(
            "trimsuffix",
            vec![s("helloworld"), s("world")],
            Ok(s("hello")),
        );
        call(
            "trimsuffix",
            vec![s("helloworld"), s("hello")],
            Ok(s("helloworld")),
        );
        call("trimsuffix", vec![s("abb"), s("b")], Ok(s("ab")));
        call("trimsuffix", vec![s(""), s("b")], Ok(s("")));
        call(
            "trimspace",
            vec![s("  \t\n hello \u{a0}\u{2003}")],
            Ok(s("hello")),
        );
        call("trimspace", vec![s("a b")], Ok(s("a b")));
        call("trimspace", vec![s("\u{85}x\u{3000}")], Ok(s("x")));
        call("trimspace", vec![s("")], Ok(s("")));
    }

    #[test]
    fn replace() {
        call(
            "replace",
            vec![s("hello world"), s("o"), s("0")],
            Ok(s("hell0 w0rld")),
        );
        call(
            "replace",
            vec![s("hello world"), s("/o(.)/"), s("$1x")],
            Ok(s("hellwld")),
        );
        call(
            "replace",
            vec![s("hello world"), s("/o(.)/"), s("${1}x")],
            Ok(s("hell xwrxld")),
        );
        call("replace", vec![s("abc"), s(""), s("-")], Ok(s("-a-b-c-")));
        call("replace", vec![s("abc"), s("/"), s("x")], Ok(s("abc")));
        call("replace", vec![s("abc"), s("//"), s("x")], Ok(s("xaxbxcx")));
        call(
            "replace",
            vec![s("abc"), s("/b/"), s("$$ $9 $1a $ x$")],
            Ok(s("a$   $ x$c")),
        );
        call(
            "replace",
            vec![s("hello"), s("/(/"), s("x")],
            err_call("error parsing regexp: missing closing ): `(`"),
        );
    }

    #[test]
    fn regex() {
        let nul = || Value::null(Type::String);
        call("regex", vec![s("[a-z]+"), s("123abc456")], Ok(s("abc")));
        call(
            "regex",
            vec![s("(a)|(b)"), s("b")],
            Ok(Value::tuple(vec![nul(), s("b")])),
        );
        call(
            "regex",
            vec![s("(?P<a>x)(?P<a>y)?"), s("x")],
            Ok(obj(vec![("a", nul())])),
        );
        call(
            "regex",
            vec![s("(?<n>x)(?P<m>y)"), s("xy")],
            Ok(obj(vec![("m", s("y")), ("n", s("x"))])),
        );
        call(
            "regex",
            vec![s("x"), s("y")],
            err_call("pattern did not match any part of the given string"),
        );
        call(
            "regex",
            vec![s("(x)(?P<a>y)"), s("xy")],
            err_arg(
                0,
                "invalid regexp pattern: cannot mix both named and unnamed capture groups",
            ),
        );
        call(
            "regex",
            vec![s("("), s("x")],
            err_arg(0, "invalid regexp pattern: missing closing ) in ("),
        );
        call(
            "regex",
            vec![s("\\p{greek}"), s("α")],
            err_arg(
                0,
                "invalid regexp pattern: invalid character class range in \\p{greek}",
            ),
        );
        call(
            "regex",
            vec![unknown(Type::String), s("x")],
            Ok(Value::dynamic()),
        );
        call(
            "regex",
            vec![s("(a)"), unknown(Type::String)],
            Ok(unknown_nn(Type::tuple(vec![Type::String]))),
        );
    }

    #[test]
    fn regexall() {
        call(
            "regexall",
            vec![s("a*"), s("baaac")],
            Ok(str_list(&["", "aaa", ""])),
        );
        call(
            "regexall",
            vec![s("(a)(b)?"), s("aab")],
            Ok(list_of(
                Type::tuple(vec![Type::String, Type::String]),
                vec![
                    Value::tuple(vec![s("a"), Value::null(Type::String)]),
                    Value::tuple(vec![s("a"), s("b")]),
                ],
            )),
        );
        call(
            "regexall",
            vec![s("(?P<x>a)"), s("aa")],
            Ok(list_of(
                Type::object([("x".to_string(), Type::String)]),
                vec![obj(vec![("x", s("a"))]), obj(vec![("x", s("a"))])],
            )),
        );
        call("regexall", vec![s("z"), s("abc")], Ok(str_list(&[])));
        call(
            "regexall",
            vec![s("**"), s("abc")],
            err_arg(
                0,
                "invalid regexp pattern: missing argument to repetition operator in *",
            ),
        );
        call(
            "regexall",
            vec![unknown(Type::String), s("x")],
            Ok(unknown_nn(Type::list(Type::Dynamic))),
        );
    }
}
