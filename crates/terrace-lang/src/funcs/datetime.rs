//! Built-in functions: date and time (`formatdate`, `timeadd`, `timecmp`,
//! `timestamp`, `plantimestamp`).
//!
//! Timestamps are RFC 3339 strings. Terraform parses them with Go's `time`
//! package and turns Go's parse errors into its own messages, so this module
//! reproduces Go's RFC 3339 parser (its fast path, its general layout parser
//! and the errors each produces), cty's stricter variant used by
//! `formatdate` and `timeadd`, Go's duration syntax and RFC 3339 formatting.

use super::{arg_str, CallContext, Function, FunctionError, FunctionResult, Param, ReturnType};
use terrace_value::gostr;
use terrace_value::{Type, Value};

pub(crate) fn register(out: &mut Vec<Function>) {
    out.push(Function::new(
        "formatdate",
        vec![
            Param::new("format", Type::String),
            Param::new("time", Type::String),
        ],
        ReturnType::Static(Type::String),
        formatdate,
    ));
    // cty's TimeAddFunc declares no result refinement.
    out.push(
        Function::new(
            "timeadd",
            vec![
                Param::new("timestamp", Type::String),
                Param::new("duration", Type::String),
            ],
            ReturnType::Static(Type::String),
            timeadd,
        )
        .nullable_result(),
    );
    out.push(Function::new(
        "timecmp",
        vec![
            Param::new("timestamp_a", Type::String),
            Param::new("timestamp_b", Type::String),
        ],
        ReturnType::Static(Type::Number),
        timecmp,
    ));
    out.push(Function::new(
        "timestamp",
        Vec::new(),
        ReturnType::Static(Type::String),
        timestamp,
    ));
    out.push(
        Function::new(
            "plantimestamp",
            Vec::new(),
            ReturnType::Static(Type::String),
            timestamp,
        )
        .nullable_result(),
    );
}

fn formatdate(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let format = arg_str(args, 0)?;
    let time = parse_cty_timestamp(arg_str(args, 1)?).map_err(|e| FunctionError::arg(1, e))?;
    format_date(format, &time)
        .map(Value::string)
        .map_err(|e| FunctionError::arg(0, e))
}

fn timeadd(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let time = parse_cty_timestamp(arg_str(args, 0)?).map_err(FunctionError::call)?;
    let duration = parse_duration(arg_str(args, 1)?).map_err(FunctionError::call)?;
    Ok(Value::string(time.add_nanos(duration).format_rfc3339()))
}

fn timecmp(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let a = parse_lenient_timestamp(arg_str(args, 0)?).map_err(|e| FunctionError::arg(0, e))?;
    let b = parse_lenient_timestamp(arg_str(args, 1)?).map_err(|e| FunctionError::arg(1, e))?;
    let order = (a.unix_seconds, a.nanos).cmp(&(b.unix_seconds, b.nanos));
    Ok(Value::int(order as i64))
}

fn timestamp(ctx: &CallContext<'_>, _: &[Value], _: &Type) -> FunctionResult<Value> {
    let text = match ctx.now {
        Some(now) => match go_parse_rfc3339(now) {
            Ok(time) => time.to_utc().format_rfc3339(),
            Err(_) => now.to_string(),
        },
        None => {
            let elapsed = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_err(|_| FunctionError::call("the system clock is set before 1970"))?;
            GoTime {
                unix_seconds: elapsed.as_secs() as i64,
                nanos: 0,
                offset: 0,
            }
            .format_rfc3339()
        }
    };
    Ok(Value::string(text))
}

// ----- time values -----

/// An instant with the fixed UTC offset it was written with, as a Go
/// `time.Time` in a `FixedZone` behaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct GoTime {
    unix_seconds: i64,
    nanos: u32,
    /// Seconds east of UTC.
    offset: i32,
}

struct Civil {
    year: i64,
    month: u32,
    day: u32,
    hour: u32,
    minute: u32,
    second: u32,
    /// 0 is Sunday.
    weekday: u32,
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

pub(super) fn days_in(month: u32, year: i64) -> u32 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

const MONTH_NAMES: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const DAY_NAMES: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

impl GoTime {
    /// Go's `time.Date` in a fixed zone, for already validated fields.
    pub(super) fn from_fields(fields: [i64; 6], nanos: u32, offset: i32) -> GoTime {
        let [year, month, day, hour, minute, second] = fields;
        let days = days_from_civil(year, month as u32, day as u32);
        let local = days * 86_400 + hour * 3600 + minute * 60 + second;
        GoTime {
            unix_seconds: local - i64::from(offset),
            nanos,
            offset,
        }
    }

    fn civil(&self) -> Civil {
        let local = self.unix_seconds + i64::from(self.offset);
        let days = local.div_euclid(86_400);
        let secs = local.rem_euclid(86_400) as u32;
        let (year, month, day) = civil_from_days(days);
        Civil {
            year,
            month,
            day,
            hour: secs / 3600,
            minute: secs / 60 % 60,
            second: secs % 60,
            weekday: (days + 4).rem_euclid(7) as u32,
        }
    }

    fn add_nanos(&self, duration: i64) -> GoTime {
        let total = i128::from(self.unix_seconds) * 1_000_000_000
            + i128::from(self.nanos)
            + i128::from(duration);
        GoTime {
            unix_seconds: total.div_euclid(1_000_000_000) as i64,
            nanos: total.rem_euclid(1_000_000_000) as u32,
            offset: self.offset,
        }
    }

