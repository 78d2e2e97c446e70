//! Test helpers: scratch directories that clean up after themselves.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// A fresh directory under the system temporary directory, removed with
/// everything in it when dropped.
pub(crate) struct TempDir(PathBuf);

impl TempDir {
    pub(crate) fn new(label: &str) -> TempDir {
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        let path = std::env::temp_dir().join(format!(
            "terrace-getmodules-{label}-{}-{n}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&path);
        if let Err(e) = std::fs::create_dir_all(&path) {
            panic!("creating {}: {e}", path.display());
        }
        // Canonical, so tests can compare with paths the code resolved.
        match path.canonicalize() {
            Ok(p) => TempDir(p),
            Err(e) => panic!("{e}"),
        }
    }

    pub(crate) fn path(&self) -> &Path {
        &self.0
    }

    /// Writes a file (creating parent directories) with the given mode.
    pub(crate) fn write(&self, rel: &str, data: &[u8], mode: u32) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = self.0.join(rel);
        if let Some(parent) = path.parent() {
            if let Err(e) = std::fs::create_dir_all(parent) {
                panic!("{e}");
            }
        }
        if let Err(e) = std::fs::write(&path, data) {
            panic!("{e}");
        }
        if let Err(e) = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)) {
            panic!("{e}");
        }
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
