//! The first layer of version and constraint parsing: a greedy tokenizer
//! for `OP SEP NUM(.NUM)* (-PRE)? (+META)?` that stops at the first byte it
//! cannot take and hands back the rest. It follows the state machine of
//! apparentlymart/go-versions (v1.0.3, the version OpenTofu uses), including
//! what it records when it stops early, because the parsers above it build
//! their error messages from those partial results: an operator run that is
//! cut short also counts as the separator (`">=abc"` has separator `">="`),
//! and a trailing `.` or `-` with nothing after it is silently dropped.

/// The pieces of one scanned constraint. Numbers beyond the third are
/// counted but not kept.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct RawConstraint<'a> {
    pub op: &'a str,
    pub sep: &'a str,
    pub nums: [&'a str; 3],
    pub num_count: usize,
    pub pre: &'a str,
    pub meta: &'a str,
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

fn is_op_byte(b: u8) -> bool {
    !(b.is_ascii_digit() || is_space(b) || b.is_ascii_alphabetic() || b == b'.' || b == b'*')
}

fn is_sep_byte(b: u8) -> bool {
    is_space(b) || b == b'v'
}

fn is_wildcard_byte(b: u8) -> bool {
    matches!(b, b'*' | b'x' | b'X')
}

fn is_extra_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'.' || b == b'-'
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// Nothing consumed yet.
    Start,
    /// Inside the operator run.
    Op,
    /// Inside the separator run.
    Sep,
    /// Inside a run of digits.
    Digits,
    /// Just after a one-character wildcard number.
    Wildcard,
    /// Just after a `.` between numbers.
    Dot,
    /// Just after the `-` that opens a prerelease.
    PreStart,
    /// Inside the prerelease.
    Pre,
    /// Just after the `+` that opens build metadata.
    MetaStart,
    /// Inside the build metadata.
    Meta,
}

/// Scans one constraint from the start of `data`, returning it and the
/// unconsumed remainder (empty when everything was taken).
pub(crate) fn scan_constraint<'a>(data: &'a str) -> (RawConstraint<'a>, &'a str) {
    let b = data.as_bytes();
    let mut raw = RawConstraint::default();
    // Where the token being read started; like the generated scanner, a
    // token that ends without ever having started reuses the last start.
    let mut ts = 0usize;
    let mut state = State::Start;
    let mut p = 0usize;

    let finish_num = |raw: &mut RawConstraint<'a>, ts: usize, p: usize| {
        if raw.num_count < 3 {
            raw.nums[raw.num_count] = &data[ts..p];
        }
        raw.num_count += 1;
    };

    while p < b.len() {
        let c = b[p];
        let next = match state {
            State::Start | State::Op | State::Sep => {
                if state != State::Sep && is_op_byte(c) {
                    if state == State::Start {
                        ts = p;
                    }
                    Some(State::Op)
                } else if is_sep_byte(c) {
                    if state != State::Sep {
                        raw.op = &data[if state == State::Start { p } else { ts }..p];
                        ts = p;
                    }
                    Some(State::Sep)
                } else if c.is_ascii_digit() || is_wildcard_byte(c) {
                    match state {
                        State::Start => raw.op = "",
                        State::Op => raw.op = &data[ts..p],
                        _ => {}
                    }
                    raw.sep = match state {
                        State::Sep => &data[ts..p],
                        _ => "",
                    };
                    ts = p;
                    Some(if c.is_ascii_digit() {
                        State::Digits
                    } else {
                        State::Wildcard
                    })
                } else {
                    None
                }
            }
            State::Digits | State::Wildcard => {
                if state == State::Digits && c.is_ascii_digit() {
                    Some(State::Digits)
                } else if c == b'.' {
                    finish_num(&mut raw, ts, p);
                    Some(State::Dot)
                } else if c == b'-' {
                    finish_num(&mut raw, ts, p);
                    ts = p;
                    Some(State::PreStart)
                } else if c == b'+' {
                    finish_num(&mut raw, ts, p);
                    ts = p;
                    Some(State::MetaStart)
                } else {
                    None
                }
            }
            State::Dot => {
                if c.is_ascii_digit() || is_wildcard_byte(c) {
                    ts = p;
                    Some(if c.is_ascii_digit() {
                        State::Digits
                    } else {
                        State::Wildcard
                    })
                } else {
                    None
                }
            }
            State::PreStart | State::Pre => {
                if is_extra_byte(c) {
                    Some(State::Pre)
                } else if c == b'+' && state == State::Pre {
                    raw.pre = &data[ts + 1..p];
                    ts = p;
                    Some(State::MetaStart)
                } else {
                    None
                }
            }
            State::MetaStart | State::Meta => {
                if is_extra_byte(c) {
                    Some(State::Meta)
                } else {
                    None
                }
            }
        };
        match next {
            Some(s) => {
                state = s;
                p += 1;
            }
            None => break,
        }
    }

    // Stopped, at the end of the input or at a byte that fits nowhere:
    // record whatever token the current state leaves complete.
    match state {
        State::Start | State::Op => {
            // The operator and separator runs both end here, and neither
            // separator ever started, so both take the operator's text.
            let text = if state == State::Start {
                ""
            } else {
                &data[ts..p]
            };
            raw.op = text;
            raw.sep = text;
        }
        State::Sep => raw.sep = &data[ts..p],
        State::Digits | State::Wildcard => finish_num(&mut raw, ts, p),
        State::Pre => raw.pre = &data[ts + 1..p],
        State::Meta => raw.meta = &data[ts + 1..p],
        State::Dot | State::PreStart | State::MetaStart => {}
    }
    (raw, &data[p..])
}