    fn to_utc(self) -> GoTime {
        GoTime { offset: 0, ..self }
    }

    /// `Format(time.RFC3339)`: seconds precision, `Z` for UTC.
    pub(super) fn format_rfc3339(&self) -> String {
        let c = self.civil();
        let mut out = format!(
            "{}-{:02}-{:02}T{:02}:{:02}:{:02}",
            go_append_int(c.year, 4),
            c.month,
            c.day,
            c.hour,
            c.minute,
            c.second
        );
        out.push_str(&self.format_zone(true, true));
        out
    }

    /// Go's numeric zone layouts: `Z07:00` (`z_for_utc`, `colon`), `-0700`,
    /// `-07:00`.
    fn format_zone(&self, z_for_utc: bool, colon: bool) -> String {
        if self.offset == 0 && z_for_utc {
            return "Z".to_string();
        }
        let minutes = self.offset / 60;
        let sign = if minutes < 0 { '-' } else { '+' };
        let minutes = minutes.abs();
        if colon {
            format!("{sign}{:02}:{:02}", minutes / 60, minutes % 60)
        } else {
            format!("{sign}{:02}{:02}", minutes / 60, minutes % 60)
        }
    }
}

/// Go's `appendInt` with a minimum width (the sign does not count).
fn go_append_int(value: i64, width: usize) -> String {
    if value < 0 {
        format!("-{:0width$}", value.unsigned_abs())
    } else {
        format!("{value:0width$}")
    }
}

// ----- Go's RFC 3339 parser -----

const RFC3339_LAYOUT: &str = "2006-01-02T15:04:05Z07:00";

/// Go's `*time.ParseError`.
#[derive(Debug, PartialEq)]
struct ParseError {
    layout_elem: String,
    value_elem: String,
    message: String,
}

impl ParseError {
    fn new(layout_elem: &str, value_elem: &[u8], message: impl Into<String>) -> ParseError {
        ParseError {
            layout_elem: layout_elem.to_string(),
            value_elem: String::from_utf8_lossy(value_elem).into_owned(),
            message: message.into(),
        }
    }
}

fn parse_two_digits(s: &[u8], min: u32, max: u32) -> Option<u32> {
    let mut x = 0u32;
    for &c in s {
        if !c.is_ascii_digit() {
            return None;
        }
        x = x * 10 + u32::from(c - b'0');
    }
    (min..=max).contains(&x).then_some(x)
}

/// Nanoseconds from a fraction such as `.123`; `digits_end` is the index
/// after its last digit. At most nine digits count.
fn parse_nanoseconds(value: &[u8], digits_end: usize) -> u32 {
    let end = digits_end.min(10);
    let mut ns = 0u32;
    for &c in &value[1..end] {
        ns = ns * 10 + u32::from(c - b'0');
    }
    for _ in end..10 {
        ns *= 10;
    }
    ns
}

/// Go's RFC 3339 fast path (`parseRFC3339`).
fn parse_rfc3339_fast(s: &[u8]) -> Option<GoTime> {
    if s.len() < 19 {
        return None;
    }
    let year = parse_two_digits(&s[0..4], 0, 9999)?;
    let month = parse_two_digits(&s[5..7], 1, 12)?;
    let day = parse_two_digits(&s[8..10], 1, days_in(month, i64::from(year)))?;
    let hour = parse_two_digits(&s[11..13], 0, 23)?;
    let minute = parse_two_digits(&s[14..16], 0, 59)?;
    let second = parse_two_digits(&s[17..19], 0, 59)?;
    if !(s[4] == b'-' && s[7] == b'-' && s[10] == b'T' && s[13] == b':' && s[16] == b':') {
        return None;
    }
    let mut rest = &s[19..];
    let mut nanos = 0;
    if rest.len() >= 2 && rest[0] == b'.' && rest[1].is_ascii_digit() {
        let mut n = 2;
        while n < rest.len() && rest[n].is_ascii_digit() {
            n += 1;
        }
        nanos = parse_nanoseconds(rest, n);
        rest = &rest[n..];
    }
    let offset = if rest == b"Z" {
        0
    } else {
        if rest.len() != 6 {
            return None;
        }
        let hours = parse_two_digits(&rest[1..3], 0, 23)?;
        let minutes = parse_two_digits(&rest[4..6], 0, 59)?;
        if !((rest[0] == b'-' || rest[0] == b'+') && rest[3] == b':') {
            return None;
        }
        let offset = ((hours * 60 + minutes) * 60) as i32;
        if rest[0] == b'-' {
            -offset
        } else {
            offset
        }
    };
    let fields = [year, month, day, hour, minute, second].map(i64::from);
    Some(GoTime::from_fields(fields, nanos, offset))
}

/// Go's `getnum`: one or two digits (exactly two when `fixed`).
fn getnum(s: &[u8], fixed: bool) -> Option<(u32, &[u8])> {
    let digit = |i: usize| {
        s.get(i)
            .filter(|c| c.is_ascii_digit())
            .map(|c| u32::from(c - b'0'))
    };
    let first = digit(0)?;
    match digit(1) {
        Some(second) => Some((first * 10 + second, &s[2..])),
        None if fixed => None,
        None => Some((first, &s[1..])),
    }
}

/// Go's general layout parser, specialised to the RFC 3339 layout.
fn parse_rfc3339_general(input: &[u8]) -> Result<GoTime, ParseError> {
    let mut value = input;
    let (mut year, mut month, mut day, mut hour, mut minute, mut second) =
        (0i64, 0u32, 0u32, 0u32, 0u32, 0u32);
    let mut nanos = 0u32;
    let mut offset: i32 = 0;

    // (literal prefix, layout element) for each element of the layout.
    const CHUNKS: [(&str, &str); 7] = [
        ("", "2006"),
        ("-", "01"),
        ("-", "02"),
        ("T", "15"),
        (":", "04"),
        (":", "05"),
        ("", "Z07:00"),
    ];
    for (prefix, element) in CHUNKS {
        for &expected in prefix.as_bytes() {
            if value.first() != Some(&expected) {
                return Err(ParseError::new(prefix, value, ""));
            }
            value = &value[1..];
        }
        let hold = value;
        let mut range_error: Option<&str> = None;
        let ok: bool = match element {
            "2006" => {
                if value.len() < 4
                    || !value[0].is_ascii_digit()
                    || !value[1..4].iter().all(u8::is_ascii_digit)
                {
                    // Go's atoi accepts only digits here (no sign can
                    // follow a leading digit).
                    false
                } else {
                    year = value[..4]
                        .iter()
                        .fold(0, |acc, c| acc * 10 + i64::from(c - b'0'));
                    value = &value[4..];
                    true
                }
            }
            "01" => match getnum(value, true) {
                Some((n, rest)) => {
                    month = n;
                    value = rest;
                    if n == 0 || n > 12 {
                        range_error = Some("month");
                    }
                    true
                }
                None => false,
            },
            "02" => match getnum(value, true) {
                Some((n, rest)) => {
                    day = n;
                    value = rest;
                    true
                }
                None => false,
            },
            "15" => match getnum(value, false) {
                Some((n, rest)) => {
                    hour = n;
                    value = rest;
                    if n >= 24 {
                        range_error = Some("hour");
                    }
                    true
                }
                None => false,
            },
            "04" => match getnum(value, true) {
                Some((n, rest)) => {
                    minute = n;
                    value = rest;
                    if n >= 60 {
                        range_error = Some("minute");
                    }
                    true
                }
                None => false,
            },
            "05" => match getnum(value, true) {
                Some((n, rest)) => {
                    second = n;
                    value = rest;
                    if n >= 60 {
                        range_error = Some("second");
                    } else if value.len() >= 2
                        && (value[0] == b'.' || value[0] == b',')
                        && value[1].is_ascii_digit()
                    {
                        // A fraction the layout does not mention is allowed.
                        let mut n = 2;
                        while n < value.len() && value[n].is_ascii_digit() {
                            n += 1;
                        }
                        nanos = parse_nanoseconds(value, n);
                        value = &value[n..];
                    }
                    true
                }
                None => false,
            },
            _ => {
                if value.first() == Some(&b'Z') {
                    value = &value[1..];
                    offset = 0;
                    true
                } else if value.len() < 6 || value[3] != b':' {
                    false
                } else {
                    let (sign, hh, mm) = (value[0], &value[1..3], &value[4..6]);
                    value = &value[6..];
                    // Range checks apply even when a later field fails to
                    // parse, and take precedence, as in Go.
                    let hours = getnum(hh, true).map(|(h, _)| h);
                    let minutes = hours.and_then(|_| getnum(mm, true)).map(|(m, _)| m);
                    let (h, m) = (hours.unwrap_or(0), minutes.unwrap_or(0));
                    if h > 24 {
                        range_error = Some("time zone offset hour");
                    }
                    if m > 60 {
                        range_error = Some("time zone offset minute");
                    }
                    let seconds = ((h * 60 + m) * 60) as i32;
                    let parsed = hours.is_some() && minutes.is_some();
                    match sign {
                        b'+' => {
                            offset = seconds;
                            parsed
                        }
                        b'-' => {
                            offset = -seconds;
                            parsed
                        }
                        _ => false,
                    }
                }
            }
        };
        if let Some(what) = range_error {
            return Err(ParseError::new(
                element,
                value,
                format!(": {what} out of range"),
            ));
        }
        if !ok {
            return Err(ParseError::new(element, hold, ""));
        }
    }
    if !value.is_empty() {
        return Err(ParseError::new(
            "",
            value,
            format!(": extra text: {}", go_time_quote(value)),
        ));
    }
    if day < 1 || day > days_in(month, year) {
        return Err(ParseError::new("", value, ": day out of range"));
    }
    let fields = [
        year,
        i64::from(month),
        i64::from(day),
        i64::from(hour),
        i64::from(minute),
        i64::from(second),
    ];
    Ok(GoTime::from_fields(fields, nanos, offset))
}

/// Go's `time.Parse(time.RFC3339, s)`.
fn go_parse_rfc3339(s: &str) -> Result<GoTime, ParseError> {
    match parse_rfc3339_fast(s.as_bytes()) {
        Some(time) => Ok(time),
        None => parse_rfc3339_general(s.as_bytes()),
    }
}

/// cty's `parseStrictRFC3339`: Go's parser plus the checks it skips.
fn parse_strict_rfc3339(s: &str) -> Result<GoTime, ParseError> {
    let b = s.as_bytes();
    if let Some(time) = parse_rfc3339_fast(b) {
        return Ok(time);
    }
    let time = parse_rfc3339_general(b)?;
    let num2 =
        |x: &[u8]| u32::from(x[0].wrapping_sub(b'0')) * 10 + u32::from(x[1].wrapping_sub(b'0'));
    if b.get(12) == Some(&b':') {
        return Err(ParseError::new(
            "15",
            &b[11..12],
            ": hour must have two digits",
        ));
    }
    if b.get(19) == Some(&b',') {
        return Err(ParseError::new(
            ".",
            b",",
            ": sub-second separator must be a period",
        ));
    }
    if b.last() != Some(&b'Z') {
        let n = b.len();
        if n >= 6 {
            if num2(&b[n - 5..n - 3]) >= 24 {
                return Err(ParseError::new(
                    "Z07:00",
                    &b[n - 6..],
                    ": timezone hour out of range",
                ));
            }
            if num2(&b[n - 2..]) >= 60 {
                return Err(ParseError::new(
                    "Z07:00",
                    &b[n - 6..],
                    ": timezone minute out of range",
                ));
            }
        }
        return Ok(time);
    }
    Err(ParseError::new(RFC3339_LAYOUT, b, ""))
}

fn layout_element_name(element: &str) -> &'static str {
    match element {
        "2006" => "year",
        "01" => "month",
        "02" => "day of month",
        "15" => "hour",
        "04" => "minute",
        "05" => "second",
        "Z07:00" => "UTC offset",
        _ => "timestamp segment",
    }
}

