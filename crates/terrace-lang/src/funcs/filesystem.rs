//! Built-in functions: the file system (`file`, `filebase64`, `fileexists`,
//! `fileset`, `abspath`, `basename`, `dirname`, `pathexpand`) and the file
//! reading shared with the `file*` hash functions.
//!
//! Relative paths resolve against `CallContext::base_dir` (the module
//! directory), after `~` expansion, as Terraform's file functions do; path
//! manipulation follows Go's `path/filepath` (lexical cleaning, `Rel`), and
//! `fileset` follows the `doublestar` glob package Terraform uses (`**` for
//! any number of directories, `{a,b}` alternatives, hidden files included).
//! Messages reproduce Go's `os` errors, e.g. `open x: no such file or
//! directory`.

mod glob;

use super::encoding::base64_encode;
use super::{
    arg_str, redact, CallContext, Function, FunctionError, FunctionResult, Param, ReturnType,
};
use std::io::Read;
use terrace_value::{Marks, Type, Value};

pub(crate) fn register(out: &mut Vec<Function>) {
    let path_param = || Param::new("path", Type::String);
    out.push(Function::new(
        "file",
        vec![path_param().allow_marked()],
        ReturnType::Static(Type::String),
        file,
    ));
    out.push(Function::new(
        "filebase64",
        vec![path_param().allow_marked()],
        ReturnType::Static(Type::String),
        filebase64,
    ));
    out.push(Function::new(
        "fileexists",
        vec![path_param().allow_marked()],
        ReturnType::Static(Type::Bool),
        fileexists,
    ));
    out.push(Function::new(
        "fileset",
        vec![
            path_param().allow_marked(),
            Param::new("pattern", Type::String).allow_marked(),
        ],
        ReturnType::Static(Type::set(Type::String)),
        fileset,
    ));
    out.push(Function::new(
        "abspath",
        vec![path_param()],
        ReturnType::Static(Type::String),
        abspath,
    ));
    out.push(Function::new(
        "basename",
        vec![path_param()],
        ReturnType::Static(Type::String),
        basename,
    ));
    out.push(Function::new(
        "dirname",
        vec![path_param()],
        ReturnType::Static(Type::String),
        dirname,
    ));
    out.push(Function::new(
        "pathexpand",
        vec![path_param()],
        ReturnType::Static(Type::String),
        pathexpand,
    ));
}

fn unmarked_str(value: &Value) -> (String, Marks) {
    let (value, marks) = value.clone().unmark();
    (value.as_str().unwrap_or_default().to_string(), marks)
}

// ----- Go's path/filepath, for Unix -----

/// `filepath.Clean`: the shortest equivalent path, lexically.
pub(super) use terrace_gocompat::path::clean as go_clean;

/// `filepath.Join`: the non-empty elements joined and cleaned.
pub(super) fn go_join(elements: &[&str]) -> String {
    let parts: Vec<&str> = elements.iter().copied().filter(|e| !e.is_empty()).collect();
    if parts.is_empty() {
        return String::new();
    }
    go_clean(&parts.join("/"))
}

fn go_base(path: &str) -> String {
    if path.is_empty() {
        return ".".to_string();
    }
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() {
        return "/".to_string();
    }
    match trimmed.rfind('/') {
        Some(i) => trimmed[i + 1..].to_string(),
        None => trimmed.to_string(),
    }
}

fn go_dir(path: &str) -> String {
    let end = path.rfind('/').map_or(0, |i| i + 1);
    go_clean(&path[..end])
}

