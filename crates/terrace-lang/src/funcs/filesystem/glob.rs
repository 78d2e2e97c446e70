//! `fileset`'s globbing, with the semantics of `doublestar.FilepathGlob`
//! (v4) as Terraform calls it: the pattern is cleaned, split into a literal
//! base directory and a pattern, `**` matches any number of directories
//! (following symbolic links), `*`, `?`, `[...]` and `{a,b}` work per path
//! component, `\` escapes, and dot files are not special.

use super::{go_clean, go_join};
use std::collections::BTreeSet;
use std::path::PathBuf;

/// doublestar's `ErrBadPattern`.
#[derive(Debug, PartialEq)]
pub(super) struct BadPattern;

impl std::fmt::Display for BadPattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("syntax error in pattern")
    }
}

fn is_meta(c: u8) -> bool {
    matches!(c, b'*' | b'?' | b'[' | b'{')
}

/// doublestar's `ValidatePattern` with `/` as the separator.
fn validate(pattern: &str) -> Result<(), BadPattern> {
    let s = pattern.as_bytes();
    let mut alt_depth = 0;
    let mut i = 0;
    while i < s.len() {
        match s[i] {
            b'\\' => {
                i += 1;
                if i >= s.len() {
                    return Err(BadPattern);
                }
            }
            b'[' => {
                i += 1;
                if i >= s.len() {
                    return Err(BadPattern);
                }
                if s[i] == b'^' || s[i] == b'!' {
                    i += 1;
                }
                if i >= s.len() || s[i] == b']' {
                    return Err(BadPattern);
                }
                loop {
                    if i >= s.len() {
                        return Err(BadPattern);
                    }
                    if s[i] == b'\\' {
                        i += 1;
                    } else if s[i] == b']' {
                        break;
                    }
                    i += 1;
                }
            }
            b'{' => alt_depth += 1,
            b'}' => {
                if alt_depth == 0 {
                    return Err(BadPattern);
                }
                alt_depth -= 1;
            }
            _ => {}
        }
        i += 1;
    }
    if alt_depth == 0 {
        Ok(())
    } else {
        Err(BadPattern)
    }
}

/// doublestar's `unescapeMeta`.
fn unescape_meta(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(&next) = chars.peek() {
                if matches!(next, '*' | '?' | '[' | ']' | '{' | '}') {
                    out.push(next);
                    chars.next();
                    continue;
                }
            }
        }
        out.push(c);
    }
    out
}

/// doublestar's `SplitPattern`: the literal directory before the first
/// meta character, and the rest.
fn split_pattern(p: &str) -> (String, String) {
    let b = p.as_bytes();
    let mut split: Option<usize> = None;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 1,
            b'/' => split = Some(i),
            c if is_meta(c) => break,
            _ => {}
        }
        i += 1;
    }
    match split {
        Some(0) => ("/".to_string(), p[1..].to_string()),
        Some(i) => (unescape_meta(&p[..i]), p[i + 1..].to_string()),
        None => (".".to_string(), p.to_string()),
    }
}

/// Expands the first `{a,b}` group (recursively), so that what remains
/// only has per-component wildcards. Brackets are skipped: a `{` inside a
/// character class is just a character.
fn expand_braces(pattern: &str) -> Vec<String> {
    let b = pattern.as_bytes();
    let mut i = 0;
    let mut open = None;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 1,
            b'[' => {
                // Skip the class.
                i += 1;
                while i < b.len() && b[i] != b']' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'{' => {
                open = Some(i);
                break;
            }
            _ => {}
        }
        i += 1;
    }
    let Some(open) = open else {
        return vec![pattern.to_string()];
    };
    // Find the matching close and the top-level commas.
    let mut depth = 0;
    let mut commas = Vec::new();
    let mut close = None;
    let mut j = open + 1;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 1,
            b'{' => depth += 1,
            b'}' if depth == 0 => {
                close = Some(j);
                break;
            }
            b'}' => depth -= 1,
            b',' if depth == 0 => commas.push(j),
            _ => {}
        }
        j += 1;
    }
    let Some(close) = close else {
        return vec![pattern.to_string()];
    };
    let mut bounds = vec![open];
    bounds.extend(commas);
    bounds.push(close);
    let (prefix, suffix) = (&pattern[..open], &pattern[close + 1..]);
    bounds
        .windows(2)
        .flat_map(|w| expand_braces(&format!("{prefix}{}{suffix}", &pattern[w[0] + 1..w[1]])))
        .collect()
}

