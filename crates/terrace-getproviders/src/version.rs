//! Provider version numbers as apparentlymart/go-versions reads, orders and
//! prints them (the library Terraform and OpenTofu use for providers; module
//! versions use hashicorp/go-version instead, in terrace-config).
//!
//! Parsing accepts `1`, `1.2` and `1.2.3` with optional `-prerelease` and
//! `+metadata` and rejects everything else with the library's messages.
//! Ordering is semver precedence with one quirk kept on purpose: a
//! prerelease with fewer dot-separated parts sorts first, whatever the
//! parts say (`1.0.0-beta` < `1.0.0-alpha.1`), because Terraform sorts and
//! selects that way and lock files record the result.

use crate::scan::{is_wildcard_num, scan_constraint, trim_space, NUM_NAMES};
use std::cmp::Ordering;
use std::fmt;
use terrace_value::gostr::quote;

/// One version. Equality is exact, build metadata included (as Go's `==`
/// on go-versions' `Version`); [`Version::same`] ignores metadata.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
    pub prerelease: String,
    pub metadata: String,
}

/// Why a version string was refused; the text is go-versions'.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VersionParseError(pub String);

impl fmt::Display for VersionParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for VersionParseError {}

impl Version {
    pub fn new(major: u64, minor: u64, patch: u64) -> Version {
        Version {
            major,
            minor,
            patch,
            prerelease: String::new(),
            metadata: String::new(),
        }
    }

