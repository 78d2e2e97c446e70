//! `fileset`'s globbing, with the semantics of the `doublestar` (v1.1)
//! `Glob` Terraform 1.11 calls: the pattern is split into path components
//! first, a `**` component matches any number of directories (following
//! symbolic links), `*`, `?`, `[...]`, `[^...]` and `{a,b}` work within one
//! component, `\` escapes, and dot files are not special.
//!
//! Like doublestar, malformed parts of a pattern are only noticed when a
//! file name is actually compared with them, so `fileset("missing", "[")`
//! is an empty set while `fileset(".", "[")` is an error. (OpenTofu uses
//! doublestar v4, which validates first and allows `/` inside `{...}`.)

use super::go_join;
use std::path::PathBuf;

/// doublestar's `ErrBadPattern` (Go's `path.ErrBadPattern`).
#[derive(Debug, PartialEq)]
pub(super) struct BadPattern;

impl std::fmt::Display for BadPattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("syntax error in pattern")
    }
}

/// Index of the first `r` not preceded by a backslash.
fn index_unescaped(s: &str, r: char) -> Option<usize> {
    let mut start = 0;
    loop {
        let found = start + s[start..].find(r)?;
        if found > 0 && s.as_bytes()[found - 1] == b'\\' {
            start = found + r.len_utf8();
            continue;
        }
        return Some(found);
    }
}

/// Splits at unescaped separators, keeping an empty last part after a
/// trailing separator.
fn split_unescaped(s: &str, separator: char) -> Vec<String> {
    if !s.contains(separator) {
        return vec![s.to_string()];
    }
    let mut parts = Vec::new();
    let mut start = 0;
    let mut empty_end = false;
    while start < s.len() {
        match index_unescaped(&s[start..], separator) {
            Some(end) => {
                parts.push(s[start..start + end].to_string());
                start += end + separator.len_utf8();
                empty_end = true;
            }
            None => {
                parts.push(s[start..].to_string());
                start = s.len();
                empty_end = false;
            }
        }
    }
    if empty_end {
        parts.push(String::new());
    }
    parts
}

fn decode_rune(s: &[u8], i: usize) -> (Option<char>, usize) {
    let rest = &s[i..];
    let len = match rest.first() {
        None => return (None, 0),
        Some(b) if *b < 0x80 => 1,
        Some(b) if b & 0xE0 == 0xC0 => 2,
        Some(b) if b & 0xF0 == 0xE0 => 3,
        Some(_) => 4,
    };
    match rest
        .get(..len)
        .and_then(|bytes| std::str::from_utf8(bytes).ok())
    {
        Some(text) => (text.chars().next(), len),
        // Go decodes a broken sequence as one byte of U+FFFD.
        None => (Some('\u{fffd}'), 1),
    }
}