/// `filepath.Rel`.
pub(super) fn go_rel(base_path: &str, target_path: &str) -> Result<String, String> {
    let cant = || format!("Rel: can't make {target_path} relative to {base_path}");
    let base = go_clean(base_path);
    let target = go_clean(target_path);
    if target == base {
        return Ok(".".to_string());
    }
    let base = if base == "." { String::new() } else { base };
    if base.starts_with('/') != target.starts_with('/') {
        return Err(cant());
    }
    let (b, t) = (base.as_bytes(), target.as_bytes());
    let (bl, tl) = (b.len(), t.len());
    let (mut b0, mut bi, mut t0, mut ti) = (0, 0, 0, 0);
    loop {
        while bi < bl && b[bi] != b'/' {
            bi += 1;
        }
        while ti < tl && t[ti] != b'/' {
            ti += 1;
        }
        if target[t0..ti] != base[b0..bi] {
            break;
        }
        if bi < bl {
            bi += 1;
        }
        if ti < tl {
            ti += 1;
        }
        b0 = bi;
        t0 = ti;
        if b0 >= bl && t0 >= tl {
            break;
        }
    }
    if &base[b0..bi] == ".." {
        return Err(cant());
    }
    if b0 != bl {
        let seps = base[b0..bl].matches('/').count();
        let mut out = String::from("..");
        for _ in 0..seps {
            out.push_str("/..");
        }
        if t0 != tl {
            out.push('/');
            out.push_str(&target[t0..]);
        }
        return Ok(out);
    }
    Ok(target[t0..].to_string())
}

fn home_dir() -> Result<String, String> {
    match std::env::var("HOME") {
        Ok(home) if !home.is_empty() => Ok(home),
        _ => Err("blank output when reading home directory".to_string()),
    }
}

/// go-homedir's `Expand`: a leading `~` or `~/` becomes the home directory.
pub(super) fn expand_home(path: &str) -> Result<String, String> {
    if !path.starts_with('~') {
        return Ok(path.to_string());
    }
    if path.len() > 1 && !path[1..].starts_with('/') && !path[1..].starts_with('\\') {
        return Err("cannot expand user-specific home dir".to_string());
    }
    Ok(go_join(&[&home_dir()?, &path[1..]]))
}

/// Where a path argument points: `~` expanded, then relative paths joined
/// to the module directory, cleaned.
pub(super) fn resolve_path(ctx: &CallContext<'_>, path: &str) -> Result<String, String> {
    let path = expand_home(path).map_err(|e| format!("failed to expand ~: {e}"))?;
    if path.starts_with('/') {
        return Ok(go_clean(&path));
    }
    Ok(go_join(&[&ctx.base_dir.to_string_lossy(), &path]))
}

/// Go's `*os.PathError` text: `op path: reason`.
pub(super) fn path_error(op: &str, path: &str, error: &std::io::Error) -> String {
    terrace_gocompat::oserror::path_error(op, std::path::Path::new(path), error)
}

/// Why reading a file failed, keeping apart the cases Terraform words
/// differently.
pub(super) enum ReadError {
    /// `~` could not be expanded.
    Expand(String),
    /// The file does not exist (Go's `os.IsNotExist` on open).
    NotFound,
    Open(String),
    Read(String),
}

/// Reads a file as Terraform's file functions do (`os.Open`, then reading
/// it all).
pub(super) fn read_file(ctx: &CallContext<'_>, path: &str) -> Result<Vec<u8>, ReadError> {
    let resolved = resolve_path(ctx, path).map_err(ReadError::Expand)?;
    let mut file = std::fs::File::open(&resolved).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => ReadError::NotFound,
        _ => ReadError::Open(path_error("open", &resolved, &e)),
    })?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(|e| ReadError::Read(path_error("read", &resolved, &e)))?;
    Ok(bytes)
}

/// `readFileBytes`: the contents for `file` and `filebase64`, with
/// Terraform's hint when the file does not exist.
fn read_file_for_contents(
    ctx: &CallContext<'_>,
    path: &str,
    marks: Marks,
) -> FunctionResult<Vec<u8>> {
    read_file(ctx, path).map_err(|e| {
        let message = match e {
            ReadError::Expand(message) | ReadError::Open(message) => message,
            ReadError::NotFound => format!(
                "no file exists at {}; this function works only with files that are distributed as part of the \
                 configuration source code, so if this file will be created by a resource in this configuration you \
                 must instead obtain this result from an attribute of that resource",
                redact(path, marks)
            ),
            ReadError::Read(message) => format!("failed to read file: {message}"),
        };
        FunctionError::arg(0, message)
    })
}

