//! hashicorp/local, written with terrace-sdk: files on the machine running
//! Terraform, with the schemas and behaviour of the HashiCorp provider.
//!
//! - `local_file` and `local_sensitive_file` write a file from exactly one
//!   of `content`, `content_base64`, `source` (and, deprecated,
//!   `sensitive_content`), creating missing directories, and record its
//!   checksums; the id is the content's SHA-1. A file that disappears or
//!   whose content changes outside Terraform is removed from state, so
//!   the next apply writes it again.
//! - data sources `local_file` and `local_sensitive_file` read a file.

// Data from users, files, plugins and the network never panics the
// program: no unwrap, expect or panic outside tests.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

use base64::Engine;
use md5::Md5;
use sha1::{Digest, Sha1};
use sha2::{Sha256, Sha512};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::Path;
use terrace_sdk::{
    Attr, BlockSpec, DataSourceSpec, Error, ProviderSpec, ResourceData, ResourceSpec, Value,
};

pub fn provider() -> ProviderSpec<()> {
    ProviderSpec::new(BlockSpec::new(), |_, _| Ok(()))
        .resource("local_file", file_resource(false))
        .resource("local_sensitive_file", file_resource(true))
        .data_source("local_file", file_data_source(false))
        .data_source("local_sensitive_file", file_data_source(true))
}

const CHECKSUMS: [(&str, &str); 6] = [
    ("content_md5", "MD5 checksum of file content."),
    ("content_sha1", "SHA1 checksum of file content."),
    ("content_sha256", "SHA256 checksum of file content."),
    (
        "content_base64sha256",
        "Base64 encoded SHA256 checksum of file content.",
    ),
    ("content_sha512", "SHA512 checksum of file content."),
    (
        "content_base64sha512",
        "Base64 encoded SHA512 checksum of file content.",
    ),
];

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn sha1_hex(content: &[u8]) -> String {
    hex(&Sha1::digest(content))
}

/// The id and checksum attributes of a file with this content.
fn set_checksums(d: &mut ResourceData, content: &[u8]) -> Result<(), Error> {
    let b64 = base64::engine::general_purpose::STANDARD;
    let sha256 = Sha256::digest(content);
    let sha512 = Sha512::digest(content);
    d.set_string("content_md5", hex(&Md5::digest(content)))?;
    d.set_string("content_sha1", sha1_hex(content))?;
    d.set_string("content_sha256", hex(&sha256))?;
    d.set_string("content_base64sha256", b64.encode(sha256))?;
    d.set_string("content_sha512", hex(&sha512))?;
    d.set_string("content_base64sha512", b64.encode(sha512))?;
    d.set_id(sha1_hex(content))
}

/// File permissions in octal numeric notation, three or four digits.
fn check_permission(value: &Value) -> Result<(), String> {
    let text = value.as_str().unwrap_or_default();
    if text.len() < 3 || text.len() > 4 {
        return Err(format!(
            "bad mode permission: string length should be 3 or 4 digits: {text}"
        ));
    }
    match u32::from_str_radix(text, 8) {
        Ok(mode) if mode <= 0o777 => Ok(()),
        _ => Err(format!(
            "bad mode permission: string must be expressed in octal numeric notation: {text}"
        )),
    }
}

fn permission(d: &ResourceData, name: &str, default: u32) -> u32 {
    d.get_str(name)
        .and_then(|text| u32::from_str_radix(text, 8).ok())
        .unwrap_or(default)
}

fn content_sources(sensitive: bool) -> &'static [&'static str] {
    if sensitive {
        &["content", "content_base64", "source"]
    } else {
        &["content", "sensitive_content", "content_base64", "source"]
    }
}

/// Exactly one way of giving the content; unknown values are checked
/// when they are known.
fn check_one_content(d: &ResourceData, sensitive: bool) -> Result<(), Error> {
    let names = content_sources(sensitive);
    if names.iter().any(|name| !d.config(name).is_known()) {
        return Ok(());
    }
    let set: Vec<&str> = names
        .iter()
        .copied()
        .filter(|name| !d.config(name).is_null())
        .collect();
    let listed = format!("[{}]", names.join(","));
    match set.len() {
        1 => Ok(()),
        0 => Err(Error::attribute(
            names[0],
            "Invalid Attribute Combination",
            format!("No attribute specified when one (and only one) of {listed} is required"),
        )),
        _ => Err(Error::attribute(
            set[1],
            "Invalid Attribute Combination",
            format!(
                "2 attributes specified when one (and only one) of {listed} is required: {} and {} \
                 cannot both be set",
                set[0], set[1]
            ),
        )),
    }
}

fn file_error(summary: &str, what: &str, error: impl std::fmt::Display) -> Error {
    Error::new(
        summary,
        format!("An unexpected error occurred while {what}\n\nOriginal Error: {error}"),
    )
}

fn content_of(d: &ResourceData) -> Result<Vec<u8>, Error> {
    if let Some(text) = d.get_str("sensitive_content") {
        return Ok(text.as_bytes().to_vec());
    }
    if let Some(encoded) = d.get_str("content_base64") {
        return base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .map_err(|e| {
                Error::attribute(
                    "content_base64",
                    "Create local file error",
                    format!(
                        "An unexpected error occurred while parsing local file content\n\nOriginal \
                         Error: {e}"
                    ),
                )
            });
    }
    if let Some(source) = d.get_str("source") {
        return std::fs::read(source).map_err(|e| {
            Error::attribute(
                "source",
                "Create local file error",
                format!(
                    "An unexpected error occurred while reading the source file {source}\n\n\
                     Original Error: {e}"
                ),
            )
        });
    }
    Ok(d.get_str("content").unwrap_or_default().as_bytes().to_vec())
}

