//! Operating-system errors in the words Go prints them, because terraform
//! passes them through to users inside its own messages (`cannot search
//! /x: lstat /x: no such file or directory`).

use std::io;
use std::path::Path;

/// The text of an OS error as Go's `syscall.Errno` prints it: the C
/// library's message with a lowercase first letter and no error number.
pub fn errno_text(err: &io::Error) -> String {
    if err.raw_os_error().is_none() {
        return match err.kind() {
            io::ErrorKind::UnexpectedEof => "unexpected EOF".to_string(),
            _ => err.to_string(),
        };
    }
    let full = err.to_string();
    let msg = match full.rfind(" (os error ") {
        Some(i) => &full[..i],
        None => &full[..],
    };
    let mut chars = msg.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Go's `*fs.PathError` text: `OP PATH: ERROR`.
pub fn path_error(op: &str, path: &Path, err: &io::Error) -> String {
    format!("{op} {}: {}", path.display(), errno_text(err))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_style_texts() {
        let missing = match std::fs::symlink_metadata("/nonexistent/terrace-test") {
            Ok(_) => panic!("expected an error"),
            Err(e) => e,
        };
        assert_eq!(
            path_error("lstat", Path::new("/nonexistent/terrace-test"), &missing),
            "lstat /nonexistent/terrace-test: no such file or directory"
        );
        assert_eq!(
            errno_text(&io::Error::from(io::ErrorKind::UnexpectedEof)),
            "unexpected EOF"
        );
    }
}
