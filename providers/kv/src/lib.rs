//! terrace/kv: a key-value store kept in a directory, one namespace per
//! provider configuration. Each configuration (`directory`, `namespace`)
//! is its own store, which makes it the provider to exercise per-instance
//! provider configuration (aliases, provider `for_each`) offline, and it
//! shows every behaviour a provider is written for:
//!
//! - `kv_entry`: `value` and `tags` update in place (the value first, then
//!   the tags: when writing the tags fails, the state records the new
//!   value and the old tags, so the next apply finishes the job); `key`
//!   forces a replacement; an entry deleted outside Terraform is removed
//!   from state on refresh; `terraform import kv_entry.x <key>`; create,
//!   update and delete wait for the namespace's lock file (`.lock`) up to
//!   their timeouts.
//! - data source `kv_entry` reads an entry; function `entry_id` gives the
//!   id an entry of a key has.
//!
//! On disk: `<directory>/<namespace>/<key>` holds the value and
//! `<key>.tags` the tags as a JSON object, each written through a
//! `.tmp` file renamed into place.

// Data from users, files, plugins and the network never panics the
// program: no unwrap, expect or panic outside tests.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

use serde_json::{Map, Value as Json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;
use terrace_sdk::terrace_providers::{FunctionError, FunctionParameter, FunctionSpec, StringKind};
use terrace_sdk::validators::{matches_regex, Validator};
use terrace_sdk::{
    Attr, BlockSpec, Context, DataSourceSpec, Error, Function, ProviderSpec, ResourceData,
    ResourceSpec, Retry, Timeouts, Type, Value,
};

/// A stored entry: its value and tags.
type Entry = (String, BTreeMap<String, String>);

/// One configured store: the namespace's directory.
pub struct Store {
    namespace: String,
    root: PathBuf,
}

const NAME_PATTERN: &str = "^[A-Za-z0-9_][A-Za-z0-9_.-]*$";
const NAME_RULE: &str = "must be letters, digits, '_', '.' and '-', not starting with '.' or '-'";

fn name_validator() -> impl Validator {
    // The pattern is a constant known to compile.
    let checked = matches_regex(NAME_PATTERN, NAME_RULE);
    move |value: &Value| match &checked {
        Ok(validator) => validator.validate(value),
        Err(e) => Err(e.clone()),
    }
}

fn io_error(summary: &str, path: &Path, error: std::io::Error) -> Error {
    Error::new(summary, format!("{}: {error}", path.display()))
}

impl Store {
    fn value_path(&self, key: &str) -> PathBuf {
        self.root.join(key)
    }

    fn tags_path(&self, key: &str) -> PathBuf {
        self.root.join(format!("{key}.tags"))
    }

    fn id(&self, key: &str) -> String {
        format!("{}/{key}", self.namespace)
    }

    /// The key an id of this namespace names.
    fn key_of(&self, id: &str) -> Result<String, Error> {
        match id.split_once('/') {
            Some((namespace, key)) if namespace == self.namespace && !key.is_empty() => {
                Ok(key.to_string())
            }
            Some((namespace, _)) => Err(Error::new(
                "Entry in another namespace",
                format!(
                    "The id {id:?} belongs to namespace {namespace:?}, but this provider \
                     configuration manages namespace {:?}.",
                    self.namespace
                ),
            )),
            None if !id.is_empty() => Ok(id.to_string()),
            None => Err(Error::new("Invalid id", "An entry id cannot be empty.")),
        }
    }

    /// Waits while another writer holds the namespace's lock.
    fn wait_unlocked(&self, ctx: &Context) -> Result<(), Error> {
        let lock = self.root.join(".lock");
        ctx.retry(Duration::from_millis(100), || {
            if lock.exists() {
                Retry::Retry(Error::new(
                    "Namespace locked",
                    format!(
                        "The lock file {} is held by another writer.",
                        lock.display()
                    ),
                ))
            } else {
                Retry::Done(())
            }
        })
    }

    fn read(&self, key: &str) -> Result<Option<Entry>, Error> {
        let path = self.value_path(key);
        let value = match std::fs::read_to_string(&path) {
            Ok(value) => value,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io_error("Cannot read entry", &path, e)),
        };
        let tags_path = self.tags_path(key);
        let tags = match std::fs::read(&tags_path) {
            Ok(bytes) => {
                let json: Map<String, Json> = serde_json::from_slice(&bytes).map_err(|e| {
                    Error::new("Corrupt tags", format!("{}: {e}", tags_path.display()))
                })?;
                json.into_iter()
                    .map(|(k, v)| (k, v.as_str().unwrap_or_default().to_string()))
                    .collect()
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeMap::new(),
            Err(e) => return Err(io_error("Cannot read tags", &tags_path, e)),
        };
        Ok(Some((value, tags)))
    }

    fn write_value(&self, key: &str, value: &str) -> Result<(), Error> {
        let path = self.value_path(key);
        write_atomically(&path, value.as_bytes())
            .map_err(|e| io_error("Cannot write entry", &path, e))
    }

    fn write_tags(&self, key: &str, tags: &BTreeMap<String, String>) -> Result<(), Error> {
        let path = self.tags_path(key);
        if tags.is_empty() {
            return match std::fs::remove_file(&path) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                Err(e) => Err(io_error("Cannot write tags", &path, e)),
            };
        }
        let json: Map<String, Json> = tags
            .iter()
            .map(|(k, v)| (k.clone(), Json::String(v.clone())))
            .collect();
        let text = Json::Object(json).to_string();
        write_atomically(&path, text.as_bytes()).map_err(|e| {
            let mut error = io_error("Cannot write tags", &path, e);
            let diagnostic = terrace_sdk::terrace_providers::Diagnostic::warning(
                "Entry partly updated",
                "The value was written before the tags failed; the next apply writes the tags.",
            );
            error.push(diagnostic);
            error
        })
    }

    fn remove(&self, key: &str) -> Result<(), Error> {
        for path in [self.value_path(key), self.tags_path(key)] {
            match std::fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(io_error("Cannot delete entry", &path, e)),
            }
        }
        Ok(())
    }
}

