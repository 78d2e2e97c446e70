//! The schema cache on disk.
//!
//! Where: `$TERRACE_SCHEMA_CACHE_DIR` when set (set but empty turns the
//! cache off), else `$XDG_CACHE_HOME/terrace/provider-schemas`, else
//! `$HOME/.cache/terrace/provider-schemas`. A per-user directory rather
//! than `.terraform/`, because the key is the executable's digest, which
//! does not depend on the working directory: every configuration using
//! the same provider build shares one entry (the AWS provider's is 20 MB).
//!
//! Layout: `<sha256>.json` per provider executable, holding
//! `{"format", "executable_sha256", "schema"}` with the schema model's
//! serde form; `executables/<sha256 of the path>.json` remembers the
//! digest of one file (see `digest`).
//!
//! Invariants: an entry is only ever read back for the executable whose
//! SHA-256 names it, and it must say so inside too; every write goes to a
//! temporary file in the same directory that is then renamed over the
//! entry, so readers see a whole entry or none; an entry that cannot be
//! read or decoded, is of another `format`, or names another digest is
//! ignored (a miss) and rewritten by the next store. Failing to write is
//! never an error to the user: the cache only saves time.

use crate::digest::{self, sha256_file, Digest, FileIdentity, Remembered};
use serde::{Deserialize, Serialize};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use terrace_providers::ProviderSchema;

/// The environment variable naming the cache directory.
pub const CACHE_DIR_ENV: &str = "TERRACE_SCHEMA_CACHE_DIR";

/// The version of the entry format. Bump it whenever the schema model's
/// serde form changes (the `pinned_entry_format` test fails then), so
/// that old entries are refetched rather than misread.
pub const CACHE_FORMAT: u32 = 1;

/// One cache directory, or none (caching off).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaCache {
    dir: Option<PathBuf>,
}

#[derive(Serialize)]
struct EntryOut<'a> {
    format: u32,
    executable_sha256: &'a str,
    schema: &'a ProviderSchema,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EntryIn {
    format: u32,
    executable_sha256: String,
    schema: ProviderSchema,
}

impl SchemaCache {
    /// The cache at the location the environment gives (see the module
    /// documentation); off when there is none.
    pub fn from_env() -> SchemaCache {
        SchemaCache {
            dir: default_dir(|name| std::env::var_os(name)),
        }
    }

    pub fn at(dir: impl Into<PathBuf>) -> SchemaCache {
        SchemaCache {
            dir: Some(dir.into()),
        }
    }

    /// A cache that never has an entry and stores nothing.
    pub fn disabled() -> SchemaCache {
        SchemaCache { dir: None }
    }

    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    fn entry_path(&self, digest: &Digest) -> Option<PathBuf> {
        Some(self.dir.as_ref()?.join(format!("{}.json", digest.hex())))
    }

    /// The stored schema of the executable with this digest, if there is a
    /// sound entry.
    pub fn get(&self, digest: &Digest) -> Option<ProviderSchema> {
        let bytes = std::fs::read(self.entry_path(digest)?).ok()?;
        let entry: EntryIn = serde_json::from_slice(&bytes).ok()?;
        (entry.format == CACHE_FORMAT && entry.executable_sha256 == digest.hex())
            .then_some(entry.schema)
    }

    /// Stores `schema` as the schema of the executable with this digest,
    /// replacing any entry there.
    pub fn put(&self, digest: &Digest, schema: &ProviderSchema) -> io::Result<()> {
        let Some(path) = self.entry_path(digest) else {
            return Ok(());
        };
        let hex = digest.hex();
        let entry = EntryOut {
            format: CACHE_FORMAT,
            executable_sha256: &hex,
            schema,
        };
        write_atomic(&path, |out| {
            serde_json::to_writer(out, &entry).map_err(io::Error::other)
        })
    }

    /// The `h1:` checksum of the installed provider package in `dir`, the
    /// one the dependency lock file records, with each file's SHA-256
    /// taken through [`SchemaCache::executable_digest`]: the check that an
    /// installed package is the locked one costs a rehash only when a
    /// file changed. The memo is trusted as much as the user's own cache
    /// directory, which only that user can write.
    pub fn package_h1(&self, dir: &Path) -> Result<terrace_getproviders::hash::Hash, String> {
        terrace_getproviders::hash::h1_dir_with(dir, &|path: &Path| {
            self.executable_digest(path)
                .map(|d| d.0)
                .map_err(|e| format!("read {}: {e}", path.display()))
        })
    }

