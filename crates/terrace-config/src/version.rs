//! Versions and version constraints with the syntax and matching rules of
//! HashiCorp's `go-version`, which OpenTofu and Terraform use for
//! `required_version`, provider `version` constraints and module versions:
//! `1.2`, `v1.2.3-beta.1+meta`; constraints `>= 1.0, < 2.0`, `~> 1.2`,
//! `!= 1.3.1`.

use std::cmp::Ordering;
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version {
    /// At least three segments (missing ones are zero).
    segments: Vec<i64>,
    /// How many segments were written (`~>` looks at this).
    written_segments: usize,
    prerelease: String,
    metadata: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VersionError(pub String);

impl fmt::Display for VersionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-' || c == b'~'
}

impl Version {
    pub fn parse(text: &str) -> Result<Version, VersionError> {
        let malformed = || VersionError(format!("malformed version: {text}"));
        let b = text.as_bytes();
        let mut i = 0;
        if b.first() == Some(&b'v') {
            i += 1;
        }
        let mut segments = Vec::new();
        loop {
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if i == start {
                return Err(malformed());
            }
            let digits = &text[start..i];
            let value: i64 = digits.parse().map_err(|_| {
                VersionError(format!(
                    "error parsing version: strconv.ParseInt: parsing \"{digits}\": value out of range"
                ))
            })?;
            segments.push(value);
            if i + 1 < b.len() && b[i] == b'.' && b[i + 1].is_ascii_digit() {
                i += 1;
                continue;
            }
            break;
        }
        let mut prerelease = String::new();
        let pre_start = i;
        let dotted_tail = |i: &mut usize| -> bool {
            while *i < b.len() && b[*i] == b'.' {
                let s = *i + 1;
                let mut j = s;
                while j < b.len() && is_ident_char(b[j]) {
                    j += 1;
                }
                if j == s {
                    return false;
                }
                *i = j;
            }
            true
        };
        if i < b.len() && b[i] == b'-' && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
            i += 1;
            while i < b.len() && is_ident_char(b[i]) {
                i += 1;
            }
            if !dotted_tail(&mut i) {
                return Err(malformed());
            }
            prerelease = text[pre_start + 1..i].to_string();
        } else if i < b.len() && b[i] != b'+' {
            let mut s = i;
            if b[i] == b'-'
                && b.get(i + 1)
                    .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'-' || *c == b'~')
            {
                s = i + 1;
            }
            let mut j = s;
            if j < b.len() && (b[j].is_ascii_alphabetic() || b[j] == b'-' || b[j] == b'~') {
                j += 1;
                while j < b.len() && is_ident_char(b[j]) {
                    j += 1;
                }
                i = j;
                if !dotted_tail(&mut i) {
                    return Err(malformed());
                }
                prerelease = text[s..i].to_string();
            } else {
                return Err(malformed());
            }
        }
        let mut metadata = String::new();
        if i < b.len() && b[i] == b'+' {
            let s = i + 1;
            let mut j = s;
            while j < b.len() && is_ident_char(b[j]) {
                j += 1;
            }
            if j == s {
                return Err(malformed());
            }
            i = j;
            if !dotted_tail(&mut i) {
                return Err(malformed());
            }
            metadata = text[s..i].to_string();
        }
        if i != b.len() {
            return Err(malformed());
        }
        let written_segments = segments.len();
        while segments.len() < 3 {
            segments.push(0);
        }
        Ok(Version {
            segments,
            written_segments,
            prerelease,
            metadata,
        })
    }

    pub fn prerelease(&self) -> &str {
        &self.prerelease
    }

    pub fn segments(&self) -> &[i64] {
        &self.segments
    }

    fn equal_segments(&self, other: &Version) -> bool {
        self.segments == other.segments
    }

    pub fn compare(&self, other: &Version) -> Ordering {
        if self.to_string() == other.to_string() {
            return Ordering::Equal;
        }
        if self.equal_segments(other) {
            return match (self.prerelease.is_empty(), other.prerelease.is_empty()) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                (false, false) => compare_prereleases(&self.prerelease, &other.prerelease),
            };
        }
        let (a, b) = (&self.segments, &other.segments);
        for i in 0..a.len().max(b.len()) {
            match (a.get(i), b.get(i)) {
                (Some(x), Some(y)) => match x.cmp(y) {
                    Ordering::Equal => continue,
                    o => return o,
                },
                (None, Some(_)) => {
                    return if b[i..].iter().all(|s| *s == 0) {
                        Ordering::Equal
                    } else {
                        Ordering::Less
                    }
                }
                (Some(_), None) => {
                    return if a[i..].iter().all(|s| *s == 0) {
                        Ordering::Equal
                    } else {
                        Ordering::Greater
                    }
                }
                (None, None) => break,
            }
        }
        Ordering::Equal
    }
}

