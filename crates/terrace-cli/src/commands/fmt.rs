//! `terrace fmt`: rewrites `.tf`, `.tfvars` and `.tftest.hcl` files (the
//! current directory's, the directories and files named, or standard input
//! with `-`) in the canonical layout, as `terraform fmt` does: the changed
//! files' names are listed, `-diff` shows `diff -u`'s view of each change,
//! `-check` writes nothing and exits 3 when anything would change. JSON
//! files are never touched. A file that does not parse is reported and left
//! alone (exit 2). The layout itself is `terrace_syntax::format`.

use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};
use terrace_syntax::diagnostic::has_errors;
use terrace_syntax::format::format_configuration;
use terrace_syntax::render::{render_diagnostic, RenderStyle, SourceMap, DEFAULT_WIDTH};
use terrace_syntax::{parse_native_file, Diagnostic, Severity, SourceRange, PRODUCT};

const HELP: &str = "Usage: terrace [global options] fmt [options] [target...]

  Rewrites all terrace configuration files to a canonical format. All
  configuration files (.tf), variables files (.tfvars), and testing files 
  (.tftest.hcl) are updated. JSON files (.tf.json, .tfvars.json, or 
  .tftest.json) are not modified.

  By default, fmt scans the current directory for configuration files. If you
  provide a directory for the target argument, then fmt will scan that
  directory instead. If you provide a file, then fmt will process just that
  file. If you provide a single dash (\"-\"), then fmt will read from standard
  input (STDIN).

  The content must be in the terrace language native syntax; JSON is not
  supported.

Options:

  -list=false    Don't list files whose formatting differs
                 (always disabled if using STDIN)

  -write=false   Don't write to source files
                 (always disabled if using STDIN or -check)

  -diff          Display diffs of formatting changes

  -check         Check if the input is formatted. Exit status will be 0 if all
                 input is properly formatted and non-zero otherwise.

  -no-color      If specified, output won't contain any color.

  -recursive     Also process files in subdirectories. By default, only the
                 given directory (or current directory) is processed.";

/// The endings of the files fmt rewrites, in the order they are tried.
const FORMATTED_EXTENSIONS: &[&str] = &[".tf", ".tfvars", ".tftest.hcl"];

/// The name standard input goes by in listings, diffs and diagnostics.
const STDIN_NAME: &str = "<stdin>";

#[derive(Clone, Debug, PartialEq, Eq)]
struct FmtOptions {
    list: bool,
    write: bool,
    diff: bool,
    check: bool,
    recursive: bool,
    color: bool,
    /// `None`: read standard input.
    paths: Option<Vec<String>>,
}

/// Runs `terrace fmt` with the arguments after the command name; the exit
/// status: 0, 1 for bad flags, 2 for any error, 3 when `-check` finds a
/// file that would change.
pub fn run(argv: &[String]) -> i32 {
    // Like terraform, -no-color counts wherever it is, and a help flag
    // anywhere asks for help.
    let color = std::env::var_os("NO_COLOR").is_none() && !argv.iter().any(|a| a == "-no-color");
    if argv
        .iter()
        .take_while(|a| *a != "--")
        .any(|a| matches!(a.as_str(), "-h" | "-help" | "--help"))
    {
        crate::write_stdout(&format!("{HELP}\n"));
        return 0;
    }
    let mut options = match parse_arguments(argv) {
        Ok(options) => options,
        Err(message) => {
            let text = if color {
                format!("\x1b[31m{HELP}\x1b[0m\x1b[0m\n\x1b[31mError parsing command-line flags: {message}\n\x1b[0m\x1b[0m\n")
            } else {
                format!("{HELP}\nError parsing command-line flags: {message}\n\n")
            };
            let _ = std::io::stderr().write_all(text.as_bytes());
            return 1;
        }
    };
    options.color = color;
    execute(options)
}

/// Go's `flag` rules, which terraform's commands follow: flags come before
/// the first argument that is not one (`-` is not a flag), `--` ends them,
/// and a boolean flag takes its value only as `-flag=value`.
fn parse_arguments(argv: &[String]) -> Result<FmtOptions, String> {
    let mut options = FmtOptions {
        list: true,
        write: true,
        diff: false,
        check: false,
        recursive: false,
        color: true,
        paths: None,
    };
    let mut no_color = false;
    let mut rest = argv;
    while let Some(arg) = rest.first() {
        if arg == "--" {
            rest = &rest[1..];
            break;
        }
        let Some(body) = arg.strip_prefix('-').filter(|b| !b.is_empty()) else {
            break;
        };
        let body = body.strip_prefix('-').unwrap_or(body);
        if body.is_empty() || body.starts_with('-') || body.starts_with('=') {
            return Err(format!("bad flag syntax: {arg}"));
        }
        let (name, value) = match body.split_once('=') {
            Some((name, value)) => (name, Some(value)),
            None => (body, None),
        };
        let target = match name {
            "list" => &mut options.list,
            "write" => &mut options.write,
            "diff" => &mut options.diff,
            "check" => &mut options.check,
            "recursive" => &mut options.recursive,
            // Read before the flags are (it counts anywhere on the line).
            "no-color" => &mut no_color,
            _ => return Err(format!("flag provided but not defined: -{name}")),
        };
        *target = match value {
            None => true,
            Some(text) => go_parse_bool(text).ok_or_else(|| {
                format!("invalid boolean value {text:?} for -{name}: parse error")
            })?,
        };
        rest = &rest[1..];
    }
    let paths: Vec<String> = rest.to_vec();
    if paths.is_empty() {
        options.paths = Some(vec![".".to_string()]);
    } else if paths[0] == "-" {
        options.paths = None;
        options.list = false;
        options.write = false;
    } else {
        options.paths = Some(paths);
    }
    Ok(options)
}

/// Go's `strconv.ParseBool`.
fn go_parse_bool(text: &str) -> Option<bool> {
    match text {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

/// Where listings, diffs and formatted text go: straight to standard
/// output, or held back for `-check`, which prints them only at the end.
enum Output {
    Stdout,
    Held(Vec<u8>),
}

impl Output {
    fn write(&mut self, bytes: &[u8]) {
        match self {
            Output::Stdout => crate::write_stdout(&String::from_utf8_lossy(bytes)),
            Output::Held(buffer) => buffer.extend_from_slice(bytes),
        }
    }
}

struct Run {
    options: FmtOptions,
    output: Output,
    diagnostics: Vec<Diagnostic>,
    sources: SourceMap,
    working_dir: PathBuf,
}

fn execute(mut options: FmtOptions) -> i32 {
    let list_requested = options.list;
    let output = if options.check {
        // -check lists into a buffer to learn whether anything would change.
        options.list = true;
        options.write = false;
        Output::Held(Vec::new())
    } else {
        Output::Stdout
    };
    let working_dir = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let color = options.color;
    let check = options.check;
    let mut run = Run {
        options,
        output,
        diagnostics: Vec::new(),
        sources: SourceMap::new(),
        working_dir,
    };
    run.format_targets();

    let style = if color {
        RenderStyle::Color
    } else {
        RenderStyle::Plain
    };
    let mut stderr = String::new();
    for diag in &run.diagnostics {
        let text = render_diagnostic(diag, &run.sources, style, DEFAULT_WIDTH);
        // terraform's fmt passes each rendered diagnostic through its
        // message printer, which colours the whole message again and ends
        // it with a line of its own.
        let hue = match diag.severity {
            Severity::Error => "31",
            Severity::Warning => "33",
        };
        if color {
            stderr.push_str(&format!("\x1b[{hue}m{text}\x1b[0m\x1b[0m\n"));
        } else {
            stderr.push_str(&format!("{text}\n"));
        }
    }
    let _ = std::io::stderr().write_all(stderr.as_bytes());
    if has_errors(&run.diagnostics) {
        return 2;
    }
    if check {
        let Output::Held(held) = run.output else {
            return 0;
        };
        if list_requested {
            crate::write_stdout(&String::from_utf8_lossy(&held));
        }
        if !held.is_empty() {
            return 3;
        }
    }
    0
}

impl Run {
    fn format_targets(&mut self) {
        let Some(paths) = self.options.paths.clone() else {
            let mut bytes = Vec::new();
            if std::io::stdin().read_to_end(&mut bytes).is_err() {
                self.diagnostics.push(Diagnostic::error(
                    format!("Failed to read file {STDIN_NAME}"),
                    "",
                ));
                return;
            }
            self.format_file(STDIN_NAME, None, bytes);
            return;
        };
        for given in paths {
            let path = self.normalize(Path::new(&given));
            let Ok(metadata) = std::fs::metadata(&path) else {
                self.diagnostics.push(Diagnostic::error(
                    format!("No file or directory at {}", path.display()),
                    "",
                ));
                return;
            };
            if metadata.is_dir() {
                self.format_dir(&path);
            } else if FORMATTED_EXTENSIONS
                .iter()
                .any(|ext| path.to_string_lossy().ends_with(ext))
            {
                self.format_path(&path);
            } else {
                self.diagnostics.push(Diagnostic::error(
                    format!(
                        "Only .tf, .tfvars, and .tftest.hcl files can be processed with {PRODUCT} fmt"
                    ),
                    "",
                ));
            }
        }
    }

    /// A path as it is shown: relative to the working directory, cleaned
    /// (`./a/../b/` is `b`), as terraform shows the paths it was given.
    fn normalize(&self, given: &Path) -> PathBuf {
        let absolute = if given.is_absolute() {
            clean(given)
        } else {
            clean(&self.working_dir.join(given))
        };
        relative_to(&clean(&self.working_dir), &absolute)
    }

    fn format_dir(&mut self, dir: &Path) {
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(err) => {
                let detail = if err.kind() == std::io::ErrorKind::NotFound {
                    format!("There is no configuration directory at {}", dir.display())
                } else {
                    format!("Cannot read directory {}", dir.display())
                };
                self.diagnostics
                    .push(Diagnostic::error("Invalid path", detail));
                return;
            }
        };
        let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
        // Go's os.ReadDir order: by name, byte for byte.
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let name = entry.file_name().to_string_lossy().into_owned();
            if is_ignored_file(&name) {
                continue;
            }
            let path = dir.join(&name);
            // The entry's own type: a symbolic link to a directory is not
            // followed, one to a file is read like a file.
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                if self.options.recursive {
                    self.format_dir(&path);
                }
                continue;
            }
            if FORMATTED_EXTENSIONS.iter().any(|ext| name.ends_with(ext)) {
                let shown = self.normalize(&path);
                self.format_path(&shown);
            }
        }
    }

    fn format_path(&mut self, path: &Path) {
        let shown = path.display().to_string();
        match std::fs::read(path) {
            Ok(bytes) => self.format_file(&shown, Some(path), bytes),
            // A dangling symbolic link, say: terraform names the file in
            // the summary and says no more.
            Err(_) => self.diagnostics.push(Diagnostic::error(
                format!("Failed to read file {shown}"),
                "",
            )),
        }
    }

    /// Formats one file's content; `path` is where to write it back, `None`
    /// for standard input.
    fn format_file(&mut self, shown: &str, path: Option<&Path>, bytes: Vec<u8>) {
        let (text, encoding_errors) = decode_utf8(shown, bytes);
        let (file, parse_diags) = parse_native_file(shown, &text);
        self.sources.add_text(shown, &text);
        if !encoding_errors.is_empty() || has_errors(&parse_diags) {
            self.diagnostics.extend(encoding_errors);
            self.diagnostics.extend(parse_diags);
            return;
        }
        let result = format_configuration(&text, &file);
        if result != text {
            if self.options.list {
                self.output.write(format!("{shown}\n").as_bytes());
            }
            if self.options.write {
                if let Some(path) = path {
                    if std::fs::write(path, &result).is_err() {
                        self.diagnostics.push(Diagnostic::error(
                            "Writing formatted file failed",
                            format!("Failed to write {shown}"),
                        ));
                        return;
                    }
                }
            }
            if self.options.diff {
                match unified_diff(&text, &result, shown) {
                    Ok(diff) => self.output.write(&diff),
                    Err(err) => {
                        self.diagnostics.push(Diagnostic::error(
                            "Failed to generate diff",
                            format!("Failed to generate diff for {shown}: {err}"),
                        ));
                        return;
                    }
                }
            }
        }
        if !self.options.list && !self.options.write && !self.options.diff {
            // Printed text always ends a line, as terraform prints it.
            let mut printed = result;
            if !printed.ends_with('\n') {
                printed.push('\n');
            }
            self.output.write(printed.as_bytes());
        }
    }
}