/// cty's `parseTimestamp`, used by `formatdate` and `timeadd`.
fn parse_cty_timestamp(s: &str) -> Result<GoTime, String> {
    parse_strict_rfc3339(s).map_err(|e| describe_parse_error(&e, true))
}

/// Terraform's own `parseTimestamp` (for `timecmp`): Go's lenient parser
/// and no special cases for the hour.
fn parse_lenient_timestamp(s: &str) -> Result<GoTime, String> {
    go_parse_rfc3339(s).map_err(|e| describe_parse_error(&e, false))
}

fn describe_parse_error(e: &ParseError, hour_details: bool) -> String {
    const PREFIX: &str = "not a valid RFC3339 timestamp";
    if e.layout_elem.is_empty() && e.value_elem.is_empty() && !e.message.is_empty() {
        return format!("{PREFIX}{}", e.message);
    }
    match e.layout_elem.as_str() {
        "T" => return format!("{PREFIX}: missing required time introducer 'T'"),
        ":" | "-" => {
            return if e.value_elem.is_empty() {
                format!(
                    "{PREFIX}: end of string where {} is expected",
                    gostr::quote(&e.layout_elem)
                )
            } else {
                format!(
                    "{PREFIX}: found {} where {} is expected",
                    gostr::quote(&e.value_elem),
                    gostr::quote(&e.layout_elem)
                )
            };
        }
        _ => {}
    }
    let what = layout_element_name(&e.layout_elem);
    if e.value_elem.is_empty() {
        return format!("{PREFIX}: end of string before {what}");
    }
    if hour_details && what == "hour" && e.value_elem.contains(':') {
        return format!("{PREFIX}: hour must be between 0 and 23 inclusive");
    }
    if hour_details && what == "hour" && e.value_elem.len() != 2 {
        return format!("{PREFIX}: hour must have exactly two digits");
    }
    if hour_details && what == "minute" && e.value_elem.len() != 2 {
        return format!("{PREFIX}: minute must have exactly two digits");
    }
    format!(
        "{PREFIX}: cannot use {} as {what}",
        gostr::quote(&e.value_elem)
    )
}

