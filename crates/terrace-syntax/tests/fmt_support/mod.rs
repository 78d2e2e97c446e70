//! Shared by the formatter's tests: the fixtures in `tests/fmt/`, the
//! formatter as `terraform fmt` applies it to one file, and deterministic
//! mutations that mis-format a well-formatted file in the ways people do.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use terrace_syntax::diagnostic::has_errors;
use terrace_syntax::format::format_configuration;
use terrace_syntax::parse_native_file;

pub enum FmtResult {
    Formatted(String),
    /// The file does not parse; the first error's summary.
    Refused(String),
}

pub fn terrace_fmt(name: &str, text: &str) -> FmtResult {
    let (file, diags) = parse_native_file(name, text);
    if has_errors(&diags) {
        let summary = diags
            .iter()
            .find(|d| d.is_error())
            .map(|d| d.summary.clone())
            .unwrap_or_default();
        return FmtResult::Refused(summary);
    }
    FmtResult::Formatted(format_configuration(text, &file))
}

pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fmt")
}

/// `(name, text)` of every `NAME.in` fixture, by name.
pub fn fixture_inputs() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(fixtures_dir()) else {
        return out;
    };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        let Some(name) = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".in"))
        else {
            continue;
        };
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        out.push((name.to_string(), text));
    }
    out.sort();
    out
}

/// A small deterministic generator (xorshift), so every run mutates alike.
struct Dice(u64);