/// Matches one path component against one pattern component (no `/`, no
/// braces), with `*`, `?`, classes and escapes.
fn match_component(pattern: &[char], name: &[char]) -> bool {
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    loop {
        if p < pattern.len() {
            match pattern[p] {
                '*' => {
                    star = Some((p + 1, n));
                    p += 1;
                    continue;
                }
                '?' if n < name.len() => {
                    p += 1;
                    n += 1;
                    continue;
                }
                '[' if n < name.len() => {
                    if let Some(end) = match_class(pattern, p, name[n]) {
                        p = end;
                        n += 1;
                        continue;
                    }
                }
                '\\' if p + 1 < pattern.len() && n < name.len() && pattern[p + 1] == name[n] => {
                    p += 2;
                    n += 1;
                    continue;
                }
                c if c != '?' && c != '[' && c != '\\' && n < name.len() && c == name[n] => {
                    p += 1;
                    n += 1;
                    continue;
                }
                _ => {}
            }
        } else if n == name.len() {
            return true;
        }
        // Backtrack: let the last star take one more character.
        match star {
            Some((star_p, star_n)) if star_n < name.len() => {
                star = Some((star_p, star_n + 1));
                p = star_p;
                n = star_n + 1;
            }
            _ => return false,
        }
    }
}

/// Matches `c` against the class starting at `pattern[start] == '['`;
/// the index after the class when it matches.
fn match_class(pattern: &[char], start: usize, c: char) -> Option<usize> {
    let mut i = start + 1;
    let negate = matches!(pattern.get(i), Some('^' | '!'));
    if negate {
        i += 1;
    }
    let mut matched = false;
    while i < pattern.len() && pattern[i] != ']' {
        let mut lo = pattern[i];
        if lo == '\\' {
            i += 1;
            lo = *pattern.get(i)?;
        }
        i += 1;
        let mut hi = lo;
        if pattern.get(i) == Some(&'-') && pattern.get(i + 1).is_some_and(|&h| h != ']') {
            i += 1;
            hi = pattern[i];
            if hi == '\\' {
                i += 1;
                hi = *pattern.get(i)?;
            }
            i += 1;
        }
        if lo <= c && c <= hi {
            matched = true;
        }
    }
    if i >= pattern.len() {
        return None;
    }
    (matched != negate).then_some(i + 1)
}

fn has_meta(component: &str) -> bool {
    let b = component.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' {
            i += 2;
            continue;
        }
        if is_meta(b[i]) {
            return true;
        }
        i += 1;
    }
    false
}

struct Walker {
    base: PathBuf,
    found: BTreeSet<String>,
    /// Directories on the current `**` descent, to stop at symlink loops.
    stack: Vec<PathBuf>,
}

fn join_rel(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    }
}

impl Walker {
    fn path(&self, rel: &str) -> PathBuf {
        if rel.is_empty() {
            self.base.clone()
        } else {
            self.base.join(rel)
        }
    }

    /// Entries of a directory with whether each is one (following links).
    fn entries(&self, rel: &str) -> Vec<(String, bool)> {
        let Ok(read) = std::fs::read_dir(self.path(rel)) else {
            return Vec::new();
        };
        read.filter_map(Result::ok)
            .map(|entry| {
                let name = entry.file_name().to_string_lossy().into_owned();
                let is_dir = std::fs::metadata(entry.path()).map(|m| m.is_dir()).unwrap_or(false);
                (name, is_dir)
            })
            .collect()
    }