/// The text of a file, and an error for each place it is not UTF-8 (HCL's
/// scanner reports those, with the rest of the file read around them).
fn decode_utf8(shown: &str, bytes: Vec<u8>) -> (String, Vec<Diagnostic>) {
    match String::from_utf8(bytes) {
        Ok(text) => (text, Vec::new()),
        Err(err) => {
            let bytes = err.into_bytes();
            let text = String::from_utf8_lossy(&bytes).into_owned();
            let source = terrace_syntax::ast::SourceFile::new(shown, text.as_str());
            let errors = text
                .match_indices('\u{FFFD}')
                .map(|(at, replacement)| {
                    let range: SourceRange =
                        source.range(terrace_syntax::Span::new(at, at + replacement.len()));
                    Diagnostic::error(
                        "Invalid character encoding",
                        "All input files must be UTF-8 encoded. Ensure that UTF-8 encoding is selected in your editor.",
                    )
                    .with_subject(range)
                })
                .collect();
            (text, errors)
        }
    }
}

/// `diff -u` between the old and new text, labelled `old/NAME` and
/// `new/NAME`, as terraform shows a change: it runs the system's `diff`.
fn unified_diff(old: &str, new: &str, shown: &str) -> Result<Vec<u8>, String> {
    let dir = std::env::temp_dir();
    let stem = format!("{PRODUCT}-fmt-{}-{}", std::process::id(), unique_number());
    let old_path = dir.join(format!("{stem}-old"));
    let new_path = dir.join(format!("{stem}-new"));
    let written = std::fs::write(&old_path, old).and_then(|()| std::fs::write(&new_path, new));
    let result = written.map_err(|e| e.to_string()).and_then(|()| {
        std::process::Command::new("diff")
            .arg(format!("--label=old/{shown}"))
            .arg(format!("--label=new/{shown}"))
            .arg("-u")
            .arg(&old_path)
            .arg(&new_path)
            .output()
            .map_err(|e| e.to_string())
    });
    let _ = std::fs::remove_file(&old_path);
    let _ = std::fs::remove_file(&new_path);
    let output = result?;
    // diff exits 1 when the files differ: what matters is its output.
    let mut combined = output.stdout;
    combined.extend_from_slice(&output.stderr);
    if combined.is_empty() && !output.status.success() {
        return Err(format!("diff failed: {}", output.status));
    }
    Ok(combined)
}

