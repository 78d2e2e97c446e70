//! Go's `os/exec` program lookup, which decides which program terraform
//! runs for a `local-exec` interpreter or a git module source, and the
//! error users see when there is none.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

/// Go's `exec.LookPath`: a name with a slash is used as it is; any other
/// is the first executable regular file of that name in a `PATH`
/// directory (an empty entry meaning the current directory). The error is
/// Go's: `exec: "NAME": executable file not found in $PATH`.
pub fn look_path(name: &str) -> Result<PathBuf, String> {
    if name.contains('/') {
        return Ok(PathBuf::from(name));
    }
    let not_found = || {
        format!(
            "exec: {}: executable file not found in $PATH",
            crate::strconv::quote(name)
        )
    };
    if name.is_empty() {
        return Err(not_found());
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path) {
        let dir = if dir.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            dir
        };
        let candidate = dir.join(name);
        if let Ok(m) = std::fs::metadata(&candidate) {
            if m.is_file() && m.permissions().mode() & 0o111 != 0 {
                return Ok(candidate);
            }
        }
    }
    Err(not_found())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_programs_as_go_does() {
        assert_eq!(look_path("./x/y"), Ok(PathBuf::from("./x/y")));
        let sh = look_path("sh").unwrap();
        assert!(sh.is_absolute() && sh.ends_with("sh"), "{sh:?}");
        assert_eq!(
            look_path("no-such-program-x"),
            Err("exec: \"no-such-program-x\": executable file not found in $PATH".to_string())
        );
        assert_eq!(
            look_path(""),
            Err("exec: \"\": executable file not found in $PATH".to_string())
        );
    }
}