    fn walk(&mut self, rel: &str, segments: &[String]) {
        let Some((segment, rest)) = segments.split_first() else {
            return;
        };
        let last = rest.is_empty();
        if segment == "**" {
            if !last {
                self.walk(rel, rest);
            }
            let canonical = std::fs::canonicalize(self.path(rel)).unwrap_or_else(|_| self.path(rel));
            if self.stack.contains(&canonical) {
                return;
            }
            self.stack.push(canonical);
            for (name, is_dir) in self.entries(rel) {
                let child = join_rel(rel, &name);
                if is_dir {
                    self.walk(&child, segments);
                } else if last {
                    self.found.insert(child);
                }
            }
            self.stack.pop();
        } else if !has_meta(segment) {
            let child = join_rel(rel, &unescape_meta(segment));
            if last {
                if std::fs::metadata(self.path(&child)).is_ok() {
                    self.found.insert(child);
                }
            } else {
                self.walk(&child, rest);
            }
        } else {
            let pattern: Vec<char> = segment.chars().collect();
            for (name, is_dir) in self.entries(rel) {
                let name_chars: Vec<char> = name.chars().collect();
                if !match_component(&pattern, &name_chars) {
                    continue;
                }
                let child = join_rel(rel, &name);
                if last {
                    self.found.insert(child);
                } else if is_dir {
                    self.walk(&child, rest);
                }
            }
        }
    }
}

/// `doublestar.FilepathGlob(pattern)`: the paths (joined to the literal
/// base directory) that exist and match.
pub(super) fn filepath_glob(pattern: &str) -> Result<Vec<String>, BadPattern> {
    if pattern.is_empty() {
        return Ok(Vec::new());
    }
    let pattern = go_clean(pattern);
    let (base, rest) = split_pattern(&pattern);
    if rest.is_empty() || rest == "." || rest == ".." {
        validate(&pattern)?;
        let literal = unescape_meta(&pattern);
        return Ok(if std::fs::symlink_metadata(&literal).is_ok() { vec![literal] } else { Vec::new() });
    }
    validate(&rest)?;
    let mut walker = Walker { base: PathBuf::from(&base), found: BTreeSet::new(), stack: Vec::new() };
    for alternative in expand_braces(&rest) {
        // Components come from splitting at unescaped slashes.
        let mut segments = Vec::new();
        let mut current = String::new();
        let mut chars = alternative.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => {
                    current.push(c);
                    if let Some(next) = chars.next() {
                        current.push(next);
                    }
                }
                '/' => segments.push(std::mem::take(&mut current)),
                _ => current.push(c),
            }
        }
        segments.push(current);
        walker.walk("", &segments);
    }
    Ok(walker.found.into_iter().map(|m| go_join(&[&base, &m])).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, name: &str) -> bool {
        let p: Vec<char> = pattern.chars().collect();
        let n: Vec<char> = name.chars().collect();
        match_component(&p, &n)
    }

    #[test]
    fn component_matching() {
        let cases: &[(&str, &str, bool)] = &[
            ("*.txt", "a.txt", true),
            ("*.txt", ".hidden.txt", true),
            ("*.txt", "a.tx", false),
            ("?ello", "hello", true),
            ("?ello", "ello", false),
            ("[a-h]*", "hello", true),
            ("[a-h]*", "zebra", false),
            ("[!a-h]*", "zebra", true),
            ("[^a-h]*", "hello", false),
            ("\\*", "*", true),
            ("\\*", "a", false),
            ("a**b", "axyzb", true),
            ("*", "", true),
            ("ü*", "über", true),
            ("[a-]", "-", true),
        ];
        for (pattern, name, want) in cases {
            assert_eq!(matches(pattern, name), *want, "{pattern} vs {name}");
        }
    }

    #[test]
    fn validation_and_splitting() {
        assert_eq!(validate("["), Err(BadPattern));
        assert_eq!(validate("[]"), Err(BadPattern));
        assert_eq!(validate("{a,b"), Err(BadPattern));
        assert_eq!(validate("a}"), Err(BadPattern));
        assert_eq!(validate("a\\"), Err(BadPattern));
        assert_eq!(validate("{a,[{]}"), Ok(()));
        assert_eq!(split_pattern("../../path/to/meta*/**"), ("../../path/to".to_string(), "meta*/**".to_string()));
        assert_eq!(split_pattern("meta*/**"), (".".to_string(), "meta*/**".to_string()));
        assert_eq!(split_pattern("/a*"), ("/".to_string(), "a*".to_string()));
        assert_eq!(expand_braces("{a,b/{c,d}}.x"), vec!["a.x", "b/c.x", "b/d.x"]);
        assert_eq!(expand_braces("[{]x"), vec!["[{]x"]);
    }
}