impl Dice {
    fn new(seed: u64) -> Dice {
        Dice(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> usize {
        (self.next() % n.max(1)) as usize
    }
    fn chance(&mut self, one_in: u64) -> bool {
        self.below(one_in) == 0
    }
}

/// What each line of a file is, so that mutations leave heredoc text and
/// the lines that open and close heredocs alone unless they mean to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum LineRole {
    Code,
    /// Code that ends by opening a heredoc (`x = <<EOT`).
    OpensHeredoc,
    HeredocText,
    ClosesHeredoc,
}

fn heredoc_marker(line: &str) -> Option<&str> {
    let at = line.rfind("<<")?;
    let rest = line[at + 2..].trim_end_matches('\r');
    let rest = rest.strip_prefix('-').unwrap_or(rest);
    let mut chars = rest.chars();
    let first = chars.next()?;
    let ident = (first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    ident.then_some(rest)
}

fn line_roles(lines: &[String]) -> Vec<LineRole> {
    let mut roles = Vec::with_capacity(lines.len());
    let mut open: Option<String> = None;
    for line in lines {
        match &open {
            Some(marker) => {
                if line.trim() == marker {
                    roles.push(LineRole::ClosesHeredoc);
                    open = None;
                } else {
                    roles.push(LineRole::HeredocText);
                }
            }
            None => match heredoc_marker(line) {
                Some(marker) => {
                    open = Some(marker.to_string());
                    roles.push(LineRole::OpensHeredoc);
                }
                None => roles.push(LineRole::Code),
            },
        }
    }
    roles
}

fn split_lines(text: &str) -> Vec<String> {
    text.split('\n').map(str::to_string).collect()
}

fn join_lines(lines: &[String]) -> String {
    lines.join("\n")
}

/// One kind of damage: the file's lines in, the damaged lines out.
type Mutation = fn(&mut Dice, Vec<String>) -> Vec<String>;

/// The kinds of damage, each with its description.
const MUTATIONS: &[(&str, Mutation)] = &[
    ("re-indented", reindent),
    ("tabs", tabs),
    ("squeezed equals", squeeze_equals),
    ("misaligned equals", misalign_equals),
    ("extra blank lines and trailing spaces", blank_lines),
    ("trailing and inline comments", comments),
    ("one-line blocks", one_line_blocks),
    ("heredoc indentation and interpolation spaces", heredocs),
    ("spaces inside brackets", bracket_spaces),
    (
        "legacy interpolations, unquoted labels and quoted types",
        legacy_forms,
    ),
];

/// The file itself, one single mutation chosen by `index` (so that every
/// kind meets every module), and for every third file all of them at once;
/// each with a short description.
pub fn mutations(index: usize, text: &str) -> Vec<(String, String)> {
    let mut out = vec![(text.to_string(), "as published".to_string())];
    let lines = split_lines(text);
    let (how, mutate) = MUTATIONS[index % MUTATIONS.len()];
    let mut dice = Dice::new(index as u64);
    out.push((
        join_lines(&mutate(&mut dice, lines.clone())),
        how.to_string(),
    ));
    if index.is_multiple_of(3) {
        let mut dice = Dice::new(index as u64 + 7919);
        let mut all = lines;
        for (_, mutate) in MUTATIONS {
            all = mutate(&mut dice, all);
        }
        out.push((join_lines(&all), "every mutation".to_string()));
    }
    out
}

fn code_lines(lines: &[String]) -> Vec<bool> {
    line_roles(lines)
        .into_iter()
        .map(|r| matches!(r, LineRole::Code | LineRole::OpensHeredoc))
        .collect()
}

fn reindent(dice: &mut Dice, mut lines: Vec<String>) -> Vec<String> {
    let code = code_lines(&lines);
    for (line, is_code) in lines.iter_mut().zip(code) {
        if is_code && !line.trim().is_empty() {
            let spaces = dice.below(8);
            *line = format!("{}{}", " ".repeat(spaces), line.trim_start());
        }
    }
    lines
}

fn tabs(dice: &mut Dice, mut lines: Vec<String>) -> Vec<String> {
    let code = code_lines(&lines);
    for (line, is_code) in lines.iter_mut().zip(code) {
        if !is_code {
            continue;
        }
        let body = line.trim_start_matches(' ');
        let depth = (line.len() - body.len()) / 2;
        let mut body = body.to_string();
        if dice.chance(2) {
            body = body.replacen(" = ", "\t=\t", 1);
        }
        *line = format!("{}{body}", "\t".repeat(depth));
    }
    lines
}

fn squeeze_equals(dice: &mut Dice, mut lines: Vec<String>) -> Vec<String> {
    let code = code_lines(&lines);
    for (line, is_code) in lines.iter_mut().zip(code) {
        if is_code && dice.chance(2) {
            if let Some(at) = line.find('=') {
                let (left, right) = line.split_at(at);
                let right = &right[1..];
                if !right.starts_with(['=', '>']) && !left.ends_with(['!', '<', '>', '=']) {
                    *line = format!("{}={}", left.trim_end(), right.trim_start());
                }
            }
        }
    }
    lines
}

fn misalign_equals(dice: &mut Dice, mut lines: Vec<String>) -> Vec<String> {
    let code = code_lines(&lines);
    for (line, is_code) in lines.iter_mut().zip(code) {
        if is_code {
            if let Some(at) = line.find(" = ") {
                let spaces_before = 1 + dice.below(6);
                let spaces_after = 1 + dice.below(3);
                let left = line[..at].trim_end().to_string();
                let right = line[at + 3..].to_string();
                *line = format!(
                    "{left}{}={}{right}",
                    " ".repeat(spaces_before),
                    " ".repeat(spaces_after)
                );
            }
        }
    }
    lines
}

fn blank_lines(dice: &mut Dice, lines: Vec<String>) -> Vec<String> {
    let roles = line_roles(&lines);
    let mut out = Vec::with_capacity(lines.len() * 2);
    if dice.chance(3) {
        out.push(String::new());
    }
    for (line, role) in lines.into_iter().zip(roles) {
        let is_code = role == LineRole::Code;
        let opens_block = is_code && line.trim_end().ends_with('{');
        let trailing = if is_code && dice.chance(4) { "  " } else { "" };
        out.push(format!("{line}{trailing}"));
        if is_code && (opens_block || dice.chance(6)) {
            out.push(" ".repeat(dice.below(3)));
        }
    }
    out
}

fn comments(dice: &mut Dice, lines: Vec<String>) -> Vec<String> {
    let roles = line_roles(&lines);
    let mut out = Vec::with_capacity(lines.len() * 2);
    for (line, role) in lines.into_iter().zip(roles) {
        if role != LineRole::Code {
            out.push(line);
            continue;
        }
        let trimmed = line.trim();
        let is_comment = trimmed.starts_with('#') || trimmed.starts_with("//");
        if !trimmed.is_empty() && !is_comment && dice.chance(5) {
            out.push(format!(
                "{}# note {}",
                " ".repeat(dice.below(5)),
                dice.below(100)
            ));
        }
        if trimmed.is_empty() || is_comment || trimmed.contains("/*") || trimmed.contains("*/") {
            out.push(line);
            continue;
        }
        match dice.below(4) {
            0 => out.push(format!("{line}{}# trailing", " ".repeat(1 + dice.below(4)))),
            1 => out.push(format!("{line} // trailing {}", dice.below(1000))),
            2 => {
                // A block comment between the first word and the rest.
                let indent = line.len() - line.trim_start().len();
                match trimmed.find(' ') {
                    Some(at) => out.push(format!(
                        "{}{} /* inline */ {}",
                        &line[..indent],
                        &trimmed[..at],
                        trimmed[at..].trim_start()
                    )),
                    None => out.push(line),
                }
            }
            _ => out.push(line),
        }
    }
    out
}

fn one_line_blocks(_dice: &mut Dice, lines: Vec<String>) -> Vec<String> {
    let roles = line_roles(&lines);
    let mut out = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        let line = &lines[i];
        let is_code = |j: usize| roles.get(j) == Some(&LineRole::Code);
        if is_code(i)
            && line.trim_end().ends_with('{')
            && !line.contains('#')
            && !line.contains("//")
        {
            // `x {` + `}` becomes `x {}`.
            if is_code(i + 1) && lines[i + 1].trim() == "}" {
                out.push(format!("{}}}", line.trim_end()));
                i += 2;
                continue;
            }
            // `x {` + one simple argument + `}` becomes `x { a = 1 }`.
            if is_code(i + 1) && is_code(i + 2) && lines[i + 2].trim() == "}" {
                let inner = lines[i + 1].trim();
                let simple = inner.contains(" = ")
                    && !inner.ends_with(['{', '[', '(', ','])
                    && !inner.contains('#')
                    && !inner.contains("//")
                    && !inner.contains("/*");
                if simple {
                    out.push(format!("{} {inner} }}", line.trim_end()));
                    i += 3;
                    continue;
                }
            }
        }
        out.push(line.clone());
        i += 1;
    }
    out
}

fn heredocs(dice: &mut Dice, mut lines: Vec<String>) -> Vec<String> {
    let roles = line_roles(&lines);
    for (line, role) in lines.iter_mut().zip(roles) {
        match role {
            LineRole::HeredocText => {
                if dice.chance(2) {
                    *line = format!("{}{}", " ".repeat(dice.below(6)), line.trim_start());
                }
                *line = line.replace("${", "${ ").replace("}", " }");
            }
            LineRole::ClosesHeredoc => {
                *line = format!("{}{}", " ".repeat(dice.below(6)), line.trim_start());
            }
            _ => {}
        }
    }
    lines
}

fn bracket_spaces(dice: &mut Dice, mut lines: Vec<String>) -> Vec<String> {
    let code = code_lines(&lines);
    for (line, is_code) in lines.iter_mut().zip(code) {
        let trimmed = line.trim_start();
        if !is_code || trimmed.starts_with('#') || trimmed.starts_with("//") || !dice.chance(2) {
            continue;
        }
        *line = line
            .replace("[", "[ ")
            .replace("]", " ]")
            .replace("(", "( ")
            .replace(")", " )")
            .replace(", ", " ,  ")
            .replace(" ? ", "?")
            .replace(" + ", "+");
    }
    lines
}

fn legacy_forms(dice: &mut Dice, mut lines: Vec<String>) -> Vec<String> {
    let roles = line_roles(&lines);
    let mut in_variable = false;
    for (line, role) in lines.iter_mut().zip(roles) {
        if role != LineRole::Code {
            continue;
        }
        let trimmed = line.trim().to_string();
        if !line.starts_with(' ') && trimmed.starts_with("variable ") {
            in_variable = true;
        } else if line.starts_with('}') {
            in_variable = false;
        }
        if in_variable && trimmed.starts_with("type") {
            for (modern, legacy) in [
                ("= string", "= \"string\""),
                ("= map(any)", "= map"),
                ("= list(any)", "= list"),
                ("= list(string)", "= \"list\""),
                ("= map(string)", "= \"map\""),
            ] {
                if trimmed.ends_with(modern) {
                    *line = line.replace(modern, legacy);
                    break;
                }
            }
            continue;
        }
        // Block headers with plain-name labels lose their quotes.
        if trimmed.ends_with('{')
            && !trimmed.contains('=')
            && trimmed.contains('"')
            && dice.chance(2)
        {
            let plain = trimmed
                .trim_end_matches('{')
                .split('"')
                .enumerate()
                .all(|(i, part)| {
                    i % 2 == 0
                        || (!part.is_empty()
                            && part
                                .chars()
                                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
                            && !part.starts_with(|c: char| c.is_ascii_digit() || c == '-'))
                });
            if plain {
                *line = line.replace('"', "");
                continue;
            }
        }
        // A whole value that is one reference or call goes back to 0.11's
        // interpolation-only string.
        if let Some(at) = line.find(" = ") {
            let value = line[at + 3..].trim_end();
            let simple = !value.is_empty()
                && !value.starts_with(['"', '{', '[', '<', '('])
                && !value.ends_with(['{', '[', '(', ','])
                && !value.contains('#')
                && !value.contains("//")
                && !value.contains("/*")
                && !value.contains('"');
            if simple && dice.chance(2) {
                let spread = if dice.chance(3) { "\n" } else { "" };
                *line = format!("{} = \"${{{spread}{value}{spread}}}\"", &line[..at]);
            }
        }
    }
    lines
}
