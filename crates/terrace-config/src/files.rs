//! Where the loader's configuration files come from: the file system, or
//! a snapshot of a configuration taken when a plan was saved, so that
//! applying the plan later uses exactly the configuration it was made
//! from, whatever happened to the files since.
//!
//! Only the module tree's own files come from here: `.tf`/`.tf.json`/
//! `.tofu` files and the module manifest. Files an expression reads
//! (`file()`, `templatefile()`) are read from disk at evaluation time, as
//! Terraform does with its snapshots.

use crate::loader::Config;
use crate::module_source::clean_path;
use crate::static_eval::path_string;
use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

/// A source of configuration files.
pub trait ConfigFiles: Sync {
    /// The names of the regular files directly in `dir`.
    fn list(&self, dir: &Path) -> io::Result<Vec<String>>;
    fn read(&self, path: &Path) -> io::Result<Vec<u8>>;
    /// One name per directory, whatever path reaches it: what recursive
    /// module calls are recognised by.
    fn canonical(&self, dir: &Path) -> io::Result<PathBuf>;
    /// The text of `.terraform/modules/modules.json` under `root`, if any.
    fn module_manifest(&self, root: &Path) -> Option<String>;
}

/// The configuration as it is on disk.
pub struct OsFiles;

impl ConfigFiles for OsFiles {
    fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
        Ok(std::fs::read_dir(dir)?
            .filter_map(|e| e.ok())
            .filter(|e| !e.file_type().map(|t| t.is_dir()).unwrap_or(true))
            .filter_map(|e| e.file_name().into_string().ok())
            .collect())
    }

    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        std::fs::read(path)
    }

    fn canonical(&self, dir: &Path) -> io::Result<PathBuf> {
        std::fs::canonicalize(dir)
    }

    fn module_manifest(&self, root: &Path) -> Option<String> {
        std::fs::read_to_string(manifest_path(root)).ok()
    }
}

pub(crate) fn manifest_path(root: &Path) -> PathBuf {
    root.join(".terraform").join("modules").join("modules.json")
}

/// The files of a loaded module tree, by module directory (as the loader
/// names it, relative to the working directory unless absolute), plus the
/// module manifest they were found through.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConfigSnapshot {
    /// Directory → file name → text.
    pub modules: BTreeMap<String, BTreeMap<String, String>>,
    pub module_manifest: Option<String>,
}

fn dir_key(dir: &Path) -> String {
    clean_path(&path_string(dir))
}

impl ConfigSnapshot {
    /// Adds a file written into `dir` after the configuration was loaded
    /// (the configuration `plan -generate-config-out` generates), so that
    /// the snapshot holds what applying the plan needs.
    pub fn add_file(&mut self, dir: &Path, name: &str, text: String) {
        self.modules
            .entry(dir_key(dir))
            .or_default()
            .insert(name.to_string(), text);
    }

    /// The snapshot of `config` as loaded from `root_dir` through `files`.
    pub fn of(config: &Config, root_dir: &Path, files: &dyn ConfigFiles) -> ConfigSnapshot {
        let mut snapshot = ConfigSnapshot {
            modules: BTreeMap::new(),
            module_manifest: files.module_manifest(root_dir),
        };
        config.deep_each(&mut |c| {
            let dir = dir_key(&c.module.source_dir);
            let prefix = if dir == "." {
                String::new()
            } else if dir.ends_with('/') {
                dir.clone()
            } else {
                format!("{dir}/")
            };
            let entry = snapshot.modules.entry(dir.clone()).or_default();
            for file in &c.module.files {
                // Files are named as diagnostics show them: `DIR/NAME`.
                let name = file.name.strip_prefix(&prefix).unwrap_or(&file.name);
                entry.insert(name.to_string(), file.text.clone());
            }
        });
        snapshot
    }
}

impl ConfigFiles for ConfigSnapshot {
    fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
        self.modules
            .get(&dir_key(dir))
            .map(|files| files.keys().cloned().collect())
            .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))
    }

    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        let (dir, name) = match (path.parent(), path.file_name()) {
            (Some(dir), Some(name)) => (dir, name.to_string_lossy()),
            _ => return Err(io::ErrorKind::NotFound.into()),
        };
        self.modules
            .get(&dir_key(dir))
            .and_then(|files| files.get(name.as_ref()))
            .map(|text| text.as_bytes().to_vec())
            .ok_or_else(|| io::ErrorKind::NotFound.into())
    }

    fn canonical(&self, dir: &Path) -> io::Result<PathBuf> {
        let key = dir_key(dir);
        if self.modules.contains_key(&key) {
            Ok(PathBuf::from(key))
        } else {
            Err(io::ErrorKind::NotFound.into())
        }
    }

    fn module_manifest(&self, _root: &Path) -> Option<String> {
        self.module_manifest.clone()
    }
}