    /// The SHA-256 of the executable at `path`, remembered across runs
    /// while the file stays the same one.
    pub fn executable_digest(&self, path: &Path) -> io::Result<Digest> {
        let Some(dir) = &self.dir else {
            return sha256_file(path);
        };
        let identity = FileIdentity::of(path);
        let memo = identity.as_ref().map(|identity| {
            dir.join("executables").join(format!(
                "{}.json",
                Digest::of_bytes(identity.path.as_bytes()).hex()
            ))
        });
        if let (Some(identity), Some(memo)) = (&identity, &memo) {
            if let Some(digest) = remembered(memo, identity) {
                return Ok(digest);
            }
        }
        let digest = sha256_file(path)?;
        if let (Some(identity), Some(memo)) = (identity, memo) {
            // Only a file that did not change while it was read, and whose
            // times will tell any later change apart, is remembered.
            if FileIdentity::of(path).as_ref() == Some(&identity)
                && identity.is_settled(digest::now_ns())
            {
                let record = Remembered {
                    format: CACHE_FORMAT,
                    file: identity,
                    sha256: digest.hex(),
                };
                // Not remembering only costs the next run a rehash.
                let _ = write_atomic(&memo, |out| {
                    serde_json::to_writer(out, &record).map_err(io::Error::other)
                });
            }
        }
        Ok(digest)
    }
}

fn remembered(memo: &Path, identity: &FileIdentity) -> Option<Digest> {
    let bytes = std::fs::read(memo).ok()?;
    let record: Remembered = serde_json::from_slice(&bytes).ok()?;
    if record.format != CACHE_FORMAT || record.file != *identity {
        return None;
    }
    Digest::parse_hex(&record.sha256)
}

