//! Go's `net/url` query escaping: what `urlencode`/`urldecode` return, how
//! module sources, HTTP backend addresses and the login callback carry
//! their parameters, and how S3 lists keys.

use std::fmt;

/// Go's `url.QueryEscape`: ASCII letters, digits and `-_.~` as they are, a
/// space as `+`, every other byte as `%XX` in upper-case hex.
pub fn query_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(char::from(byte))
            }
            b' ' => out.push('+'),
            other => {
                const HEX: &[u8; 16] = b"0123456789ABCDEF";
                out.push('%');
                out.push(char::from(HEX[usize::from(other >> 4)]));
                out.push(char::from(HEX[usize::from(other & 0xf)]));
            }
        }
    }
    out
}

/// A `%` not followed by two hex digits: Go's `url.EscapeError`, holding
/// the escape as written (up to three bytes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidEscape {
    pub escape: String,
}

impl fmt::Display for InvalidEscape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid URL escape {}",
            crate::strconv::quote(&self.escape)
        )
    }
}

impl std::error::Error for InvalidEscape {}

/// Go's `url.QueryUnescape`: `+` is a space and `%XX` a byte; the bytes
/// become text as Go's decoders make them (invalid UTF-8 as U+FFFD per
/// byte).
pub fn query_unescape(text: &str) -> Result<String, InvalidEscape> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = |at: usize| bytes.get(at).and_then(|&c| char::from(c).to_digit(16));
                let (Some(high), Some(low)) = (hex(i + 1), hex(i + 2)) else {
                    let end = (i + 3).min(bytes.len());
                    return Err(InvalidEscape {
                        escape: String::from_utf8_lossy(&bytes[i..end]).into_owned(),
                    });
                };
                // Two hex digits make at most 0xff.
                out.push(u8::try_from(high * 16 + low).unwrap_or(u8::MAX));
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            other => {
                out.push(other);
                i += 1;
            }
        }
    }
    Ok(crate::json::lossy_utf8(&out))
}

/// `query_unescape` for text a tolerant reader takes as it comes (a login
/// callback's parameters, keys from an object listing): a `%` that does not
/// start a valid escape is kept as written and the rest still decoded.
pub fn query_unescape_lenient(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |at: usize| bytes.get(at).and_then(|&c| char::from(c).to_digit(16));
        match bytes[i] {
            b'%' => match (hex(i + 1), hex(i + 2)) {
                (Some(high), Some(low)) => {
                    out.push(u8::try_from(high * 16 + low).unwrap_or(u8::MAX));
                    i += 3;
                    continue;
                }
                _ => out.push(b'%'),
            },
            b'+' => out.push(b' '),
            other => out.push(other),
        }
        i += 1;
    }
    crate::json::lossy_utf8(&out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_as_go_query_escape() {
        assert_eq!(
            query_escape("a b&c=d/é~-_.*"),
            "a+b%26c%3Dd%2F%C3%A9~-_.%2A"
        );
        assert_eq!(query_escape(""), "");
    }

    #[test]
    fn unescapes_as_go_query_unescape() {
        assert_eq!(query_unescape("a+b%26c%3dd%2F%C3%A9").unwrap(), "a b&c=d/é");
        assert_eq!(query_unescape("%ff").unwrap(), "\u{FFFD}");
        for (bad, escape) in [("x%zz", "%zz"), ("x%4", "%4"), ("%", "%")] {
            let err = query_unescape(bad).unwrap_err();
            assert_eq!(err.escape, escape);
        }
        assert_eq!(
            query_unescape("%g1").unwrap_err().to_string(),
            r#"invalid URL escape "%g1""#
        );
        assert_eq!(query_unescape_lenient("a+b%2"), "a b%2");
        assert_eq!(query_unescape_lenient("%zz%41+%4"), "%zzA %4");
    }
}
