//! File system steps that must not leave half-done work behind: writing a
//! file by renaming a finished temporary copy over it, and removing the
//! empty directories an aborted installation created.

use crate::goerr::path_error;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A name for a temporary sibling of `path` that no other process or
/// thread picks at the same time.
pub(crate) fn temp_sibling(path: &Path, tag: &str) -> PathBuf {
    let n = COUNTER.fetch_add(1, Ordering::SeqCst);
    let base = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{base}.{tag}-{}-{n}", std::process::id()))
}

/// Writes `data` to `path` through a temporary file in the same directory
/// and a rename, so readers see the old content or the new, never part.
pub(crate) fn atomic_write(path: &Path, data: &[u8], mode: u32) -> Result<(), String> {
    let tmp = temp_sibling(path, "tmp");
    let result = (|| {
        let mut f = std::fs::File::create(&tmp).map_err(|e| path_error("open", &tmp, &e))?;
        f.write_all(data)
            .map_err(|e| path_error("write", &tmp, &e))?;
        f.sync_all().map_err(|e| path_error("sync", &tmp, &e))?;
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(mode))
            .map_err(|e| path_error("chmod", &tmp, &e))?;
        std::fs::rename(&tmp, path).map_err(|e| {
            format!(
                "rename {} {}: {}",
                tmp.display(),
                path.display(),
                crate::goerr::errno_text(&e)
            )
        })
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Creates `dir` and its missing parents (mode 0755), returning the ones
/// it created, outermost first, so a failed installation can remove them.
pub(crate) fn create_dirs(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut missing = Vec::new();
    let mut cur = Some(dir);
    while let Some(d) = cur {
        if d.as_os_str().is_empty() || d.exists() {
            break;
        }
        missing.push(d.to_path_buf());
        cur = d.parent();
    }
    missing.reverse();
    for d in &missing {
        match std::fs::create_dir(d) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(path_error("mkdir", d, &e)),
        }
    }
    Ok(missing)
}

/// Removes directories from `created` (innermost first) that are empty.
pub(crate) fn remove_empty_dirs(created: &[PathBuf]) {
    for d in created.iter().rev() {
        if std::fs::remove_dir(d).is_err() {
            break;
        }
    }
}

/// A fresh directory under the system temporary directory, named from
/// `label`, the process and a counter (with the clock, against other
/// processes of the same id in containers); the caller removes it.
pub fn fresh_temp_dir(label: &str) -> Result<PathBuf, String> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let base = std::env::temp_dir();
    for _ in 0..100 {
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let dir = base.join(format!("{label}{}{n}{nanos}", std::process::id()));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(crate::goerr::path_error("mkdir", &dir, &e)),
        }
    }
    Err(format!(
        "could not create a temporary directory in {}",
        base.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::TempDir;

    #[test]
    fn atomic_write_replaces_and_leaves_no_temporaries() {
        let dir = TempDir::new("atomic");
        let path = dir.path().join("f");
        assert_eq!(atomic_write(&path, b"one", 0o644), Ok(()));
        assert_eq!(atomic_write(&path, b"two", 0o600), Ok(()));
        assert_eq!(std::fs::read(&path).ok(), Some(b"two".to_vec()));
        let mode = std::fs::metadata(&path)
            .map(|m| m.permissions().mode() & 0o777)
            .ok();
        assert_eq!(mode, Some(0o600));
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("f")]);
        let bad = dir.path().join("missing/f");
        match atomic_write(&bad, b"x", 0o644) {
            Ok(()) => panic!("expected an error"),
            Err(e) => assert!(e.ends_with("no such file or directory"), "{e}"),
        }
    }

    #[test]
    fn created_dirs_are_removed_when_empty() {
        let dir = TempDir::new("mkdirs");
        let deep = dir.path().join("a/b/c");
        let created = match create_dirs(&deep) {
            Ok(c) => c,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(created.len(), 3);
        assert!(deep.is_dir());
        remove_empty_dirs(&created);
        assert!(!dir.path().join("a").exists());
        assert!(dir.path().exists());
    }
}