fn compare_part(a: &str, b: &str) -> Ordering {
    if a == b {
        return Ordering::Equal;
    }
    let an = a.parse::<i64>().ok();
    let bn = b.parse::<i64>().ok();
    if a.is_empty() {
        return if bn.is_some() {
            Ordering::Less
        } else {
            Ordering::Greater
        };
    }
    if b.is_empty() {
        return if an.is_some() {
            Ordering::Greater
        } else {
            Ordering::Less
        };
    }
    match (an, bn) {
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) if a > b => Ordering::Greater,
        (Some(x), Some(y)) if x > y => Ordering::Greater,
        _ => Ordering::Less,
    }
}

fn compare_prereleases(a: &str, b: &str) -> Ordering {
    if a == b {
        return Ordering::Equal;
    }
    let ap: Vec<&str> = a.split('.').collect();
    let bp: Vec<&str> = b.split('.').collect();
    for i in 0..ap.len().max(bp.len()) {
        let o = compare_part(
            ap.get(i).copied().unwrap_or(""),
            bp.get(i).copied().unwrap_or(""),
        );
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let segments: Vec<String> = self.segments.iter().map(i64::to_string).collect();
        f.write_str(&segments.join("."))?;
        if !self.prerelease.is_empty() {
            write!(f, "-{}", self.prerelease)?;
        }
        if !self.metadata.is_empty() {
            write!(f, "+{}", self.metadata)?;
        }
        Ok(())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Operator {
    Equal,
    NotEqual,
    Greater,
    Less,
    GreaterOrEqual,
    LessOrEqual,
    Pessimistic,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Constraint {
    op: Operator,
    version: Version,
    original: String,
}

/// A comma-separated list of constraints, all of which must hold.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Constraints(Vec<Constraint>);

impl Constraints {
    pub fn parse(text: &str) -> Result<Constraints, VersionError> {
        text.split(',')
            .map(Constraint::parse)
            .collect::<Result<Vec<_>, _>>()
            .map(Constraints)
    }

    pub fn check(&self, v: &Version) -> bool {
        self.0.iter().all(|c| c.check(v))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Constraint> {
        self.0.iter()
    }
}

impl fmt::Display for Constraints {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<&str> = self.0.iter().map(|c| c.original.as_str()).collect();
        f.write_str(&parts.join(","))
    }
}

impl Constraint {
    fn parse(text: &str) -> Result<Constraint, VersionError> {
        let malformed = || VersionError(format!("Malformed constraint: {text}"));
        let trimmed = text.trim_start();
        let (op, rest) = [
            (">=", Operator::GreaterOrEqual),
            ("<=", Operator::LessOrEqual),
            ("!=", Operator::NotEqual),
            ("~>", Operator::Pessimistic),
            (">", Operator::Greater),
            ("<", Operator::Less),
            ("=", Operator::Equal),
        ]
        .iter()
        .find_map(|(s, op)| trimmed.strip_prefix(s).map(|r| (*op, r)))
        .unwrap_or((Operator::Equal, trimmed));
        let version_text = rest.trim();
        if version_text.is_empty() || version_text.contains(char::is_whitespace) {
            return Err(malformed());
        }
        let version = Version::parse(version_text).map_err(|_| malformed())?;
        Ok(Constraint {
            op,
            version,
            original: text.to_string(),
        })
    }

    pub fn is_prerelease(&self) -> bool {
        !self.version.prerelease.is_empty()
    }

    pub fn version(&self) -> &Version {
        &self.version
    }

    pub fn check(&self, v: &Version) -> bool {
        let c = &self.version;
        match self.op {
            Operator::Equal => v.compare(c) == Ordering::Equal,
            Operator::NotEqual => v.compare(c) != Ordering::Equal,
            Operator::Greater => prerelease_check(v, c) && v.compare(c) == Ordering::Greater,
            Operator::Less => prerelease_check(v, c) && v.compare(c) == Ordering::Less,
            Operator::GreaterOrEqual => prerelease_check(v, c) && v.compare(c) != Ordering::Less,
            Operator::LessOrEqual => prerelease_check(v, c) && v.compare(c) != Ordering::Greater,
            Operator::Pessimistic => {
                if !prerelease_check(v, c) || (!c.prerelease.is_empty() && v.prerelease.is_empty())
                {
                    return false;
                }
                if v.compare(c) == Ordering::Less {
                    return false;
                }
                let cs = c.segments.len();
                if cs > v.segments.len() {
                    return false;
                }
                for i in 0..c.written_segments.saturating_sub(1) {
                    if v.segments[i] != c.segments[i] {
                        return false;
                    }
                }
                c.segments[cs - 1] <= v.segments[cs - 1]
            }
        }
    }
}

impl fmt::Display for Constraint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.original)
    }
}

