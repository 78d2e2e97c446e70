//! `.terraform/modules/modules.json`: where each module call's module was
//! installed, keyed by the dot-joined call path (`child.grand`). Written
//! exactly as Terraform writes it: one line of compact JSON without a final
//! newline, records sorted by key, fields `Key`, `Source`, `Version` (only
//! for registry modules) and `Dir`, strings escaped as Go's `encoding/json`
//! escapes them (`<`, `>` and `&` as `\u003c`, `\u003e`, `\u0026`).

use std::collections::BTreeMap;
use std::path::Path;
use terrace_gocompat::json::write_string;

/// The manifest's file name inside the modules directory.
pub const MANIFEST_FILE: &str = "modules.json";

/// One installed module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// The call path joined with dots; empty for the root module.
    pub key: String,
    /// The source address, in its normalized form.
    pub source: String,
    /// The installed version, for registry modules.
    pub version: Option<String>,
    /// The module's directory, relative to the root module's directory
    /// (or absolute when the data directory is), with forward slashes.
    pub dir: String,
}

/// Every record, by key.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Manifest {
    pub records: BTreeMap<String, Record>,
}

impl Manifest {
    /// Reads the manifest in `modules_dir`; a missing file (or directory) is
    /// an empty manifest. The error is Terraform's wording of the cause.
    pub fn read(modules_dir: &Path) -> Result<Manifest, String> {
        let path = modules_dir.join(MANIFEST_FILE);
        let text = match std::fs::read(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Manifest::default()),
            Err(e) => {
                return Err(format!(
                    "failed to read module manifest {}: {}",
                    path.display(),
                    crate::fsutil::errno_text(&e)
                ))
            }
        };
        if text.iter().all(u8::is_ascii_whitespace) {
            return Ok(Manifest::default());
        }
        let json: serde_json::Value = serde_json::from_slice(&text).map_err(|e| {
            format!(
                "error unmarshalling module manifest {}: {e}",
                path.display()
            )
        })?;
        let mut manifest = Manifest::default();
        let Some(list) = json.get("Modules").and_then(|m| m.as_array()) else {
            return Ok(manifest);
        };
        for m in list {
            let field = |name: &str| m.get(name).and_then(|v| v.as_str()).unwrap_or_default();
            let version = field("Version");
            if !version.is_empty() {
                terrace_config::version::Version::parse(version).map_err(|e| {
                    format!(
                        "invalid version {} for {}: {e}",
                        terrace_value::gostr::quote(version),
                        terrace_value::gostr::quote(field("Key"))
                    )
                })?;
            }
            let record = Record {
                key: field("Key").to_string(),
                source: field("Source").to_string(),
                version: (!version.is_empty()).then(|| version.to_string()),
                dir: field("Dir").to_string(),
            };
            manifest.records.insert(record.key.clone(), record);
        }
        Ok(manifest)
    }

    pub fn get(&self, key: &str) -> Option<&Record> {
        self.records.get(key)
    }

    pub fn insert(&mut self, record: Record) {
        self.records.insert(record.key.clone(), record);
    }

    /// Drops `key` and every record below it (`key.` prefixed).
    pub fn remove_tree(&mut self, key: &str) {
        let prefix = format!("{key}.");
        self.records
            .retain(|k, _| k != key && !(k.starts_with(&prefix)));
    }

    /// The file's exact bytes.
    pub fn to_json(&self) -> String {
        let mut out = String::from("{\"Modules\":[");
        for (i, r) in self.records.values().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str("{\"Key\":");
            write_string(&mut out, &r.key);
            out.push_str(",\"Source\":");
            write_string(&mut out, &r.source);
            if let Some(v) = r.version.as_deref().filter(|v| !v.is_empty()) {
                out.push_str(",\"Version\":");
                write_string(&mut out, v);
            }
            out.push_str(",\"Dir\":");
            write_string(&mut out, &r.dir);
            out.push('}');
        }
        out.push_str("]}");
        out
    }

    /// Writes the manifest into `modules_dir` (created if need be).
    pub fn write(&self, modules_dir: &Path) -> Result<(), String> {
        std::fs::create_dir_all(modules_dir)
            .map_err(|e| crate::fsutil::path_error("mkdir", modules_dir, &e))?;
        let path = modules_dir.join(MANIFEST_FILE);
        std::fs::write(&path, self.to_json())
            .map_err(|e| crate::fsutil::path_error("open", &path, &e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::TempDir;

    fn rec(key: &str, source: &str, version: Option<&str>, dir: &str) -> Record {
        Record {
            key: key.into(),
            source: source.into(),
            version: version.map(String::from),
            dir: dir.into(),
        }
    }

    /// Written by terraform 1.11.4 for a root calling a registry module, a
    /// git module with a subdirectory and a local module inside it.
    const TERRAFORM_WROTE: &str = r#"{"Modules":[{"Key":"","Source":"","Dir":"."},{"Key":"b","Source":"git::file:///tmp/tfx/repo.git//sub?ref=v1","Dir":".terraform/modules/b/sub"},{"Key":"b.inner","Source":"./inner","Dir":".terraform/modules/b/sub/inner"},{"Key":"w","Source":"127.0.0.1:18443/acme/widget/aws","Version":"1.2.0","Dir":".terraform/modules/w"}]}"#;

    #[test]
    fn writes_what_terraform_writes() {
        let mut m = Manifest::default();
        m.insert(rec(
            "w",
            "127.0.0.1:18443/acme/widget/aws",
            Some("1.2.0"),
            ".terraform/modules/w",
        ));
        m.insert(rec(
            "b.inner",
            "./inner",
            None,
            ".terraform/modules/b/sub/inner",
        ));
        m.insert(rec("", "", None, "."));
        m.insert(rec(
            "b",
            "git::file:///tmp/tfx/repo.git//sub?ref=v1",
            None,
            ".terraform/modules/b/sub",
        ));
        assert_eq!(m.to_json(), TERRAFORM_WROTE);

        let dir = TempDir::new("manifest");
        let mods = dir.path().join(".terraform/modules");
        if let Err(e) = m.write(&mods) {
            panic!("{e}");
        }
        assert_eq!(Manifest::read(&mods), Ok(m.clone()));
        assert_eq!(
            std::fs::read_to_string(mods.join(MANIFEST_FILE))
                .ok()
                .as_deref(),
            Some(TERRAFORM_WROTE)
        );
    }

    #[test]
    fn escapes_like_go() {
        let mut m = Manifest::default();
        m.insert(rec("a", "git::https://x/y?ref=a&depth=1", None, "<d>"));
        assert_eq!(
            m.to_json(),
            r#"{"Modules":[{"Key":"a","Source":"git::https://x/y?ref=a\u0026depth=1","Dir":"\u003cd\u003e"}]}"#
        );
    }

    #[test]
    fn reading_missing_and_broken_manifests() {
        let dir = TempDir::new("manifest-read");
        assert_eq!(
            Manifest::read(&dir.path().join("none")),
            Ok(Manifest::default())
        );
        dir.write_mode("m/modules.json", b"{nope", 0o644);
        let err = Manifest::read(&dir.path().join("m"))
            .err()
            .unwrap_or_default();
        assert!(
            err.starts_with("error unmarshalling module manifest"),
            "{err}"
        );
        dir.write_mode(
            "v/modules.json",
            br#"{"Modules":[{"Key":"a","Source":"x/y/z","Version":"bad!","Dir":"d"}]}"#,
            0o644,
        );
        assert_eq!(
            Manifest::read(&dir.path().join("v")),
            Err("invalid version \"bad!\" for \"a\": malformed version: bad!".to_string())
        );
    }

    #[test]
    fn removing_a_subtree() {
        let mut m = Manifest::default();
        for k in ["a", "a.b", "a.b.c", "ab", "b"] {
            m.insert(rec(k, "", None, ""));
        }
        m.remove_tree("a");
        assert_eq!(m.records.keys().collect::<Vec<_>>(), ["ab", "b"]);
    }
}
