//! What the commands print and how: terraform's colour markup, diagnostics
//! sorted, folded and rendered, plain lines, and the product's name where
//! terraform's messages name terraform.

use std::io::Write;
use terrace_syntax::render::{render_diagnostic, RenderStyle, SourceMap, DEFAULT_WIDTH};
use terrace_syntax::{Diagnostic, Severity};

/// The name that stands where Terraform's messages say "Terraform".
pub(crate) const PRODUCT_TITLE: &str = terrace_getproviders::PRODUCT;
/// The command that stands where Terraform's messages say `terraform`.
pub(crate) const PRODUCT_COMMAND: &str = terrace_getproviders::PRODUCT;

/// Terraform's colour markup (`[reset]`, `[bold]`, `[green]`, ...): codes
/// when `color`, none otherwise; coloured text ends with a reset, as the
/// `colorstring` library leaves it.
pub(crate) fn colorize(text: &str, color: bool) -> String {
    const CODES: &[(&str, &str)] = &[
        ("[reset]", "\x1b[0m"),
        ("[bold]", "\x1b[1m"),
        ("[green]", "\x1b[32m"),
        ("[red]", "\x1b[31m"),
        ("[yellow]", "\x1b[33m"),
    ];
    let mut out = text.to_string();
    for (tag, code) in CODES {
        out = out.replace(tag, if color { code } else { "" });
    }
    if color {
        out.push_str("\x1b[0m");
    }
    out
}

/// Terraform's order for showing diagnostics: warnings first, then those
/// without a source location, then by file (fewer path segments first)
/// and position; otherwise as given.
pub(crate) fn sort_diags(diags: &mut [Diagnostic]) {
    use std::cmp::Ordering;
    diags.sort_by(|a, b| {
        let sev = |d: &Diagnostic| u8::from(d.severity == Severity::Error);
        sev(a)
            .cmp(&sev(b))
            .then_with(|| match (&a.subject, &b.subject) {
                (None, None) => Ordering::Equal,
                (None, Some(_)) => Ordering::Less,
                (Some(_), None) => Ordering::Greater,
                (Some(x), Some(y)) if x.filename != y.filename => {
                    let depth = |f: &str| f.matches('/').count();
                    depth(&x.filename)
                        .cmp(&depth(&y.filename))
                        .then_with(|| x.filename.cmp(&y.filename))
                }
                (Some(x), Some(y)) => x
                    .start
                    .byte
                    .cmp(&y.start.byte)
                    .then(x.end.byte.cmp(&y.end.byte)),
            })
    });
}

/// Terraform's consolidation of warnings: those with a source location
/// and the same summary are shown once, the first noting how many more
/// there were; failed conditions are each shown.
pub(crate) fn consolidate_warnings(diags: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let mut out: Vec<Diagnostic> = Vec::new();
    // Summary, index of the first in `out`, how many were folded into it.
    let mut groups: Vec<(String, usize, usize)> = Vec::new();
    for d in diags {
        if d.severity != Severity::Warning || d.subject.is_none() || d.condition_failure {
            out.push(d);
            continue;
        }
        match groups.iter_mut().find(|g| g.0 == d.summary) {
            Some(g) => g.2 += 1,
            None => {
                groups.push((d.summary.clone(), out.len(), 0));
                out.push(d);
            }
        }
    }
    for (_, at, extra) in groups.into_iter().filter(|g| g.2 > 0) {
        let note = if extra == 1 {
            "(and one more similar warning elsewhere)".to_string()
        } else {
            format!("(and {extra} more similar warnings elsewhere)")
        };
        let d = &mut out[at];
        d.detail = if d.detail.is_empty() {
            note
        } else {
            format!("{}\n\n{note}", d.detail)
        };
    }
    out
}