/// The `time` package's own quoting: non-ASCII and control bytes as `\x`.
fn go_time_quote(s: &[u8]) -> String {
    let text = String::from_utf8_lossy(s);
    let mut out = String::from("\"");
    for c in text.chars() {
        if (c as u32) >= 0x80 || c < ' ' {
            let mut buf = [0u8; 4];
            for byte in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("\\x{byte:02x}"));
            }
        } else {
            if c == '"' || c == '\\' {
                out.push('\\');
            }
            out.push(c);
        }
    }
    out.push('"');
    out
}

// ----- durations -----

/// Go's `time.ParseDuration`, in nanoseconds.
fn parse_duration(orig: &str) -> Result<i64, String> {
    let invalid = || format!("time: invalid duration {}", go_time_quote(orig.as_bytes()));
    let mut s = orig.as_bytes();
    let mut total: u64 = 0;
    let mut negative = false;
    if let Some(&c) = s.first() {
        if c == b'-' || c == b'+' {
            negative = c == b'-';
            s = &s[1..];
        }
    }
    if s == b"0" {
        return Ok(0);
    }
    if s.is_empty() {
        return Err(invalid());
    }
    const LIMIT: u64 = 1 << 63;
    while !s.is_empty() {
        if !(s[0] == b'.' || s[0].is_ascii_digit()) {
            return Err(invalid());
        }
        // Integer part.
        let mut whole: u64 = 0;
        let mut i = 0;
        while i < s.len() && s[i].is_ascii_digit() {
            if whole > LIMIT / 10 {
                return Err(invalid());
            }
            whole = whole * 10 + u64::from(s[i] - b'0');
            if whole > LIMIT {
                return Err(invalid());
            }
            i += 1;
        }
        let had_integer = i > 0;
        s = &s[i..];
        // Fraction: digits beyond what fits stop counting.
        let mut fraction: u64 = 0;
        let mut scale: f64 = 1.0;
        let mut had_fraction = false;
        if s.first() == Some(&b'.') {
            s = &s[1..];
            let mut i = 0;
            let mut overflow = false;
            while i < s.len() && s[i].is_ascii_digit() {
                if !overflow {
                    if fraction > (LIMIT - 1) / 10 {
                        overflow = true;
                    } else {
                        let next = fraction * 10 + u64::from(s[i] - b'0');
                        if next > LIMIT {
                            overflow = true;
                        } else {
                            fraction = next;
                            scale *= 10.0;
                        }
                    }
                }
                i += 1;
            }
            had_fraction = i > 0;
            s = &s[i..];
        }
        if !had_integer && !had_fraction {
            return Err(invalid());
        }
        let unit_len = s
            .iter()
            .position(|&c| c == b'.' || c.is_ascii_digit())
            .unwrap_or(s.len());
        if unit_len == 0 {
            return Err(format!(
                "time: missing unit in duration {}",
                go_time_quote(orig.as_bytes())
            ));
        }
        let unit_text = &s[..unit_len];
        s = &s[unit_len..];
        let unit: u64 = match unit_text {
            b"ns" => 1,
            b"us" | [0xC2, 0xB5, b's'] | [0xCE, 0xBC, b's'] => 1_000,
            b"ms" => 1_000_000,
            b"s" => 1_000_000_000,
            b"m" => 60_000_000_000,
            b"h" => 3_600_000_000_000,
            _ => {
                return Err(format!(
                    "time: unknown unit {} in duration {}",
                    go_time_quote(unit_text),
                    go_time_quote(orig.as_bytes())
                ))
            }
        };
        if whole > LIMIT / unit {
            return Err(invalid());
        }
        let mut v = whole * unit;
        if fraction > 0 {
            v += (fraction as f64 * (unit as f64 / scale)) as u64;
            if v > LIMIT {
                return Err(invalid());
            }
        }
        total += v;
        if total > LIMIT {
            return Err(invalid());
        }
    }
    if negative {
        return Ok((total as i64).wrapping_neg());
    }
    if total > LIMIT - 1 {
        return Err(invalid());
    }
    Ok(total as i64)
}