/// Go's `strings.TrimSpace` (Unicode white space, as Rust's `trim`).
pub(crate) fn trim_space(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace())
}

pub(crate) fn is_wildcard_num(s: &str) -> bool {
    matches!(s, "*" | "x" | "X")
}

pub(crate) const NUM_NAMES: [&str; 3] = ["major", "minor", "patch"];

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(
        op: &'static str,
        sep: &'static str,
        nums: [&'static str; 3],
        num_count: usize,
        pre: &'static str,
        meta: &'static str,
    ) -> RawConstraint<'static> {
        RawConstraint {
            op,
            sep,
            nums,
            num_count,
            pre,
            meta,
        }
    }

    #[test]
    fn scans_the_parts_and_the_rest() {
        let cases: Vec<(&str, RawConstraint, &str)> = vec![
            ("1.2.3", raw("", "", ["1", "2", "3"], 3, "", ""), ""),
            (">= 1.2", raw(">=", " ", ["1", "2", ""], 2, "", ""), ""),
            ("~>1", raw("~>", "", ["1", "", ""], 1, "", ""), ""),
            (
                "1.0.0-beta.1+b.2",
                raw("", "", ["1", "0", "0"], 3, "beta.1", "b.2"),
                "",
            ),
            ("1.0+m", raw("", "", ["1", "0", ""], 2, "", "m"), ""),
            ("1.2.3.4", raw("", "", ["1", "2", "3"], 4, "", ""), ""),
            ("1.x", raw("", "", ["1", "x", ""], 2, "", ""), ""),
            ("v1.0", raw("", "v", ["1", "0", ""], 2, "", ""), ""),
            // Stops, keeping what was complete.
            ("1.0, 2.0", raw("", "", ["1", "0", ""], 2, "", ""), ", 2.0"),
            ("1.0 2", raw("", "", ["1", "0", ""], 2, "", ""), " 2"),
            ("abc", raw("", "", ["", "", ""], 0, "", ""), "abc"),
            (">=abc", raw(">=", ">=", ["", "", ""], 0, "", ""), "abc"),
            (">=", raw(">=", ">=", ["", "", ""], 0, "", ""), ""),
            (">= abc", raw(">=", " ", ["", "", ""], 0, "", ""), "abc"),
            // A dangling `.`, `-` or `+` is dropped.
            ("1.", raw("", "", ["1", "", ""], 1, "", ""), ""),
            ("1.0-", raw("", "", ["1", "0", ""], 2, "", ""), ""),
            ("1.0-+", raw("", "", ["1", "0", ""], 2, "", ""), "+"),
            ("1.0-a+", raw("", "", ["1", "0", ""], 2, "a", ""), ""),
            ("1.0-a_b", raw("", "", ["1", "0", ""], 2, "a", ""), "_b"),
            ("1x", raw("", "", ["1", "", ""], 1, "", ""), "x"),
            ("é1", raw("\u{e9}", "", ["1", "", ""], 1, "", ""), ""),
            ("é", raw("\u{e9}", "\u{e9}", ["", "", ""], 0, "", ""), ""),
        ];
        for (input, want, rest) in cases {
            let (got, got_rest) = scan_constraint(input);
            assert_eq!((got, got_rest), (want, rest), "{input:?}");
        }
    }
}