/// Writes through a temporary file renamed into place, so that readers
/// never see a half-written entry.
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(".tmp");
    let temporary = PathBuf::from(temporary);
    std::fs::write(&temporary, bytes)?;
    std::fs::rename(&temporary, path)
}

fn key_of_data(d: &ResourceData) -> String {
    d.get_string("key").unwrap_or_default()
}

fn entry() -> ResourceSpec<Store> {
    let schema = BlockSpec::new()
        .description("An entry of the key-value store: a value and tags under a key.")
        .attr(
            "key",
            Attr::string()
                .required()
                .force_new()
                .validate(name_validator())
                .description("The entry's key; changing it replaces the entry."),
        )
        .attr(
            "value",
            Attr::string()
                .required()
                .description("The value stored under the key."),
        )
        .attr(
            "tags",
            Attr::map(Type::String)
                .optional()
                .description("Labels kept beside the value."),
        )
        .attr(
            "id",
            Attr::string()
                .computed()
                .description("`<namespace>/<key>`."),
        );
    ResourceSpec::new(schema)
        .timeouts(Timeouts {
            create: Some(Duration::from_secs(60)),
            update: Some(Duration::from_secs(60)),
            delete: Some(Duration::from_secs(60)),
            ..Timeouts::default()
        })
        .create(|ctx, store: &Store, d| {
            store.wait_unlocked(ctx)?;
            let key = key_of_data(d);
            if store.value_path(&key).exists() {
                return Err(Error::attribute(
                    "key",
                    "Entry already exists",
                    format!(
                        "The key {key:?} already has an entry in namespace {:?}. Import it with \
                         `terraform import` to manage it here.",
                        store.namespace
                    ),
                ));
            }
            store.write_value(&key, d.get_str("value").unwrap_or_default())?;
            d.set_id(store.id(&key))?;
            store.write_tags(&key, &d.get_string_map("tags"))
        })
        .read(|_, store: &Store, d| {
            let key = store.key_of(d.id().unwrap_or_default())?;
            match store.read(&key)? {
                None => d.remove_from_state(),
                Some((value, tags)) => {
                    d.set_string("key", &key)?;
                    d.set_string("value", value)?;
                    if tags.is_empty() && !d.is_set("tags") {
                        d.set_null("tags")?;
                    } else {
                        d.set_string_map("tags", &tags)?;
                    }
                }
            }
            Ok(())
        })
        .update(|ctx, store: &Store, d| {
            store.wait_unlocked(ctx)?;
            let key = key_of_data(d);
            d.partial(true);
            if d.has_change("value") {
                store.write_value(&key, d.get_str("value").unwrap_or_default())?;
                d.set_partial("value");
            }
            if d.has_change("tags") {
                store.write_tags(&key, &d.get_string_map("tags"))?;
                d.set_partial("tags");
            }
            d.partial(false);
            Ok(())
        })
        .delete(|ctx, store: &Store, d| {
            store.wait_unlocked(ctx)?;
            store.remove(&key_of_data(d))
        })
        .importer(|_, store: &Store, id, d| {
            let key = store.key_of(id)?;
            if store.read(&key)?.is_none() {
                return Err(Error::new(
                    "Cannot import non-existent remote object",
                    format!(
                        "There is no entry {key:?} in namespace {:?}.",
                        store.namespace
                    ),
                ));
            }
            d.set_id(store.id(&key))
        })
}