fn unique_number() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// Editor backups and hidden files, which no command reads.
fn is_ignored_file(name: &str) -> bool {
    name.starts_with('.') || name.ends_with('~') || (name.starts_with('#') && name.ends_with('#'))
}

/// Go's `filepath.Clean` on an absolute path: no `.`, no `..` (resolved
/// lexically), no repeated or trailing separators.
fn clean(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                if !out.pop() && !path.is_absolute() {
                    out.push("..");
                }
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Go's `filepath.Rel` for two clean absolute paths.
fn relative_to(base: &Path, target: &Path) -> PathBuf {
    let base: Vec<_> = base.components().collect();
    let target_parts: Vec<_> = target.components().collect();
    let shared = base
        .iter()
        .zip(&target_parts)
        .take_while(|(a, b)| a == b)
        .count();
    let mut out = PathBuf::new();
    for _ in shared..base.len() {
        out.push("..");
    }
    for part in &target_parts[shared..] {
        out.push(part.as_os_str());
    }
    if out.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn flags_follow_go_rules() {
        let options = parse_arguments(&strings(&["-check", "--list=false", "a.tf", "-diff"]))
            .expect("valid flags");
        assert!(options.check && !options.list && !options.diff);
        assert_eq!(options.paths, Some(strings(&["a.tf", "-diff"])));
        let stdin = parse_arguments(&strings(&["-write=true", "-", "x"])).expect("valid flags");
        assert_eq!(stdin.paths, None);
        assert!(!stdin.list && !stdin.write);
        assert_eq!(
            parse_arguments(&strings(&[])).expect("no flags").paths,
            Some(strings(&["."]))
        );
        assert_eq!(
            parse_arguments(&strings(&["-bogus"])),
            Err("flag provided but not defined: -bogus".to_string())
        );
        assert_eq!(
            parse_arguments(&strings(&["-list=maybe"])),
            Err("invalid boolean value \"maybe\" for -list: parse error".to_string())
        );
    }

    #[test]
    fn paths_are_shown_relative_and_clean() {
        assert_eq!(clean(Path::new("/a/./b/../c//d/")), PathBuf::from("/a/c/d"));
        assert_eq!(
            relative_to(Path::new("/w/x"), Path::new("/w/y/z.tf")),
            PathBuf::from("../y/z.tf")
        );
        assert_eq!(
            relative_to(Path::new("/w"), Path::new("/w")),
            PathBuf::from(".")
        );
    }
}