/// The cache directory from environment variables read through `var`.
fn default_dir(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
    if let Some(dir) = var(CACHE_DIR_ENV) {
        return (!dir.is_empty()).then(|| PathBuf::from(dir));
    }
    // The XDG rules: a relative XDG_CACHE_HOME is invalid and ignored.
    let xdg = var("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute());
    let base = match xdg {
        Some(base) => base,
        None => PathBuf::from(var("HOME").filter(|h| !h.is_empty())?).join(".cache"),
    };
    Some(base.join("terrace").join("provider-schemas"))
}

/// Writes a file whole or not at all: into a temporary file beside it,
/// then renamed over it. There is no fsync: after a crash an entry may be
/// empty or cut short, which readers take as a miss.
fn write_atomic(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir = path
        .parent()
        .ok_or_else(|| io::Error::other("cache path without a directory"))?;
    std::fs::create_dir_all(dir)?;
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| io::Error::other("cache path without a file name"))?;
    // Unique among processes (pid) and threads (counter), and hidden
    // with a leading dot and a suffix no reader looks for.
    let temp = dir.join(format!(
        ".{name}.{}.{}.tmp",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let file = std::fs::File::create(&temp)?;
        let mut out = io::BufWriter::with_capacity(1 << 20, file);
        write(&mut out)?;
        out.flush()?;
        drop(out);
        std::fs::rename(&temp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use terrace_providers::{Attribute, Block, Schema, ServerCapabilities};
    use terrace_value::Type;

    pub(crate) use terrace_testsupport::TempDir;

    pub(crate) fn sample_schema() -> ProviderSchema {
        let mut attributes = BTreeMap::new();
        attributes.insert(
            "region".to_string(),
            Attribute {
                optional: true,
                description: "Where <it> runs".into(),
                ..Attribute::new(Type::String)
            },
        );
        ProviderSchema {
            provider: Schema {
                version: 0,
                block: Block {
                    attributes,
                    ..Block::default()
                },
            },
            resource_types: [(
                "x_thing".to_string(),
                Schema {
                    version: 2,
                    block: Block::default(),
                },
            )]
            .into(),
            server_capabilities: ServerCapabilities {
                get_provider_schema_optional: true,
                ..ServerCapabilities::default()
            },
            ..ProviderSchema::default()
        }
    }

    #[test]
    fn put_then_get() {
        let tmp = TempDir::new("store");
        let cache = SchemaCache::at(tmp.path().join("cache"));
        let digest = Digest::of_bytes(b"provider");
        assert_eq!(cache.get(&digest), None);
        let schema = sample_schema();
        cache.put(&digest, &schema).unwrap();
        assert_eq!(cache.get(&digest), Some(schema.clone()));
        // Another executable has no entry.
        assert_eq!(cache.get(&Digest::of_bytes(b"other")), None);
        // No temporary files are left behind.
        let names: Vec<String> = std::fs::read_dir(tmp.path().join("cache"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, vec![format!("{}.json", digest.hex())]);
        // Off: nothing stored, nothing found.
        let off = SchemaCache::disabled();
        off.put(&digest, &schema).unwrap();
        assert_eq!(off.get(&digest), None);
    }

    #[test]
    fn unsound_entries_are_misses_and_get_rewritten() {
        let tmp = TempDir::new("corrupt");
        let cache = SchemaCache::at(tmp.path());
        let digest = Digest::of_bytes(b"provider");
        let path = tmp.path().join(format!("{}.json", digest.hex()));
        let schema = sample_schema();
        cache.put(&digest, &schema).unwrap();
        let good = std::fs::read_to_string(&path).unwrap();
        let other = Digest::of_bytes(b"other").hex();
        let cases: Vec<(&str, String)> = vec![
            ("empty", String::new()),
            ("cut short", good[..good.len() / 2].to_string()),
            ("not json", "\u{0}\u{1}garbage".to_string()),
            (
                "other format",
                good.replacen(
                    &format!("\"format\":{CACHE_FORMAT}"),
                    &format!("\"format\":{}", CACHE_FORMAT + 1),
                    1,
                ),
            ),
            ("other digest", good.replacen(&digest.hex(), &other, 1)),
            (
                "unknown field",
                good.replacen("\"format\"", "\"extra\":1,\"format\"", 1),
            ),
        ];
        for (name, text) in cases {
            assert_ne!(text, good, "{name}");
            std::fs::write(&path, text).unwrap();
            assert_eq!(cache.get(&digest), None, "{name}");
            cache.put(&digest, &schema).unwrap();
            assert_eq!(cache.get(&digest), Some(schema.clone()), "{name}");
        }
        // A directory where the entry should be: a miss, and the store
        // fails without panicking.
        std::fs::remove_file(&path).unwrap();
        std::fs::create_dir_all(path.join("x")).unwrap();
        assert_eq!(cache.get(&digest), None);
        assert!(cache.put(&digest, &schema).is_err());
    }

    /// The stored form of a small schema. When the schema model changes,
    /// this fails: bump `CACHE_FORMAT` and update the text.
    #[test]
    fn pinned_entry_format() {
        let tmp = TempDir::new("pinned");
        let cache = SchemaCache::at(tmp.path());
        let digest = Digest::of_bytes(b"provider");
        cache.put(&digest, &sample_schema()).unwrap();
        let text =
            std::fs::read_to_string(tmp.path().join(format!("{}.json", digest.hex()))).unwrap();
        let want = format!(
            concat!(
                r#"{{"format":1,"executable_sha256":"{}","schema":{{"provider":{{"version":0,"#,
                r#""block":{{"attributes":{{"region":{{"ty":{{"type":"\"string\""}},"#,
                r#""description":"Where <it> runs","description_kind":"Plain","required":false,"#,
                r#""optional":true,"computed":false,"sensitive":false,"deprecated":false,"#,
                r#""write_only":false}}}},"block_types":{{}},"description":"","#,
                r#""description_kind":"Plain","deprecated":false}}}},"provider_meta":null,"#,
                r#""resource_types":{{"x_thing":{{"version":2,"block":{{"attributes":{{}},"#,
                r#""block_types":{{}},"description":"","description_kind":"Plain","#,
                r#""deprecated":false}}}}}},"data_sources":{{}},"ephemeral_resources":{{}},"#,
                r#""functions":{{}},"server_capabilities":{{"plan_destroy":false,"#,
                r#""get_provider_schema_optional":true,"move_resource_state":false}}}}}}"#
            ),
            digest.hex()
        );
        assert_eq!(text, want);
    }

    #[test]
    fn executable_digests_are_remembered_per_file() {
        let tmp = TempDir::new("memo");
        let cache = SchemaCache::at(tmp.path().join("cache"));
        let exe = tmp.path().join("terraform-provider-x");
        std::fs::write(&exe, b"binary").unwrap();
        let digest = cache.executable_digest(&exe).unwrap();
        assert_eq!(digest, Digest::of_bytes(b"binary"));
        // Just written, so not remembered yet: it could still change
        // within one tick of the file clock.
        let memo_dir = tmp.path().join("cache").join("executables");
        assert!(!memo_dir.exists());

        // A settled file: plant a memo as if made earlier, with a digest
        // that is not the content's, to see that it is used...
        let identity = FileIdentity::of(&exe).unwrap();
        let planted = Digest::of_bytes(b"planted");
        let memo = memo_dir.join(format!(
            "{}.json",
            Digest::of_bytes(identity.path.as_bytes()).hex()
        ));
        let record = Remembered {
            format: CACHE_FORMAT,
            file: identity.clone(),
            sha256: planted.hex(),
        };
        write_atomic(&memo, |out| {
            serde_json::to_writer(out, &record).map_err(io::Error::other)
        })
        .unwrap();
        assert_eq!(cache.executable_digest(&exe).unwrap(), planted);
        // ... and not once the file is another one.
        std::fs::write(&exe, b"binary, rebuilt").unwrap();
        assert_eq!(
            cache.executable_digest(&exe).unwrap(),
            Digest::of_bytes(b"binary, rebuilt")
        );
        // A corrupt memo is ignored.
        std::fs::write(&memo, b"{").unwrap();
        assert_eq!(
            cache.executable_digest(&exe).unwrap(),
            Digest::of_bytes(b"binary, rebuilt")
        );
        // Without a cache, digests are computed every time.
        assert_eq!(
            SchemaCache::disabled().executable_digest(&exe).unwrap(),
            Digest::of_bytes(b"binary, rebuilt")
        );
        assert!(cache
            .executable_digest(&tmp.path().join("missing"))
            .is_err());
    }

    #[cfg(unix)]
    #[test]
    fn settled_files_are_remembered() {
        let tmp = TempDir::new("settled");
        let cache = SchemaCache::at(tmp.path().join("cache"));
        // A file whose times are far in the past: set the modification
        // time back; the status change time cannot be, so use a file the
        // system installed long ago when there is one.
        let Some(old) = ["/bin/sh", "/usr/bin/env"]
            .into_iter()
            .map(Path::new)
            .find(|p| FileIdentity::of(p).is_some_and(|i| i.is_settled(digest::now_ns())))
        else {
            terrace_testsupport::missing("no settled system file (/bin/sh, /usr/bin/env) to hash");
            return;
        };
        let digest = cache.executable_digest(old).unwrap();
        let memo_dir = tmp.path().join("cache").join("executables");
        let memos: Vec<_> = std::fs::read_dir(&memo_dir).unwrap().collect();
        assert_eq!(memos.len(), 1);
        assert_eq!(cache.executable_digest(old).unwrap(), digest);
    }

    #[test]
    fn default_locations() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| std::ffi::OsString::from(v))
            }
        };
        type Vars = &'static [(&'static str, &'static str)];
        let cases: Vec<(Vars, Option<&str>)> = vec![
            (&[(CACHE_DIR_ENV, "/c"), ("HOME", "/h")], Some("/c")),
            (&[(CACHE_DIR_ENV, ""), ("HOME", "/h")], None),
            (
                &[("XDG_CACHE_HOME", "/x"), ("HOME", "/h")],
                Some("/x/terrace/provider-schemas"),
            ),
            (
                &[("XDG_CACHE_HOME", "relative"), ("HOME", "/h")],
                Some("/h/.cache/terrace/provider-schemas"),
            ),
            (
                &[("HOME", "/h")],
                Some("/h/.cache/terrace/provider-schemas"),
            ),
            (&[], None),
        ];
        for (vars, want) in cases {
            assert_eq!(default_dir(env(vars)), want.map(PathBuf::from), "{vars:?}");
        }
    }
}