/// doublestar v1's `matchComponent`.
fn match_component(pattern: &str, name: &str) -> Result<bool, BadPattern> {
    let (p, n) = (pattern.as_bytes(), name.as_bytes());
    if p.is_empty() {
        return Ok(n.is_empty());
    }
    if n.is_empty() && pattern != "*" {
        return Ok(false);
    }
    let (mut pi, mut ni) = (0, 0);
    while pi < p.len() && ni < n.len() {
        let (pat_rune, pat_adj) = decode_rune(p, pi);
        let (name_rune, name_adj) = decode_rune(n, ni);
        match pat_rune {
            Some('\\') => {
                pi += pat_adj;
                let (escaped, escaped_adj) = decode_rune(p, pi);
                match escaped {
                    None => return Err(BadPattern),
                    Some(c) if Some(c) == name_rune => {
                        pi += escaped_adj;
                        ni += name_adj;
                    }
                    Some(_) => return Ok(false),
                }
            }
            Some('*') => {
                pi += pat_adj;
                if pi >= p.len() {
                    return Ok(true);
                }
                // doublestar steps by the width of the first character
                // here, and ignores errors from the attempts.
                let mut i = ni;
                while i < n.len() {
                    if let (Some(rest_pattern), Some(rest_name)) =
                        (pattern.get(pi..), name.get(i..))
                    {
                        if match_component(rest_pattern, rest_name) == Ok(true) {
                            return Ok(true);
                        }
                    }
                    i += name_adj;
                }
                return Ok(false);
            }
            Some('[') => {
                pi += pat_adj;
                let end = index_unescaped(&pattern[pi..], ']').ok_or(BadPattern)? + pi;
                let class: Vec<char> = pattern[pi..end].chars().collect();
                if class.is_empty() {
                    return Err(BadPattern);
                }
                let negate = class[0] == '^';
                let mut ci = usize::from(negate);
                let mut matched = false;
                while ci < class.len() {
                    let mut low = class[ci];
                    if low == '-' {
                        return Err(BadPattern);
                    }
                    ci += 1;
                    if low == '\\' {
                        low = *class.get(ci).ok_or(BadPattern)?;
                        ci += 1;
                    }
                    let mut high = low;
                    if class.get(ci) == Some(&'-') {
                        ci += 1;
                        high = *class.get(ci).ok_or(BadPattern)?;
                        if high == '-' {
                            return Err(BadPattern);
                        }
                        ci += 1;
                        if high == '\\' {
                            high = *class.get(ci).ok_or(BadPattern)?;
                            ci += 1;
                        }
                    }
                    if let Some(c) = name_rune {
                        if low <= c && c <= high {
                            matched = true;
                        }
                    }
                }
                if matched == negate {
                    return Ok(false);
                }
                pi = end + 1;
                ni += name_adj;
            }
            Some('{') => {
                pi += pat_adj;
                let end = index_unescaped(&pattern[pi..], '}').ok_or(BadPattern)? + pi;
                let options = split_unescaped(&pattern[pi..end], ',');
                let after = &pattern[end + 1..];
                let rest_name = name.get(ni..).unwrap_or("");
                for option in options {
                    if match_component(&format!("{option}{after}"), rest_name)? {
                        return Ok(true);
                    }
                }
                return Ok(false);
            }
            c if c == Some('?') || c == name_rune => {
                pi += pat_adj;
                ni += name_adj;
            }
            _ => return Ok(false),
        }
    }
    let rest = &pattern[pi.min(pattern.len())..];
    Ok((pi >= p.len() && ni >= n.len()) || (ni >= n.len() && rest == "*") || rest == "**")
}

struct Walker {
    /// Directories on the current `**` descent, to stop at symlink loops.
    stack: Vec<PathBuf>,
}

fn has_meta(component: &str) -> bool {
    component.contains(['*', '?', '[', '{', '\\'])
}

