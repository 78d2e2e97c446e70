//! Scratch directories for tests: a fresh directory under the system's
//! temporary directory, removed with everything in it when dropped.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// `terrace-LABEL-PID-N` under the system temporary directory, made
/// empty; its path is canonical, so tests can compare it with paths the
/// code under test resolved.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(label: &str) -> TempDir {
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        let path = std::env::temp_dir().join(format!("terrace-{label}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path)
            .unwrap_or_else(|e| panic!("creating {}: {e}", path.display()));
        let path = path
            .canonicalize()
            .unwrap_or_else(|e| panic!("resolving {}: {e}", path.display()));
        TempDir(path)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    /// `rel` inside the directory.
    pub fn join(&self, rel: impl AsRef<Path>) -> PathBuf {
        self.0.join(rel)
    }

    /// Writes `data` to `rel`, making its parent directories; its path.
    pub fn write(&self, rel: &str, data: impl AsRef<[u8]>) -> PathBuf {
        let path = self.0.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .unwrap_or_else(|e| panic!("creating {}: {e}", parent.display()));
        }
        std::fs::write(&path, data).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
        path
    }

    /// [`TempDir::write`] with the permission bits `mode`.
    pub fn write_mode(&self, rel: &str, data: impl AsRef<[u8]>, mode: u32) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = self.write(rel, data);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode))
            .unwrap_or_else(|e| panic!("setting the mode of {}: {e}", path.display()));
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
