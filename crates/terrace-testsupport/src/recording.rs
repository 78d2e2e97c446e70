//! The one format of what terraform did, recorded by the `scripts/record-*`
//! scripts for the differential tests that run without terraform: a
//! command's exit status and both streams, and for `fmt` the files it
//! rewrote:
//!
//! ```text
//! exit: N
//! stdout:
//! TEXT<end>
//! stderr:
//! TEXT<end>
//! rewritten: PATH
//! CONTENT<end>
//! ```
//!
//! Each text is the stream's bytes as they were, so `<end>` follows the
//! last byte directly (most streams end with a newline of their own); a
//! line break follows each `<end>`.

use std::path::Path;

/// One recorded run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recording {
    pub exit: i32,
    pub stdout: String,
    pub stderr: String,
    /// Files the command rewrote, with their new content, in the order
    /// recorded.
    pub rewritten: Vec<(String, String)>,
}

/// Reads a recording; `None` when the file is missing or not in the
/// format.
pub fn read(path: &Path) -> Option<Recording> {
    parse(&std::fs::read_to_string(path).ok()?)
}

/// Parses a recording's text; `None` when it is not in the format.
pub fn parse(text: &str) -> Option<Recording> {
    let rest = text.strip_prefix("exit: ")?;
    let (exit, rest) = rest.split_once('\n')?;
    let (stdout, rest) = section(rest, "stdout:\n")?;
    let (stderr, mut rest) = section(rest, "stderr:\n")?;
    let mut rewritten = Vec::new();
    while !rest.is_empty() {
        let after = rest.strip_prefix("rewritten: ")?;
        let (name, after) = after.split_once('\n')?;
        let (content, after) = after.split_once("<end>\n")?;
        rewritten.push((name.to_string(), content.to_string()));
        rest = after;
    }
    Some(Recording {
        exit: exit.parse().ok()?,
        stdout: stdout.to_string(),
        stderr: stderr.to_string(),
        rewritten,
    })
}

/// The text after `header` up to its `<end>` line, and what follows.
fn section<'a>(text: &'a str, header: &str) -> Option<(&'a str, &'a str)> {
    text.strip_prefix(header)?.split_once("<end>\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_streams_and_rewritten_files() {
        let text = "exit: 3\nstdout:\nmain.tf\n<end>\nstderr:\n<end>\nrewritten: a/main.tf\nx = 1\n<end>\n";
        assert_eq!(
            parse(text),
            Some(Recording {
                exit: 3,
                stdout: "main.tf\n".into(),
                stderr: String::new(),
                rewritten: vec![("a/main.tf".into(), "x = 1\n".into())],
            })
        );
    }

    #[test]
    fn a_stream_without_a_final_newline_keeps_it_so() {
        let recording = parse("exit: 0\nstdout:\nno newline<end>\nstderr:\n<end>\n").unwrap();
        assert_eq!(recording.stdout, "no newline");
        assert!(recording.rewritten.is_empty());
    }

    #[test]
    fn anything_else_is_not_a_recording() {
        for text in [
            "",
            "exit: x\nstdout:\n<end>\nstderr:\n<end>\n",
            "exit: 0\nstdout:\n<end>\n",
            "exit: 0\nstdout:\n<end>\nstderr:\n<end>\ntrailing",
        ] {
            assert_eq!(parse(text), None, "{text:?}");
        }
    }
}