impl Walker {
    fn glob(
        &mut self,
        basedir: &str,
        components: &[String],
        matches: &mut Vec<String>,
    ) -> Result<(), BadPattern> {
        let pat_idx = components
            .iter()
            .position(|c| has_meta(c))
            .unwrap_or(components.len());
        let basedir = if pat_idx > 0 {
            let literal: Vec<&str> = components[..pat_idx].iter().map(String::as_str).collect();
            go_join(&[basedir, &go_join(&literal)])
        } else {
            basedir.to_string()
        };
        if std::fs::symlink_metadata(&basedir).is_err() {
            return Ok(());
        }
        if pat_idx >= components.len() {
            matches.push(basedir);
            return Ok(());
        }
        if !std::fs::metadata(&basedir).is_ok_and(|m| m.is_dir()) {
            return Ok(());
        }
        let Ok(read) = std::fs::read_dir(&basedir) else {
            return Ok(());
        };
        // (name, is a directory, is a link whose target is gone)
        let mut files: Vec<(String, bool, bool)> = read
            .filter_map(Result::ok)
            .map(|entry| {
                let name = entry.file_name().to_string_lossy().into_owned();
                match std::fs::metadata(entry.path()) {
                    Ok(metadata) => (name, metadata.is_dir(), false),
                    Err(_) => (name, false, true),
                }
            })
            .collect();
        files.sort();

        let mut pat_idx = pat_idx;
        let mut last = pat_idx + 1 >= components.len();
        if components[pat_idx] == "**" {
            let canonical =
                std::fs::canonicalize(&basedir).unwrap_or_else(|_| PathBuf::from(&basedir));
            if !self.stack.contains(&canonical) {
                self.stack.push(canonical);
                for (name, is_dir, broken) in &files {
                    // doublestar skips links it cannot follow here.
                    if *broken {
                        continue;
                    }
                    let child = go_join(&[&basedir, name]);
                    if *is_dir {
                        if last {
                            matches.push(child.clone());
                        }
                        // Errors deeper down are lost in doublestar too.
                        let _ = self.glob(&child, &components[pat_idx..], matches);
                    } else if last {
                        matches.push(child);
                    }
                }
                self.stack.pop();
            }
            if last {
                return Ok(());
            }
            pat_idx += 1;
            last = pat_idx + 1 >= components.len();
        }
        for (name, _, _) in &files {
            if match_component(&components[pat_idx], name)? {
                let child = go_join(&[&basedir, name]);
                if last {
                    matches.push(child);
                } else {
                    let _ = self.glob(&child, &components[pat_idx + 1..], matches);
                }
            }
        }
        Ok(())
    }
}

/// doublestar v1's `Glob(pattern)`: the existing paths that match.
pub(super) fn glob(pattern: &str) -> Result<Vec<String>, BadPattern> {
    let components = split_unescaped(pattern, '/');
    let mut walker = Walker { stack: Vec::new() };
    let mut matches = Vec::new();
    if components.first().is_some_and(String::is_empty) && components.len() > 1 {
        walker.glob("/", &components[1..], &mut matches)?;
    } else {
        walker.glob(".", &components, &mut matches)?;
    }
    Ok(matches)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn component_matching() {
        let cases: &[(&str, &str, Result<bool, BadPattern>)] = &[
            ("*.txt", "a.txt", Ok(true)),
            ("*.txt", ".hidden.txt", Ok(true)),
            ("*.txt", "a.tx", Ok(false)),
            ("?ello", "hello", Ok(true)),
            ("?ello", "ello", Ok(false)),
            ("[a-h]*", "hello", Ok(true)),
            ("[a-h]*", "zebra", Ok(false)),
            ("[^a-h]*", "zebra", Ok(true)),
            ("[^a-h]*", "hello", Ok(false)),
            ("\\*", "*", Ok(true)),
            ("\\*", "a", Ok(false)),
            ("a**b", "axyzb", Ok(true)),
            ("{hello,empty}.txt", "empty.txt", Ok(true)),
            ("{hello,empty}.txt", "other.txt", Ok(false)),
            ("a{,b}", "a", Ok(false)),
            ("ü*", "über", Ok(true)),
            ("[", "x", Err(BadPattern)),
            ("[]", "x", Err(BadPattern)),
            ("{a", "x", Err(BadPattern)),
            ("zz[", "hello", Ok(false)),
            ("*{a", "hello", Ok(false)),
            ("[a-]", "a", Err(BadPattern)),
        ];
        for (pattern, name, want) in cases {
            assert_eq!(match_component(pattern, name), *want, "{pattern} vs {name}");
        }
    }

    #[test]
    fn splitting_respects_escapes() {
        assert_eq!(split_unescaped("a/b\\/c/", '/'), vec!["a", "b\\/c", ""]);
        assert_eq!(split_unescaped("a,b\\,c", ','), vec!["a", "b\\,c"]);
        assert_eq!(split_unescaped("", ','), vec![""]);
    }
}