// ----- formatdate -----

fn is_verb(b: u8) -> bool {
    b.is_ascii_alphabetic()
}

/// Splits a format string into quoted literals, runs of one verb letter and
/// other literal text, as cty's `splitDateFormat` does.
fn split_date_format(format: &[u8]) -> Vec<&[u8]> {
    let mut tokens = Vec::new();
    let mut data = format;
    while !data.is_empty() {
        let len = if data[0] == b'\'' {
            if data.len() > 1 && data[1] == b'\'' {
                2
            } else {
                let mut end = data.len();
                let mut i = 1;
                while i < data.len() {
                    if data[i] == b'\'' {
                        if i + 1 == data.len() {
                            end = data.len();
                            break;
                        }
                        if data[i + 1] == b'\'' {
                            i += 2;
                            continue;
                        }
                        end = i + 1;
                        break;
                    }
                    i += 1;
                }
                end
            }
        } else if is_verb(data[0]) {
            data.iter()
                .position(|&c| c != data[0])
                .unwrap_or(data.len())
        } else {
            data.iter()
                .skip(1)
                .position(|&c| c == b'\'' || is_verb(c))
                .map_or(data.len(), |p| p + 1)
        };
        tokens.push(&data[..len]);
        data = &data[len..];
    }
    tokens
}