/// The contents of a UTF-8 text file, read as `file` and `templatefile`
/// read it.
pub(super) fn read_text_file(
    ctx: &CallContext<'_>,
    path: &str,
    marks: Marks,
) -> FunctionResult<String> {
    let bytes = read_file_for_contents(ctx, path, marks)?;
    String::from_utf8(bytes).map_err(|_| {
        FunctionError::call(format!(
            "contents of {} are not valid UTF-8; use the filebase64 function to obtain the Base64 encoded contents or \
             the other file functions (e.g. filemd5, filesha256) to obtain file hashing results instead",
            redact(path, marks)
        ))
    })
}

fn file(ctx: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let (path, marks) = unmarked_str(&args[0]);
    let text = read_text_file(ctx, &path, marks)?;
    Ok(Value::string(text).mark(marks))
}

fn filebase64(ctx: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let (path, marks) = unmarked_str(&args[0]);
    let bytes = read_file_for_contents(ctx, &path, marks)?;
    Ok(Value::string(base64_encode(&bytes)).mark(marks))
}

fn fileexists(ctx: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    use std::os::unix::fs::FileTypeExt;
    let (path, marks) = unmarked_str(&args[0]);
    let resolved = resolve_path(ctx, &path).map_err(FunctionError::call)?;
    let shown = redact(&resolved, marks);
    let metadata = match std::fs::metadata(&resolved) {
        Ok(metadata) => metadata,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Value::bool(false).mark(marks))
        }
        Err(_) => return Err(FunctionError::call(format!("failed to stat {shown}"))),
    };
    let kind = metadata.file_type();
    if kind.is_file() {
        return Ok(Value::bool(true).mark(marks));
    }
    let message = if kind.is_dir() {
        format!("{shown} is a directory, not a file")
    } else if kind.is_block_device() || kind.is_char_device() {
        format!("{shown} is a device node, not a regular file")
    } else if kind.is_fifo() {
        format!("{shown} is a named pipe, not a regular file")
    } else if kind.is_socket() {
        format!("{shown} is a unix domain socket, not a regular file")
    } else {
        format!("{shown} is not a regular file")
    };
    Err(FunctionError::call(message))
}

fn fileset(ctx: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let (path, path_marks) = unmarked_str(&args[0]);
    let (pattern, pattern_marks) = unmarked_str(&args[1]);
    let marks = path_marks.union(pattern_marks);
    let path = if path.starts_with('/') {
        path
    } else {
        go_join(&[&ctx.base_dir.to_string_lossy(), &path])
    };
    let pattern = go_join(&[&path, &pattern]);
    let matches = glob::glob(&pattern).map_err(|e| {
        FunctionError::call(format!(
            "failed to glob pattern {}: {e}",
            redact(&pattern, marks)
        ))
    })?;
    let mut found = Vec::new();
    for matched in matches {
        let metadata = std::fs::metadata(&matched).map_err(|e| {
            FunctionError::call(format!(
                "failed to stat {}: {}",
                redact(&matched, marks),
                path_error("stat", &matched, &e)
            ))
        })?;
        if !metadata.is_file() {
            continue;
        }
        let relative = go_rel(&path, &matched).map_err(|e| {
            FunctionError::call(format!(
                "failed to trim path of match {}: {e}",
                redact(&matched, marks)
            ))
        })?;
        found.push(Value::string(relative));
    }
    Ok(Value::set(Type::String, found).mark(marks))
}

fn abspath(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    let path = arg_str(args, 0)?;
    // Like Go's `filepath.Abs`, relative to the process's working directory
    // (which is what `path.module` is relative to), not the module.
    if path.starts_with('/') {
        return Ok(Value::string(go_clean(path)));
    }
    let cwd =
        std::env::current_dir().map_err(|e| FunctionError::call(path_error("getwd", "", &e)))?;
    Ok(Value::string(go_join(&[&cwd.to_string_lossy(), path])))
}

fn basename(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    Ok(Value::string(go_base(arg_str(args, 0)?)))
}

fn dirname(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    Ok(Value::string(go_dir(arg_str(args, 0)?)))
}

fn pathexpand(_: &CallContext<'_>, args: &[Value], _: &Type) -> FunctionResult<Value> {
    expand_home(arg_str(args, 0)?)
        .map(Value::string)
        .map_err(FunctionError::call)
}

#[cfg(test)]
mod tests;