fn entry_data_source() -> DataSourceSpec<Store> {
    let schema = BlockSpec::new()
        .description("Reads an entry of the key-value store.")
        .attr(
            "key",
            Attr::string()
                .required()
                .validate(name_validator())
                .description("The key to read."),
        )
        .attr(
            "value",
            Attr::string()
                .computed()
                .description("The value stored under the key."),
        )
        .attr(
            "tags",
            Attr::map(Type::String)
                .computed()
                .description("The entry's tags."),
        )
        .attr(
            "id",
            Attr::string()
                .computed()
                .description("`<namespace>/<key>`."),
        );
    DataSourceSpec::new(schema).read(|_, store: &Store, d| {
        let key = key_of_data(d);
        let Some((value, tags)) = store.read(&key)? else {
            return Err(Error::attribute(
                "key",
                "No such entry",
                format!(
                    "There is no entry {key:?} in namespace {:?}.",
                    store.namespace
                ),
            ));
        };
        d.set_string("value", value)?;
        d.set_string_map("tags", &tags)?;
        d.set_id(store.id(&key))
    })
}

fn entry_id_function() -> Function {
    let parameter = |name: &str, description: &str| FunctionParameter {
        name: name.into(),
        ty: Type::String,
        allow_null_value: false,
        allow_unknown_values: false,
        description: description.into(),
        description_kind: StringKind::Plain,
    };
    Function::new(
        FunctionSpec {
            parameters: vec![
                parameter("namespace", "The namespace."),
                parameter("key", "The key."),
            ],
            variadic_parameter: None,
            return_type: Type::String,
            summary: "The id of an entry".into(),
            description: "Returns the id that kv_entry gives the entry of a key in a namespace."
                .into(),
            description_kind: StringKind::Plain,
            deprecation_message: String::new(),
        },
        |arguments| {
            let text = |index: usize| {
                arguments
                    .get(index)
                    .and_then(Value::as_str)
                    .ok_or_else(|| FunctionError {
                        text: "a string is required".into(),
                        argument: Some(index),
                    })
            };
            let (namespace, key) = (text(0)?, text(1)?);
            for (index, name) in [(0, namespace), (1, key)] {
                if let Err(message) = name_validator().validate(&Value::string(name)) {
                    return Err(FunctionError {
                        text: format!("{name:?} {message}"),
                        argument: Some(index),
                    });
                }
            }
            Ok(Value::string(format!("{namespace}/{key}")))
        },
    )
}

pub fn provider() -> ProviderSpec<Store> {
    let schema = BlockSpec::new()
        .attr(
            "directory",
            Attr::string()
                .required()
                .description("The directory holding the store's namespaces; created if missing."),
        )
        .attr(
            "namespace",
            Attr::string()
                .optional()
                .validate(name_validator())
                .description("The namespace this configuration manages. Defaults to \"default\"."),
        );
    ProviderSpec::new(schema, |_, config| {
        let directory = config.get_string("directory").unwrap_or_default();
        if directory.is_empty() {
            return Err(Error::attribute(
                "directory",
                "Missing store directory",
                "The provider needs a directory to keep its entries in.",
            ));
        }
        let namespace = config
            .get_string("namespace")
            .unwrap_or_else(|| "default".into());
        let root = Path::new(&directory).join(&namespace);
        std::fs::create_dir_all(&root).map_err(|e| {
            Error::attribute(
                "directory",
                "Cannot create the store",
                format!("{}: {e}", root.display()),
            )
        })?;
        Ok(Store { namespace, root })
    })
    .resource("kv_entry", entry())
    .data_source("kv_entry", entry_data_source())
    .function("entry_id", entry_id_function())
}

#[cfg(test)]
mod tests;