fn format_date(format: &str, time: &GoTime) -> Result<String, String> {
    let c = time.civil();
    let mut out: Vec<u8> = Vec::new();
    for tok in split_date_format(format.as_bytes()) {
        if tok[0] == b'\'' {
            if tok.len() == 1 || tok[tok.len() - 1] != b'\'' {
                return Err("unterminated literal '".to_string());
            }
            if tok.len() == 2 {
                out.push(b'\'');
            } else {
                let raw = &tok[1..tok.len() - 1];
                let mut i = 0;
                while i < raw.len() {
                    out.push(raw[i]);
                    if raw[i] == b'\'' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            continue;
        }
        if !is_verb(tok[0]) {
            out.extend_from_slice(tok);
            continue;
        }
        let verb = String::from_utf8_lossy(tok).into_owned();
        let bad = |detail: &str| {
            if detail.is_empty() {
                format!("invalid date format verb {}", gostr::quote(&verb))
            } else {
                format!("invalid date format verb {}: {detail}", gostr::quote(&verb))
            }
        };
        let text = match (tok[0], tok.len()) {
            (b'Y', 2) => format!("{:02}", c.year % 100),
            (b'Y', 4) => format!("{:04}", c.year),
            (b'Y', _) => return Err(bad("year must either be \"YY\" or \"YYYY\"")),
            (b'M', 1) => c.month.to_string(),
            (b'M', 2) => format!("{:02}", c.month),
            (b'M', 3) => MONTH_NAMES[c.month as usize - 1][..3].to_string(),
            (b'M', 4) => MONTH_NAMES[c.month as usize - 1].to_string(),
            (b'M', _) => return Err(bad("month must be \"M\", \"MM\", \"MMM\", or \"MMMM\"")),
            (b'D', 1) => c.day.to_string(),
            (b'D', 2) => format!("{:02}", c.day),
            (b'D', _) => return Err(bad("day of month must either be \"D\" or \"DD\"")),
            (b'E', 3) => DAY_NAMES[c.weekday as usize][..3].to_string(),
            (b'E', 4) => DAY_NAMES[c.weekday as usize].to_string(),
            (b'E', _) => return Err(bad("day of week must either be \"EEE\" or \"EEEE\"")),
            (b'h', 1) => c.hour.to_string(),
            (b'h', 2) => format!("{:02}", c.hour),
            (b'h', _) => return Err(bad("24-hour must either be \"h\" or \"hh\"")),
            (b'H', n) => {
                let h = match c.hour % 12 {
                    0 => 12,
                    h => h,
                };
                match n {
                    1 => h.to_string(),
                    2 => format!("{h:02}"),
                    _ => return Err(bad("12-hour must either be \"H\" or \"HH\"")),
                }
            }
            (b'A' | b'a', n) => {
                if n != 2 {
                    let letter = tok[0] as char;
                    return Err(bad(&format!("must be \"{letter}{letter}\"")));
                }
                let marker = if c.hour < 12 { "AM" } else { "PM" };
                if tok[0] == b'A' {
                    marker.to_string()
                } else {
                    marker.to_lowercase()
                }
            }
            (b'm', 1) => c.minute.to_string(),
            (b'm', 2) => format!("{:02}", c.minute),
            (b'm', _) => return Err(bad("minute must either be \"m\" or \"mm\"")),
            (b's', 1) => c.second.to_string(),
            (b's', 2) => format!("{:02}", c.second),
            (b's', _) => return Err(bad("second must either be \"s\" or \"ss\"")),
            (b'Z', 1) => time.format_zone(true, true),
            (b'Z', 3) => match time.format_zone(false, false).as_str() {
                "+0000" => "UTC".to_string(),
                other => other.to_string(),
            },
            (b'Z', 4) => time.format_zone(false, false),
            (b'Z', 5) => time.format_zone(false, true),
            (b'Z', _) => return Err(bad("timezone must be Z, ZZZZ, or ZZZZZ")),
            _ => return Err(bad("")),
        };
        out.extend_from_slice(text.as_bytes());
    }
    // Only whole tokens of the (valid UTF-8) format string are copied, so
    // the output is valid UTF-8 too.
    Ok(String::from_utf8_lossy(&out).into_owned())
}

#[cfg(test)]
mod tests {
    use super::super::call::CallError;
    use super::super::{testing, CallContext};
    use super::*;

    fn call_with(ctx: &CallContext<'_>, name: &str, args: &[&str]) -> Result<Value, CallError> {
        testing::try_call_in(ctx, name, testing::strs(args))
    }

    fn call(name: &str, args: &[&str]) -> Result<Value, CallError> {
        call_with(&CallContext::default(), name, args)
    }

    fn expect(name: &str, args: &[&str], want: &str) {
        let got = call(name, args).unwrap_or_else(|e| panic!("{name}({args:?}): {e:?}"));
        assert_eq!(got.as_str(), Some(want), "{name}({args:?})");
    }

    #[track_caller]
    fn expect_error(name: &str, args: &[&str], argument: Option<usize>, message: &str) {
        testing::call(
            name,
            testing::strs(args),
            testing::err_at(argument, message),
        )
    }

    const T: &str = "2018-01-02T23:12:01Z";

    #[test]
    fn formatdate_matches_terraform() {
        let cases: &[(&str, &str, &str)] = &[
            ("DD MMM YYYY hh:mm ZZZ", T, "02 Jan 2018 23:12 UTC"),
            (
                "EEEE, DD-MMM-YY hh:mm:ss ZZZ",
                T,
                "Tuesday, 02-Jan-18 23:12:01 UTC",
            ),
            (
                "EEE, DD MMM YYYY hh:mm:ss ZZZ",
                "2018-01-02T23:12:01-08:00",
                "Tue, 02 Jan 2018 23:12:01 -0800",
            ),
            ("MMM DD, YYYY", T, "Jan 02, 2018"),
            ("HH:mmaa", T, "11:12pm"),
            ("H:m:s AA", "2018-01-02T00:02:01Z", "12:2:1 AM"),
            (
                "Z ZZZZ ZZZZZ ZZZ",
                "2018-01-02T23:12:01+05:30",
                "+05:30 +0530 +05:30 +0530",
            ),
            ("Z ZZZZ ZZZZZ ZZZ", T, "Z +0000 +00:00 UTC"),
            (
                "Z ZZZZ ZZZZZ ZZZ",
                "2018-01-02T23:12:01-00:00",
                "Z +0000 +00:00 UTC",
            ),
            ("'hello' 'it''s' '' YYYY", T, "hello it's ' 2018"),
            ("YY M D", "2005-01-02T23:12:01Z", "05 1 2"),
            ("YYYY", "0005-01-02T23:12:01Z", "0005"),
            ("YYYY MMMM", "2018-01-02T23:12:01.123Z", "2018 January"),
            ("", T, ""),
            ("ss", "2018-01-02T23:12:01.999999999999Z", "01"),
            ("EEEE", "2000-02-29T00:00:00Z", "Tuesday"),
        ];
        for (format, time, want) in cases {
            expect("formatdate", &[format, time], want);
        }
    }

    #[test]
    fn formatdate_format_errors_match_terraform() {
        let cases: &[(&str, &str)] = &[
            ("'unterminated", "unterminated literal '"),
            ("YYY", "invalid date format verb \"YYY\": year must either be \"YY\" or \"YYYY\""),
            ("MMMMM", "invalid date format verb \"MMMMM\": month must be \"M\", \"MM\", \"MMM\", or \"MMMM\""),
            ("DDD", "invalid date format verb \"DDD\": day of month must either be \"D\" or \"DD\""),
            ("EE", "invalid date format verb \"EE\": day of week must either be \"EEE\" or \"EEEE\""),
            ("hhh", "invalid date format verb \"hhh\": 24-hour must either be \"h\" or \"hh\""),
            ("HHH", "invalid date format verb \"HHH\": 12-hour must either be \"H\" or \"HH\""),
            ("A", "invalid date format verb \"A\": must be \"AA\""),
            ("aaa", "invalid date format verb \"aaa\": must be \"aa\""),
            ("mmm", "invalid date format verb \"mmm\": minute must either be \"m\" or \"mm\""),
            ("sss", "invalid date format verb \"sss\": second must either be \"s\" or \"ss\""),
            ("ZZ", "invalid date format verb \"ZZ\": timezone must be Z, ZZZZ, or ZZZZZ"),
            ("x", "invalid date format verb \"x\""),
            ("ABC", "invalid date format verb \"A\": must be \"AA\""),
            ("🙂 YYYY ünï", "invalid date format verb \"n\""),
        ];
        for (format, message) in cases {
            expect_error("formatdate", &[format, T], Some(0), message);
        }
    }

    #[test]
    fn formatdate_time_errors_match_terraform() {
        let p = "not a valid RFC3339 timestamp: ";
        let cases: &[(&str, &str)] = &[
            ("2018-01-02", "missing required time introducer 'T'"),
            ("2018-01-02T23:12:01", "end of string before UTC offset"),
            (
                "2018-13-02T23:12:01Z",
                "cannot use \"-02T23:12:01Z\" as month",
            ),
            ("2018-02-30T23:12:01Z", "day out of range"),
            (
                "2018-01-02T24:12:01Z",
                "hour must be between 0 and 23 inclusive",
            ),
            ("2018-01-02T2:12:01Z", "hour must have exactly two digits"),
            ("2018-01-02T23:1:01Z", "minute must have exactly two digits"),
            (
                "2018-01-02T23:12:01,123Z",
                "cannot use \",\" as timestamp segment",
            ),
            (
                "2018-01-02t23:12:01Z",
                "missing required time introducer 'T'",
            ),
            ("2018-01-02T23:12:01z", "cannot use \"z\" as UTC offset"),
            (
                "2018-01-02T23:12:01+25:00",
                "end of string before UTC offset",
            ),
            (
                "2018-01-02T23:12:01+05:60",
                "cannot use \"+05:60\" as UTC offset",
            ),
            (
                "2018-01-02T23:12:01+24:00",
                "cannot use \"+24:00\" as UTC offset",
            ),
            ("2018-01-02T23:12:60Z", "cannot use \"Z\" as second"),
            (
                "2018-1-02T23:12:01Z",
                "cannot use \"1-02T23:12:01Z\" as month",
            ),
            (
                "18-01-02T23:12:01Z",
                "cannot use \"18-01-02T23:12:01Z\" as year",
            ),
            (
                "2018/01/02T23:12:01Z",
                "found \"/01/02T23:12:01Z\" where \"-\" is expected",
            ),
            (
                "2018-01-02 23:12:01Z",
                "missing required time introducer 'T'",
            ),
            (
                "2018-01-02T23:12:01+0500",
                "cannot use \"+0500\" as UTC offset",
            ),
            ("", "end of string before year"),
            ("hello", "cannot use \"hello\" as year"),
            (
                "2018-01-02T23:12:01Zjunk",
                "cannot use \"junk\" as timestamp segment",
            ),
            (
                "2018-01-02T23.12:01Z",
                "found \".12:01Z\" where \":\" is expected",
            ),
        ];
        for (time, message) in cases {
            expect_error(
                "formatdate",
                &["YYYY", time],
                Some(1),
                &format!("{p}{message}"),
            );
        }
    }

    #[test]
    fn timeadd_matches_terraform() {
        let cases: &[(&str, &str, &str)] = &[
            ("2017-11-22T00:00:00Z", "10m", "2017-11-22T00:10:00Z"),
            ("2017-11-22T00:00:00Z", "-1h30m", "2017-11-21T22:30:00Z"),
            (
                "2017-11-22T00:00:00+05:30",
                "1.5h",
                "2017-11-22T01:30:00+05:30",
            ),
            ("2017-11-22T00:00:00.123456Z", "1ns", "2017-11-22T00:00:00Z"),
            ("2017-11-22T00:00:00Z", "1us", "2017-11-22T00:00:00Z"),
            ("2017-11-22T00:00:00Z", "1\u{b5}s", "2017-11-22T00:00:00Z"),
            ("2017-11-22T00:00:00Z", "1\u{3bc}s", "2017-11-22T00:00:00Z"),
            ("2017-11-22T00:00:00Z", "0", "2017-11-22T00:00:00Z"),
            ("2017-11-22T00:00:00Z", "+5s", "2017-11-22T00:00:05Z"),
            ("2017-11-22T00:00:00Z", ".5s", "2017-11-22T00:00:00Z"),
            ("2017-11-22T00:00:00Z", "5.s", "2017-11-22T00:00:05Z"),
            ("2017-11-22T00:00:00Z", "2562047h", "2310-03-03T23:00:00Z"),
            ("0001-01-01T00:00:00Z", "-1s", "0000-12-31T23:59:59Z"),
            ("9999-12-31T23:59:59Z", "1s", "10000-01-01T00:00:00Z"),
            ("2017-11-22T00:00:00.5Z", "0s", "2017-11-22T00:00:00Z"),
            (
                "2017-11-22T00:00:00Z",
                "1.0000000001s",
                "2017-11-22T00:00:01Z",
            ),
            (
                "2017-11-22T00:00:00Z",
                "0.9999999999s",
                "2017-11-22T00:00:00Z",
            ),
            (
                "2016-02-28T12:00:00-08:00",
                "24h",
                "2016-02-29T12:00:00-08:00",
            ),
        ];
        for (time, duration, want) in cases {
            expect("timeadd", &[time, duration], want);
        }
    }

    #[test]
    fn timeadd_errors_match_terraform() {
        let cases: &[(&str, &str, &str)] = &[
            (
                "2017-11-22T00:00:00Z",
                "1d",
                "time: unknown unit \"d\" in duration \"1d\"",
            ),
            ("2017-11-22T00:00:00Z", "", "time: invalid duration \"\""),
            (
                "2017-11-22T00:00:00Z",
                "10",
                "time: missing unit in duration \"10\"",
            ),
            ("2017-11-22T00:00:00Z", "-", "time: invalid duration \"-\""),
            (
                "2017-11-22T00:00:00Z",
                "9999999999h",
                "time: invalid duration \"9999999999h\"",
            ),
            (
                "2017-11-22T00:00:00Z",
                "1h-1m",
                "time: unknown unit \"h-\" in duration \"1h-1m\"",
            ),
            (
                "2017-11-22T00:00:00Z",
                "1H",
                "time: unknown unit \"H\" in duration \"1H\"",
            ),
            (
                "2017-11-22T00:00:00Z",
                "8760000h",
                "time: invalid duration \"8760000h\"",
            ),
            (
                "2017-11-22T00:00:00Z",
                "1é",
                "time: unknown unit \"\\xc3\\xa9\" in duration \"1\\xc3\\xa9\"",
            ),
            (
                "2017-11-22",
                "1s",
                "not a valid RFC3339 timestamp: missing required time introducer 'T'",
            ),
        ];
        for (time, duration, message) in cases {
            expect_error("timeadd", &[time, duration], None, message);
        }
    }

    #[test]
    fn timecmp_matches_terraform() {
        let cases: &[(&str, &str, i64)] = &[
            ("2017-11-22T00:00:00Z", "2017-11-22T00:00:00Z", 0),
            ("2017-11-22T00:00:00Z", "2017-11-22T01:00:00Z", -1),
            ("2017-11-22T01:00:00Z", "2017-11-22T00:00:00Z", 1),
            ("2017-11-22T01:00:00Z", "2017-11-22T00:00:00-01:00", 0),
            ("2017-11-22T00:00:00.5Z", "2017-11-22T00:00:00Z", 1),
            ("2017-11-22T2:00:00Z", "2017-11-22T00:00:00Z", 1),
            ("2017-11-22T00:00:00,5Z", "2017-11-22T00:00:00Z", 1),
            ("2017-11-22T00:00:00+24:00", "2017-11-22T00:00:00Z", -1),
        ];
        for (a, b, want) in cases {
            let got =
                call("timecmp", &[a, b]).unwrap_or_else(|e| panic!("timecmp({a}, {b}): {e:?}"));
            assert_eq!(
                got.as_number().and_then(|n| n.to_i64()),
                Some(*want),
                "timecmp({a}, {b})"
            );
        }
        let p = "not a valid RFC3339 timestamp: ";
        expect_error(
            "timecmp",
            &["2017-02-30T00:00:00Z", T],
            Some(0),
            &format!("{p}day out of range"),
        );
        expect_error(
            "timecmp",
            &[T, "2017-11-22"],
            Some(1),
            &format!("{p}missing required time introducer 'T'"),
        );
        expect_error(
            "timecmp",
            &["2017-11-22T24:00:00Z", T],
            Some(0),
            &format!("{p}cannot use \":00:00Z\" as hour"),
        );
        expect_error(
            "timecmp",
            &["2017-11-22T00:00:00+25:00", T],
            Some(0),
            &format!("{p}end of string before UTC offset"),
        );
        expect_error(
            "timecmp",
            &["x", T],
            Some(0),
            &format!("{p}cannot use \"x\" as year"),
        );
    }

    #[test]
    fn timestamp_uses_the_run_time() {
        for (now, want) in [
            ("2024-05-06T07:08:09Z", "2024-05-06T07:08:09Z"),
            ("2024-05-06T07:08:09.123456Z", "2024-05-06T07:08:09Z"),
            ("2024-05-06T09:08:09+02:00", "2024-05-06T07:08:09Z"),
            ("2024-05-06T00:30:00-01:00", "2024-05-06T01:30:00Z"),
        ] {
            let ctx = CallContext {
                now: Some(now),
                ..CallContext::default()
            };
            for name in ["timestamp", "plantimestamp"] {
                let got = call_with(&ctx, name, &[]).expect("timestamp");
                assert_eq!(got.as_str(), Some(want), "{name} with now={now}");
            }
        }
        let got = call("timestamp", &[]).expect("timestamp");
        let text = got.as_str().expect("string");
        assert!(
            parse_rfc3339_fast(text.as_bytes()).is_some(),
            "{text} is RFC 3339"
        );
        assert!(
            text.ends_with('Z') && text.len() == 20,
            "{text} is UTC with seconds precision"
        );
    }

    #[test]
    fn civil_dates_round_trip() {
        for days in [-719_528i64, -1, 0, 1, 10_957, 11_016, 2_932_896] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
    }
}