/// Prints diagnostics as Terraform's views do: sorted, similar warnings
/// consolidated, warnings on stdout and errors on stderr, each as rendered
/// (a leading blank line without colour, the box with it).
pub(crate) fn print_diags(diags: &[Diagnostic], mut sources: SourceMap, color: bool) {
    let style = if color {
        RenderStyle::Color
    } else {
        RenderStyle::Plain
    };
    let mut sorted = diags.to_vec();
    sort_diags(&mut sorted);
    // Files that failed to load are in no configuration tree; their text
    // is read again so the snippet can be shown.
    for d in &sorted {
        let Some(subject) = &d.subject else { continue };
        if subject.filename.is_empty() || sources.source(&subject.filename).is_some() {
            continue;
        }
        if let Ok(text) = std::fs::read_to_string(&subject.filename) {
            sources.add_text(&subject.filename, &text);
        }
    }
    for d in &consolidate_warnings(sorted) {
        let text = render_diagnostic(d, &sources, style, DEFAULT_WIDTH);
        match d.severity {
            Severity::Error => {
                let mut err = std::io::stderr();
                let _ = err.write_all(text.as_bytes());
                let _ = err.flush();
            }
            _ => {
                let mut out = std::io::stdout();
                let _ = out.write_all(text.as_bytes());
                let _ = out.flush();
            }
        }
    }
}

/// Prints a line to stdout right away, so it interleaves correctly with
/// the errors on stderr.
pub(crate) fn say(text: &str) {
    let mut out = std::io::stdout();
    let _ = writeln!(out, "{text}");
    let _ = out.flush();
}

/// Problems with the CLI configuration, shown as Terraform shows them at
/// start-up: on stderr, boxed, before anything else.
pub(crate) fn print_cli_config_problems(diags: &[Diagnostic]) {
    // Said once, before the command's own output, as terraform says it
    // for every command; the commands that read the configuration again
    // do not repeat it.
    static SAID: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if diags.is_empty() || SAID.swap(true, std::sync::atomic::Ordering::Relaxed) {
        return;
    }
    let mut text = String::from("There are some problems with the CLI configuration:\n");
    for d in diags {
        text.push_str(&render_diagnostic(
            d,
            &SourceMap::new(),
            RenderStyle::Boxed,
            DEFAULT_WIDTH,
        ));
    }
    text.push('\n');
    if diags.iter().any(Diagnostic::is_error) {
        text.push_str(&format!(
            "As a result of the above problems, {} may not behave as intended.\n\n\n",
            PRODUCT_TITLE
        ));
    }
    let mut err = std::io::stderr();
    let _ = err.write_all(text.as_bytes());
    let _ = err.flush();
}

/// tfdiags' error form of several diagnostics (`N problems:` and a list).
pub(crate) fn diags_as_error(diags: &[Diagnostic]) -> String {
    let one = |d: &Diagnostic| {
        if d.detail.is_empty() {
            d.summary.clone()
        } else {
            format!("{}: {}", d.summary, d.detail)
        }
    };
    match diags {
        [] => "no errors".into(),
        [d] => one(d),
        many => {
            let mut s = format!("{} problems:\n", many.len());
            for d in many {
                s.push_str(&format!("\n- {}", one(d)));
            }
            s
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_markup() {
        assert_eq!(
            colorize("[reset][bold]Initializing the backend...", true),
            "\x1b[0m\x1b[1mInitializing the backend...\x1b[0m"
        );
        assert_eq!(
            colorize("[reset][bold]Initializing the backend...", false),
            "Initializing the backend..."
        );
    }

    #[test]
    fn diagnostics_as_one_error() {
        let a = Diagnostic::error("Missing expression", "Expected the start of an expression.");
        let b = Diagnostic::error("Unsuitable value type", "");
        assert_eq!(
            diags_as_error(std::slice::from_ref(&a)),
            "Missing expression: Expected the start of an expression."
        );
        assert_eq!(
            diags_as_error(&[a, b]),
            "2 problems:\n\n- Missing expression: Expected the start of an expression.\n- Unsuitable value type"
        );
    }
}