    /// go-versions' `ParseVersion`: one exact version, missing minor and
    /// patch numbers meaning zero.
    pub fn parse(text: &str) -> Result<Version, VersionParseError> {
        let err = |m: String| Err(VersionParseError(m));
        if trim_space(text).is_empty() {
            return err("empty specification".into());
        }
        let (raw, remain) = scan_constraint(text);
        match trim_space(raw.op) {
            ">" | ">=" | "<" | "<=" | "!" | "!=" | "~>" | "^" | "~" => {
                return err(format!(
                    "can't use constraint operator {}; an exact version is required",
                    quote(raw.op)
                ));
            }
            "" => {
                if !raw.sep.is_empty() {
                    if raw.sep.contains('v') {
                        return err(r#"a "v" prefix should not be used"#.into());
                    }
                    return err("extraneous spaces at start of specification".into());
                }
            }
            _ => {
                return err(format!(
                    "invalid sequence {} at start of specification",
                    quote(raw.op)
                ));
            }
        }
        if !remain.is_empty() {
            let remain = trim_space(remain);
            return err(if remain.is_empty() {
                "extraneous spaces at end of specification".into()
            } else if text.starts_with('v') {
                r#"a "v" prefix should not be used"#.into()
            } else if remain.starts_with(',') || remain.starts_with('|') {
                "can't specify multiple versions; a single exact version is required".into()
            } else if remain.starts_with('-') {
                "can't specify version range; a single exact version is required".into()
            } else if trim_space(text).starts_with(remain) {
                "invalid specification; required format is three positive integers separated by periods".into()
            } else {
                format!("invalid characters {}", quote(remain))
            });
        }
        if raw.num_count > 3 {
            return err(
                "too many numbered portions; only three are allowed (major, minor, patch)".into(),
            );
        }
        let mut nums = raw.nums;
        for n in nums.iter_mut().skip(raw.num_count) {
            *n = "0";
        }
        for (i, n) in nums.iter().enumerate() {
            if is_wildcard_num(n) {
                return err(format!(
                    "can't use wildcard for {} number; an exact version is required",
                    NUM_NAMES[i]
                ));
            }
        }
        Ok(Version {
            major: parse_num(nums[0])?,
            minor: parse_num(nums[1])?,
            patch: parse_num(nums[2])?,
            prerelease: raw.pre.to_string(),
            metadata: raw.meta.to_string(),
        })
    }

    /// The zero version, which go-versions also uses for "no version": no
    /// constraint set other than "anything" contains it.
    pub fn is_unspecified(&self) -> bool {
        *self == Version::default()
    }

    pub fn is_prerelease(&self) -> bool {
        !self.prerelease.is_empty()
    }

    /// Same precedence: equal apart from build metadata.
    pub fn same(&self, other: &Version) -> bool {
        self.major == other.major
            && self.minor == other.minor
            && self.patch == other.patch
            && self.prerelease == other.prerelease
    }

    pub fn less_than(&self, other: &Version) -> bool {
        match self.numbers_cmp(other) {
            Ordering::Less => true,
            Ordering::Greater => false,
            Ordering::Equal if self.prerelease == other.prerelease => false,
            Ordering::Equal if self.prerelease.is_empty() => false,
            Ordering::Equal if other.prerelease.is_empty() => true,
            Ordering::Equal => extra_less_than(&self.prerelease, &other.prerelease),
        }
    }

    pub fn greater_than(&self, other: &Version) -> bool {
        match self.numbers_cmp(other) {
            Ordering::Greater => true,
            Ordering::Less => false,
            Ordering::Equal if self.prerelease == other.prerelease => false,
            Ordering::Equal if self.prerelease.is_empty() => true,
            Ordering::Equal if other.prerelease.is_empty() => false,
            Ordering::Equal => !extra_less_than(&self.prerelease, &other.prerelease),
        }
    }

    /// Precedence as an ordering (`Equal` for versions that differ only in
    /// build metadata), for sorting.
    pub fn precedence_cmp(&self, other: &Version) -> Ordering {
        if self.less_than(other) {
            Ordering::Less
        } else if other.less_than(self) {
            Ordering::Greater
        } else {
            Ordering::Equal
        }
    }

    fn numbers_cmp(&self, other: &Version) -> Ordering {
        (self.major, self.minor, self.patch).cmp(&(other.major, other.minor, other.patch))
    }
}

/// Sorts oldest first, keeping the order of versions of equal precedence
/// (go-versions' `List.Sort`, a stable sort).
pub fn sort_versions(list: &mut [Version]) {
    list.sort_by(|a, b| a.precedence_cmp(b));
}

pub(crate) fn parse_num(s: &str) -> Result<u64, VersionParseError> {
    s.parse().map_err(|_| {
        VersionParseError(format!(
            "strconv.ParseUint: parsing {}: value out of range",
            quote(s)
        ))
    })
}

/// go-versions' `VersionExtra.LessThan` for prerelease (and, for display
/// order only, metadata) strings, quirk included: when one string has
/// fewer dot-separated parts than the other, it is the lesser once the
/// shorter one runs out of parts to compare, so the comparison is decided
/// by the part count before the last part is looked at.
pub(crate) fn extra_less_than(a: &str, b: &str) -> bool {
    if a == b {
        return false;
    }
    let (mut s1, mut s2) = (a, b);
    loop {
        match (s1.find('.'), s2.find('.')) {
            (None, Some(_)) => return true,
            (Some(_), None) => return false,
            (None, None) => return part_less_than(s1, s2),
            (Some(d1), Some(d2)) => {
                if s1[..d1] != s2[..d2] {
                    return part_less_than(&s1[..d1], &s2[..d2]);
                }
                s1 = &s1[d1 + 1..];
                s2 = &s2[d2 + 1..];
            }
        }
    }
}

fn part_less_than(a: &str, b: &str) -> bool {
    let numeric = |s: &str| s.bytes().all(|c| c.is_ascii_digit());
    match (numeric(a), numeric(b)) {
        (true, false) => true,
        (false, true) => false,
        (true, true) => (a.len(), a) < (b.len(), b),
        (false, false) => a < b,
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        if !self.prerelease.is_empty() {
            write!(f, "-{}", self.prerelease)?;
        }
        if !self.metadata.is_empty() {
            write!(f, "+{}", self.metadata)?;
        }
        Ok(())
    }
}

impl std::str::FromStr for Version {
    type Err = VersionParseError;
    fn from_str(s: &str) -> Result<Version, VersionParseError> {
        Version::parse(s)
    }
}

/// Shared with the constraint parser: the boundary numbers of a raw
/// constraint, absent or wildcard ones unconstrained.
pub(crate) fn raw_num(s: &str) -> Result<Option<u64>, VersionParseError> {
    if s.is_empty() || is_wildcard_num(s) {
        Ok(None)
    } else {
        parse_num(s).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Version {
        match Version::parse(s) {
            Ok(v) => v,
            Err(e) => panic!("{s}: {e}"),
        }
    }

    #[test]
    fn parses_and_prints() {
        for (input, want) in [
            ("1.0.0", "1.0.0"),
            ("1.0", "1.0.0"),
            ("1", "1.0.0"),
            ("01.02.03", "1.2.3"),
            ("1.0.0-beta.1+b.5", "1.0.0-beta.1+b.5"),
            ("1.0-2.0", "1.0.0-2.0"),
            ("1.0-", "1.0.0"),
            ("1.0.0+", "1.0.0"),
            ("18446744073709551615.1.2", "18446744073709551615.1.2"),
        ] {
            assert_eq!(v(input).to_string(), want, "{input}");
        }
    }

    #[test]
    fn parse_errors_are_go_versions_texts() {
        // Recorded from Terraform's lock file reader, which reports
        // go-versions' messages verbatim.
        for (input, want) in [
            ("", "empty specification"),
            ("  ", "empty specification"),
            ("v1.0.0", r#"a "v" prefix should not be used"#),
            ("v 1.0", r#"a "v" prefix should not be used"#),
            (" 1.0.0", "extraneous spaces at start of specification"),
            ("\t1.0", "extraneous spaces at start of specification"),
            ("1.0.0 ", "extraneous spaces at end of specification"),
            (">= 1.0", r#"can't use constraint operator ">="; an exact version is required"#),
            ("~1", r#"can't use constraint operator "~"; an exact version is required"#),
            ("!= 1", r#"can't use constraint operator "!="; an exact version is required"#),
            ("=1.0", r#"invalid sequence "=" at start of specification"#),
            ("==1", r#"invalid sequence "==" at start of specification"#),
            ("#1", r##"invalid sequence "#" at start of specification"##),
            ("-", r#"invalid sequence "-" at start of specification"#),
            ("1.0, 2.0", "can't specify multiple versions; a single exact version is required"),
            ("1.0.0,", "can't specify multiple versions; a single exact version is required"),
            ("1.0 - 2.0", "can't specify version range; a single exact version is required"),
            ("abc", "invalid specification; required format is three positive integers separated by periods"),
            (".1.0", "invalid specification; required format is three positive integers separated by periods"),
            ("1..0", r#"invalid characters ".0""#),
            ("1.0.0-béta", r#"invalid characters "éta""#),
            ("x1.0", r#"invalid characters "1.0""#),
            ("1.0x", r#"invalid characters "x""#),
            ("1.0.0.0", "too many numbered portions; only three are allowed (major, minor, patch)"),
            ("1.x", "can't use wildcard for minor number; an exact version is required"),
            ("*", "can't use wildcard for major number; an exact version is required"),
            ("x", "can't use wildcard for major number; an exact version is required"),
            (
                "18446744073709551616",
                r#"strconv.ParseUint: parsing "18446744073709551616": value out of range"#,
            ),
        ] {
            assert_eq!(
                Version::parse(input),
                Err(VersionParseError(want.into())),
                "{input:?}"
            );
        }
    }

    #[test]
    fn precedence() {
        // Each version is older than the next.
        let ordered = [
            "0.0.1",
            "1.0.0-1",
            "1.0.0-2",
            "1.0.0-10",
            "1.0.0-alpha",
            "1.0.0-beta",
            // Fewer parts first, whatever they say.
            "1.0.0-alpha.1",
            "1.0.0-alpha.beta",
            "1.0.0-beta.2",
            "1.0.0-beta.11",
            "1.0.0-rc.1",
            "1.0.0",
            "1.0.1",
            "1.2.0",
            "10.0.0",
        ];
        for pair in ordered.windows(2) {
            let (a, b) = (v(pair[0]), v(pair[1]));
            assert!(a.less_than(&b), "{a} < {b}");
            assert!(!b.less_than(&a), "!({b} < {a})");
            assert!(b.greater_than(&a), "{b} > {a}");
            assert!(!a.greater_than(&b), "!({a} > {b})");
        }
        let (a, b) = (v("1.0.0+a"), v("1.0.0+b"));
        assert!(a.same(&b) && a != b);
        assert!(!a.less_than(&b) && !a.greater_than(&b));
        assert_eq!(a.precedence_cmp(&b), Ordering::Equal);
    }

    #[test]
    fn sorting_is_stable_for_metadata() {
        let mut list: Vec<Version> = ["2.0.0", "1.0.0+b", "1.0.0-rc1", "1.0.0+a"]
            .iter()
            .map(|s| v(s))
            .collect();
        sort_versions(&mut list);
        let got: Vec<String> = list.iter().map(|v| v.to_string()).collect();
        assert_eq!(got, ["1.0.0-rc1", "1.0.0+b", "1.0.0+a", "2.0.0"]);
    }

    #[test]
    fn unspecified() {
        assert!(v("0.0.0").is_unspecified());
        assert!(!v("0.0.0+x").is_unspecified());
        assert!(!v("0.0.1").is_unspecified());
    }
}