fn prerelease_check(v: &Version, c: &Version) -> bool {
    match (!v.prerelease.is_empty(), !c.prerelease.is_empty()) {
        (true, true) => v.equal_segments(c),
        (true, false) => false,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Version {
        Version::parse(s).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn parses_versions() {
        for (text, shown) in [
            ("1", "1.0.0"),
            ("v1.2", "1.2.0"),
            ("1.2.3-beta.1+meta", "1.2.3-beta.1+meta"),
            ("1.0beta", "1.0.0-beta"),
            ("1.2.3-1", "1.2.3-1"),
            ("1.2.3.4", "1.2.3.4"),
        ] {
            assert_eq!(v(text).to_string(), shown, "{text}");
        }
        for bad in ["", "a", "1.", "1..2", "1.2.beta", "1.2+", "1.2 "] {
            assert!(Version::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn checks_constraints() {
        let cases = [
            (">= 1.0, < 2.0", "1.5.0", true),
            (">= 1.0, < 2.0", "2.0.0", false),
            ("~> 1.2", "1.9.0", true),
            ("~> 1.2", "2.0.0", false),
            ("~> 1.2.3", "1.2.9", true),
            ("~> 1.2.3", "1.3.0", false),
            ("1.0.0", "1.0", true),
            ("!= 1.0", "1.0.1", true),
            (">= 1.0", "1.1.0-beta", false),
            (">= 1.1.0-alpha", "1.1.0-beta", true),
            ("999.9", "1.13.0", false),
            (">= 1.11", "1.11.0", true),
        ];
        for (c, ver, want) in cases {
            let cs = Constraints::parse(c).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(cs.check(&v(ver)), want, "{c} {ver}");
        }
        for bad in ["", ">=", "1.0 2.0", "> = 1", "banana"] {
            assert!(Constraints::parse(bad).is_err(), "{bad}");
        }
        assert!(Constraints::parse(">= 1.0-beta")
            .is_ok_and(|c| c.iter().any(Constraint::is_prerelease)));
    }
}