fn write_file(d: &mut ResourceData, default_mode: u32) -> Result<(), Error> {
    let content = content_of(d)?;
    let filename = d.get_string("filename").unwrap_or_default();
    let path = Path::new(&filename);
    if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
        if std::fs::metadata(dir).is_err() {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(permission(d, "directory_permission", default_mode))
                .create(dir)
                .map_err(|e| file_error("Create local file error", "creating file directory", e))?;
        }
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(permission(d, "file_permission", default_mode))
        .open(path)
        .map_err(|e| file_error("Create local file error", "writing the file", e))?;
    file.write_all(&content)
        .map_err(|e| file_error("Create local file error", "writing the file", e))?;
    set_checksums(d, &content)
}

fn file_resource(sensitive: bool) -> ResourceSpec<()> {
    let default_mode = if sensitive { "0700" } else { "0777" };
    let mut schema = BlockSpec::new()
        .attr(
            "filename",
            Attr::string().required().force_new().description(
                "The path to the file that will be created. Missing parent directories will be \
                 created. If the file already exists, it will be overridden with the given content.",
            ),
        )
        .attr(
            "source",
            Attr::string().optional().force_new().description(
                "Path to file to use as source for the one we are creating. Exactly one of \
                 `content`, `content_base64` or `source` must be specified.",
            ),
        );
    let content = Attr::string()
        .optional()
        .force_new()
        .description("Content to store in the file, expected to be a UTF-8 encoded string.");
    let content_base64 = Attr::string().optional().force_new().description(
        "Content to store in the file, expected to be binary encoded as base64 string.",
    );
    if sensitive {
        schema = schema
            .attr("content", content.sensitive())
            .attr("content_base64", content_base64.sensitive());
    } else {
        schema = schema.attr("content", content).attr("content_base64", content_base64).attr(
            "sensitive_content",
            Attr::string()
                .optional()
                .force_new()
                .sensitive()
                .deprecated("Use the `local_sensitive_file` resource instead")
                .description("Sensitive content to store in the file, expected to be an UTF-8 encoded string. Will not be displayed in diffs."),
        );
    }
    for (name, what) in [
        ("file_permission", "file"),
        ("directory_permission", "directory"),
    ] {
        schema = schema.attr(
            name,
            Attr::string()
                .optional()
                .computed()
                .force_new()
                .default(Value::string(default_mode))
                .validate(check_permission)
                .description(format!(
                    "Permissions to set for the output {what} (before umask), expressed as \
                     string in numeric notation. Default value is `\"{default_mode}\"`."
                )),
        );
    }
    schema = schema.attr(
        "id",
        Attr::string()
            .computed()
            .description("The hexadecimal encoding of the SHA1 checksum of the file content."),
    );
    for (name, description) in CHECKSUMS {
        schema = schema.attr(name, Attr::string().computed().description(description));
    }
    let mode = if sensitive { 0o700 } else { 0o777 };
    ResourceSpec::new(schema.markdown_description(if sensitive {
        "Generates a local file with the given sensitive content."
    } else {
        "Generates a local file with the given content."
    }))
    .check(move |d| check_one_content(d, sensitive))
    .create(move |_, _, d| write_file(d, mode))
    .read(|_, _, d| {
        let filename = d.get_string("filename").unwrap_or_default();
        match std::fs::read(&filename) {
            Ok(content) => {
                // Content changed outside Terraform: the file is treated as
                // gone, so that the next apply writes it again.
                if Some(sha1_hex(&content).as_str()) != d.id() {
                    d.remove_from_state();
                }
                Ok(())
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                d.remove_from_state();
                Ok(())
            }
            Err(e) => Err(file_error("Read local file error", "reading the file", e)),
        }
    })
    .delete(|_, _, d| {
        if let Some(filename) = d.get_str("filename") {
            // Already gone is as good as deleted.
            let _ = std::fs::remove_file(filename);
        }
        Ok(())
    })
}

fn file_data_source(sensitive: bool) -> DataSourceSpec<()> {
    let content = Attr::string()
        .computed()
        .description("Raw content of the file that was read, as UTF-8 encoded string.");
    let content_base64 = Attr::string().computed().description(
        "Base64 encoded version of the file content (use this when dealing with binary data).",
    );
    let (content, content_base64) = if sensitive {
        (content.sensitive(), content_base64.sensitive())
    } else {
        (content, content_base64)
    };
    let mut schema = BlockSpec::new()
        .markdown_description(if sensitive {
            "Reads a file that contains sensitive data, from the local filesystem."
        } else {
            "Reads a file from the local filesystem."
        })
        .attr("filename", Attr::string().required().description("Path to the file that will be read. The data source will return an error if the file does not exist."))
        .attr("content", content)
        .attr("content_base64", content_base64)
        .attr("id", Attr::string().computed().description("The hexadecimal encoding of the SHA1 checksum of the file content."));
    for (name, description) in CHECKSUMS {
        schema = schema.attr(name, Attr::string().computed().description(description));
    }
    DataSourceSpec::new(schema).read(|_, _, d| {
        let filename = d.get_string("filename").unwrap_or_default();
        let content = std::fs::read(&filename).map_err(|e| {
            Error::attribute(
                "filename",
                "Read local file data source error",
                format!("The file at given path cannot be read.\n\n+Original Error: {e}"),
            )
        })?;
        d.set_string("content", String::from_utf8_lossy(&content))?;
        d.set_string(
            "content_base64",
            base64::engine::general_purpose::STANDARD.encode(&content),
        )?;
        set_checksums(d, &content)
    })
}

#[cfg(test)]
mod tests;
