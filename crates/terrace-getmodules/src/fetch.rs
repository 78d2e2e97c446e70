//! Fetching a remote module package into a directory, with go-getter's
//! getters as Terraform configures them: `git` (the system `git` program:
//! clone, checkout of `?ref=`, shallow with `?depth=`, `?sshkey=`,
//! submodules), `http`/`https` (archives by extension or `?archive=`, else
//! the `X-Terraform-Get` header or `terraform-get` meta tag of the page),
//! and `file` (a symbolic link to the directory, or an archive to unpack).
//! `s3`, `gcs`, `hg` and `oci` packages are refused with go-getter's
//! "download not supported" error.
//!
//! A package fetched once is copied (hidden entries left out) for any other
//! call that names the same package, as Terraform does. A fetch that fails
//! leaves nothing behind at the destination.

use crate::address::{split_subdir, PackageAddr};
use crate::archive::{archive_type_of, decompress_into_dir, ARCHIVE_TYPES};
use crate::fsutil::{copy_dir, path_error, remove_all};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use terrace_getproviders::registry::{resolve_url, Http};
use terrace_gocompat::url::query_escape;

/// The most `X-Terraform-Get` redirections followed (Terraform's limit).
const MAX_TERRAFORM_GET: usize = 10;

/// Fetches module packages; remembers where each package went.
pub struct PackageFetcher {
    http: Http,
    previous: HashMap<String, PathBuf>,
}

impl PackageFetcher {
    pub fn new(http: Http) -> PackageFetcher {
        PackageFetcher {
            http,
            previous: HashMap::new(),
        }
    }

    /// Stops reusing an earlier fetch of `package` (whose directory was
    /// removed again).
    pub fn forget(&mut self, package: &str) {
        self.previous.remove(package);
    }

    /// Fetches the (normalized) package address into `inst_dir`, which
    /// must not exist yet. On failure `inst_dir` is removed again.
    pub fn fetch_package(&mut self, inst_dir: &Path, package: &str) -> Result<(), String> {
        let result = match self.previous.get(package) {
            Some(prev) => {
                let prev = prev.clone();
                std::fs::create_dir_all(inst_dir)
                    .map_err(|e| {
                        format!(
                            "failed to create directory {}: {}",
                            inst_dir.display(),
                            path_error("mkdir", inst_dir, &e)
                        )
                    })
                    .and_then(|()| {
                        copy_dir(inst_dir, &prev).map_err(|e| {
                            format!(
                                "failed to copy from {} to {}: {e}",
                                prev.display(),
                                inst_dir.display()
                            )
                        })
                    })
            }
            None => self.get(inst_dir, package, 0),
        };
        match result {
            Ok(()) => {
                self.previous
                    .insert(package.to_string(), inst_dir.to_path_buf());
                Ok(())
            }
            Err(e) => {
                let _ = remove_all(inst_dir);
                Err(e)
            }
        }
    }

    /// go-getter's `Client.Get` in directory mode.
    fn get(&self, dst: &Path, src: &str, depth: usize) -> Result<(), String> {
        let addr = PackageAddr::parse(src);
        // A subdirectory here can only come from an X-Terraform-Get reply:
        // fetch the whole package aside, then keep that subdirectory.
        let (url, subdir) = split_subdir(&addr.url);
        if !subdir.is_empty() {
            return self.get_subdir(dst, &addr, &url, &subdir, depth);
        }
        let getter = addr.getter();
        if !matches!(getter.as_str(), "git" | "http" | "https" | "file") {
            return Err(format!("download not supported for scheme '{getter}'"));
        }
        let (url, archive) = archive_param(&url);
        let archive = match archive {
            Some(a) => Some(a),
            None => archive_type_of(url_path(&url)).map(str::to_string),
        };
        if let Some(kind) = archive.filter(|k| ARCHIVE_TYPES.contains(&k.as_str())) {
            return self.get_archive(dst, &getter, &url, &kind);
        }
        let result = match getter.as_str() {
            "git" => git_get(dst, &url),
            "file" => file_get(dst, &url),
            _ => self.http_get(dst, &url, depth),
        };
        result.map_err(|e| format!("error downloading '{}': {e}", redact_url(&url)))
    }

    fn get_subdir(
        &self,
        dst: &Path,
        addr: &PackageAddr,
        url: &str,
        subdir: &str,
        depth: usize,
    ) -> Result<(), String> {
        let tmp = terrace_getproviders::fresh_temp_dir("getter")?;
        let whole = match &addr.forced {
            Some(f) => format!("{f}::{url}"),
            None => url.to_string(),
        };
        let result = self.get(&tmp.join("pkg"), &whole, depth).and_then(|()| {
            let found = subdir_glob(&tmp.join("pkg"), subdir)?;
            let _ = remove_all(dst);
            std::fs::create_dir_all(dst).map_err(|e| path_error("mkdir", dst, &e))?;
            copy_dir(dst, &found)
        });
        let _ = remove_all(&tmp);
        result
    }

    fn get_archive(&self, dst: &Path, getter: &str, url: &str, kind: &str) -> Result<(), String> {
        let tmp = terrace_getproviders::fresh_temp_dir("getter")?;
        let file = tmp.join("archive");
        let result = match getter {
            "file" => {
                let path = file_url_path(url);
                std::fs::copy(&path, &file)
                    .map(|_| ())
                    .map_err(|e| path_error("open", Path::new(&path), &e))
            }
            "http" | "https" => self.http_get_file(url, &file),
            _ => Err(format!("download not supported for scheme '{getter}'")),
        }
        .and_then(|()| decompress_into_dir(kind, &file, dst));
        let _ = remove_all(&tmp);
        result
    }

    /// go-getter's `HttpGetter.GetFile`.
    fn http_get_file(&self, url: &str, dest: &Path) -> Result<(), String> {
        // Streamed to the file, as go-getter copies it: a package is never
        // held in memory, whatever its size.
        match self.http.get_into_file(url, &[], dest)? {
            200 => Ok(()),
            status => Err(format!("bad response code: {status}")),
        }
    }

    /// go-getter's `HttpGetter.Get`: ask the URL (with `terraform-get=1`)
    /// where the package really is, and fetch that.
    fn http_get(&self, dst: &Path, url: &str, depth: usize) -> Result<(), String> {
        if depth >= MAX_TERRAFORM_GET {
            return Err(format!(
                "too many X-Terraform-Get redirects: {MAX_TERRAFORM_GET}"
            ));
        }
        let asked = add_query(url, "terraform-get", "1");
        let resp = self.http.get_response(&asked, &[], 10 * 1024 * 1024)?;
        if !(200..300).contains(&resp.status) {
            return Err(format!("bad response code: {}", resp.status));
        }
        let source = match resp.header("x-terraform-get") {
            Some(s) if !s.is_empty() => s.to_string(),
            _ => meta_terraform_get(&String::from_utf8_lossy(&resp.body))
                .ok_or_else(|| "no source URL was returned".to_string())?,
        };
        let source =
            if source.starts_with('/') || source.starts_with("./") || source.starts_with("../") {
                resolve_url(&resp.url, &source)
            } else {
                source
            };
        let (source, _) = crate::address::normalize_package(&source)
            .map(|(p, s)| (crate::address::display_remote(&p, &s), ()))?;
        self.get(dst, &source, depth + 1)
    }
}

/// The path part of a URL (no query or fragment).
fn url_path(url: &str) -> &str {
    let rest = url.split_once("://").map(|(_, r)| r).unwrap_or(url);
    let path_start = rest.find('/').unwrap_or(rest.len());
    let path = &rest[path_start..];
    path.split(['?', '#']).next().unwrap_or(path)
}

/// Splits the query parameter `archive` off a URL: go-getter's way of
/// naming the archive type; `archive=false` turns detection off.
fn archive_param(url: &str) -> (String, Option<String>) {
    let Some((base, query)) = url.split_once('?') else {
        return (url.to_string(), None);
    };
    let mut archive = None;
    let mut kept: Vec<(String, String)> = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let (k, v) = (percent_decode(k), percent_decode(v));
        if k == "archive" {
            if archive.is_none() {
                archive = Some(v);
            }
        } else {
            kept.push((k, v));
        }
    }
    let Some(archive) = archive else {
        return (url.to_string(), None);
    };
    // Go re-encodes the remaining query sorted by key.
    kept.sort_by(|a, b| a.0.cmp(&b.0));
    let encoded: Vec<String> = kept
        .iter()
        .map(|(k, v)| format!("{}={}", query_escape(k), query_escape(v)))
        .collect();
    let url = if encoded.is_empty() {
        base.to_string()
    } else {
        format!("{base}?{}", encoded.join("&"))
    };
    if archive == "false" {
        // Explicitly not an archive: no detection by extension either.
        return (url, Some(String::new()));
    }
    (url, Some(archive))
}

fn add_query(url: &str, key: &str, value: &str) -> String {
    let (base, fragment) = match url.split_once('#') {
        Some((b, f)) => (b, Some(f)),
        None => (url, None),
    };
    let sep = if base.contains('?') { '&' } else { '?' };
    let mut out = format!("{base}{sep}{key}={value}");
    if let Some(f) = fragment {
        out.push('#');
        out.push_str(f);
    }
    out
}

/// `%XX` escapes decoded; `+` is a space in query strings only.
fn percent_decode_with(s: &str, plus_is_space: bool) -> String {
    let hex = |c: u8| char::from(c).to_digit(16);
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let escaped = match (b[i], b.get(i + 1), b.get(i + 2)) {
            (b'%', Some(h), Some(l)) => hex(*h).zip(hex(*l)).map(|(h, l)| (h * 16 + l) as u8),
            _ => None,
        };
        match (escaped, b[i]) {
            (Some(v), _) => {
                out.push(v);
                i += 3;
            }
            (None, b'+') if plus_is_space => {
                out.push(b' ');
                i += 1;
            }
            (None, c) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A query-string component decoded.
fn percent_decode(s: &str) -> String {
    percent_decode_with(s, true)
}

/// go-getter's `RedactURL`: a password in the URL shown as `redacted`.
fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let auth_end = rest.find('/').unwrap_or(rest.len());
    let authority = &rest[..auth_end];
    match authority.rsplit_once('@') {
        Some((userinfo, host)) if userinfo.contains(':') => {
            let user = userinfo.split(':').next().unwrap_or("");
            format!("{scheme}://{user}:redacted@{host}{}", &rest[auth_end..])
        }
        _ => url.to_string(),
    }
}

/// The `content` of `<meta name="terraform-get" content="...">`.
fn meta_terraform_get(html: &str) -> Option<String> {
    let lower = html.to_ascii_lowercase();
    let mut from = 0;
    while let Some(i) = lower[from..].find("<meta") {
        let start = from + i;
        let end = lower[start..].find('>').map(|e| start + e)?;
        let tag = &html[start..end];
        let tag_lower = &lower[start..end];
        if attr(tag, tag_lower, "name").as_deref() == Some("terraform-get") {
            return attr(tag, tag_lower, "content");
        }
        from = end;
    }
    None
}

fn attr(tag: &str, tag_lower: &str, name: &str) -> Option<String> {
    let key = format!("{name}=");
    let mut from = 0;
    loop {
        let i = tag_lower[from..].find(&key)? + from;
        let before_ok = i == 0 || tag_lower.as_bytes()[i - 1].is_ascii_whitespace();
        let v = &tag[i + key.len()..];
        from = i + key.len();
        if !before_ok {
            continue;
        }
        return Some(match v.chars().next() {
            Some(q @ ('"' | '\'')) => v[1..].split(q).next().unwrap_or("").to_string(),
            _ => v
                .split(|c: char| c.is_whitespace() || c == '/')
                .next()
                .unwrap_or("")
                .to_string(),
        });
    }
}

/// go-getter's `SubdirGlob`: the subdirectory, with glob patterns
/// allowed as long as they match exactly one entry.
pub fn subdir_glob(dst: &Path, subdir: &str) -> Result<PathBuf, String> {
    let pattern = dst.join(subdir);
    if !subdir.contains(['*', '?', '[']) {
        if !pattern.exists() {
            return Err(format!(
                "subdir {} not found",
                terrace_value::gostr::quote(subdir)
            ));
        }
        return Ok(pattern);
    }
    let matches = glob(dst, subdir);
    match matches.len() {
        0 => Err(format!(
            "subdir {} not found",
            terrace_value::gostr::quote(subdir)
        )),
        1 => Ok(matches.into_iter().next().unwrap_or(pattern)),
        _ => Err(format!(
            "subdir {} matches multiple paths",
            terrace_value::gostr::quote(subdir)
        )),
    }
}

/// Go's `filepath.Glob` for `*`, `?` and `[...]` in each path element.
fn glob(base: &Path, pattern: &str) -> Vec<PathBuf> {
    let mut current = vec![base.to_path_buf()];
    for part in pattern.split('/').filter(|p| !p.is_empty() && *p != ".") {
        let mut next = Vec::new();
        for dir in &current {
            if !part.contains(['*', '?', '[']) {
                let p = dir.join(part);
                if std::fs::symlink_metadata(&p).is_ok() {
                    next.push(p);
                }
                continue;
            }
            let Ok(rd) = std::fs::read_dir(dir) else {
                continue;
            };
            let mut names: Vec<String> = rd
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            for n in names {
                if glob_match(part.as_bytes(), n.as_bytes()) {
                    next.push(dir.join(n));
                }
            }
        }
        current = next;
    }
    current
}

fn glob_match(p: &[u8], s: &[u8]) -> bool {
    match p.first() {
        None => s.is_empty(),
        Some(b'*') => (0..=s.len()).any(|i| glob_match(&p[1..], &s[i..])),
        Some(b'?') => !s.is_empty() && glob_match(&p[1..], &s[1..]),
        Some(b'[') => {
            let Some(close) = p.iter().position(|c| *c == b']') else {
                return false;
            };
            let Some(c) = s.first() else { return false };
            let class = &p[1..close];
            let (negate, class) = match class.first() {
                Some(b'^') => (true, &class[1..]),
                _ => (false, class),
            };
            let mut hit = false;
            let mut i = 0;
            while i < class.len() {
                if i + 2 < class.len() && class[i + 1] == b'-' {
                    hit |= class[i] <= *c && *c <= class[i + 2];
                    i += 3;
                } else {
                    hit |= class[i] == *c;
                    i += 1;
                }
            }
            hit != negate && glob_match(&p[close + 1..], &s[1..])
        }
        Some(c) => s.first() == Some(c) && glob_match(&p[1..], &s[1..]),
    }
}

fn file_url_path(url: &str) -> String {
    let rest = url.strip_prefix("file://").unwrap_or(url);
    let path = rest.split(['?', '#']).next().unwrap_or(rest);
    percent_decode_with(path, false)
}

/// go-getter's `FileGetter.Get`: a symbolic link to the directory.
fn file_get(dst: &Path, url: &str) -> Result<(), String> {
    let path = file_url_path(url);
    let meta = std::fs::metadata(&path).map_err(|e| {
        format!(
            "source path error: {}",
            path_error("stat", Path::new(&path), &e)
        )
    })?;
    if !meta.is_dir() {
        return Err("source path must be a directory".into());
    }
    if let Ok(m) = std::fs::symlink_metadata(dst) {
        if !m.file_type().is_symlink() {
            return Err("destination exists and is not a symlink".into());
        }
        let _ = std::fs::remove_file(dst);
    }
    if let Some(parent) = dst.parent() {
        std::fs::create_dir_all(parent).map_err(|e| path_error("mkdir", parent, &e))?;
    }
    std::os::unix::fs::symlink(&path, dst).map_err(|e| {
        format!(
            "symlink {path} {}: {}",
            dst.display(),
            crate::fsutil::errno_text(&e)
        )
    })
}

/// Where `git` is on `PATH` (Go's `exec.LookPath`), for error texts that
/// name the program as Go's `exec.Cmd.Path` does.
fn git_program() -> Result<PathBuf, String> {
    terrace_gocompat::exec::look_path("git")
        .map_err(|_| "git must be available and on the PATH".to_string())
}

/// go-getter's `getRunCommand`: stdout and stderr together, and the exit
/// status in the error.
fn run_git(
    git: &Path,
    args: &[&str],
    dir: Option<&Path>,
    ssh_key: Option<&Path>,
) -> Result<(), String> {
    let mut cmd = Command::new(git);
    cmd.args(args);
    if let Some(d) = dir {
        cmd.current_dir(d);
    }
    let mut ssh = match std::env::var("GIT_SSH_COMMAND") {
        Ok(v) if !v.is_empty() => v,
        _ => "ssh".to_string(),
    };
    if let Some(key) = ssh_key {
        ssh.push_str(&format!(" -i {}", key.display()));
    }
    cmd.env("GIT_SSH_COMMAND", ssh);
    // One buffer for both streams, in the order the program wrote them.
    let (reader, writer) =
        std::io::pipe().map_err(|e| format!("error running {}: {e}", git.display()))?;
    let writer2 = writer
        .try_clone()
        .map_err(|e| format!("error running {}: {e}", git.display()))?;
    cmd.stdin(std::process::Stdio::null())
        .stdout(writer)
        .stderr(writer2);
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("error running {}: {e}", git.display()))?;
    drop(cmd);
    let mut output = Vec::new();
    let mut reader = reader;
    let _ = std::io::Read::read_to_end(&mut reader, &mut output);
    let status = child
        .wait()
        .map_err(|e| format!("error running {}: {e}", git.display()))?;
    if status.success() {
        return Ok(());
    }
    let text = String::from_utf8_lossy(&output);
    match status.code() {
        Some(code) => Err(format!("{} exited with {code}: {text}", git.display())),
        None => Err(format!("error running {}: {text}", git.display())),
    }
}

/// go-getter's `GitGetter.Get` for a destination that does not exist.
fn git_get(dst: &Path, url: &str) -> Result<(), String> {
    let git = git_program()?;
    if let Some(port) = url_port(url) {
        if port.parse::<u16>().is_err() {
            return Err(format!(
                "invalid port number {}; if using the \"scp-like\" git address scheme where a colon introduces the path instead, remove the ssh:// portion and use just the git:: prefix",
                terrace_value::gostr::quote(port)
            ));
        }
    }
    let (base, query) = match url.split_once('?') {
        Some((b, q)) => (b.to_string(), Some(q)),
        None => (url.to_string(), None),
    };
    let mut reference = String::new();
    let mut ssh_key = String::new();
    let mut depth: i64 = 0;
    let mut rest: Vec<(String, String)> = Vec::new();
    if let Some(q) = query {
        for pair in q.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let (k, v) = (percent_decode(k), percent_decode(v));
            match k.as_str() {
                "ref" if reference.is_empty() => reference = v,
                "sshkey" if ssh_key.is_empty() => ssh_key = v,
                "depth" => depth = v.parse().unwrap_or(0),
                "ref" | "sshkey" => {}
                _ => rest.push((k, v)),
            }
        }
    }
    rest.sort_by(|a, b| a.0.cmp(&b.0));
    let clone_url = if rest.is_empty() {
        base
    } else {
        let q: Vec<String> = rest
            .iter()
            .map(|(k, v)| format!("{}={}", query_escape(k), query_escape(v)))
            .collect();
        format!("{base}?{}", q.join("&"))
    };
    let key_file = if ssh_key.is_empty() {
        None
    } else {
        use base64::Engine;
        let raw = base64::engine::general_purpose::STANDARD
            .decode(ssh_key.as_bytes())
            .map_err(|e| format!("failed to decode sshkey: {e}"))?;
        let dir = terrace_getproviders::fresh_temp_dir("go-getter")?;
        let file = dir.join("key");
        let written = std::fs::File::create(&file)
            .and_then(|f| {
                use std::os::unix::fs::PermissionsExt;
                f.set_permissions(std::fs::Permissions::from_mode(0o600))?;
                std::io::Write::write_all(&mut &f, &raw)
            })
            .map_err(|e| path_error("open", &file, &e));
        if let Err(e) = written {
            let _ = remove_all(&dir);
            return Err(e);
        }
        Some((dir, file))
    };
    let key = key_file.as_ref().map(|(_, f)| f.as_path());
    let dst_text = dst.to_string_lossy().into_owned();
    let result = (|| {
        let mut args: Vec<String> = vec!["clone".into()];
        if depth > 0 {
            args.push("--depth".into());
            args.push(depth.to_string());
            if !reference.is_empty() {
                args.push("--branch".into());
                args.push(reference.clone());
            }
        }
        args.push("--".into());
        args.push(clone_url.clone());
        args.push(dst_text.clone());
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        run_git(&git, &refs, None, key).map_err(|e| {
            let looks_like_commit = reference.len() >= 7
                && reference.len() <= 40
                && reference.bytes().all(|b| b.is_ascii_hexdigit());
            if depth > 0 && looks_like_commit {
                format!("{e} (note that setting 'depth' requires 'ref' to be a branch or tag name)")
            } else {
                e
            }
        })?;
        if !reference.is_empty() {
            run_git(&git, &["checkout", &reference], Some(dst), key)?;
        }
        let mut sub: Vec<String> = vec![
            "submodule".into(),
            "update".into(),
            "--init".into(),
            "--recursive".into(),
        ];
        if depth > 0 {
            sub.push("--depth".into());
            sub.push(depth.to_string());
        }
        let refs: Vec<&str> = sub.iter().map(String::as_str).collect();
        run_git(&git, &refs, Some(dst), key)
    })();
    if let Some((dir, _)) = key_file {
        let _ = remove_all(&dir);
    }
    result
}

fn url_port(url: &str) -> Option<&str> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = authority
        .rsplit_once('@')
        .map(|(_, h)| h)
        .unwrap_or(authority);
    if host.ends_with(']') {
        return None;
    }
    host.rsplit_once(':').map(|(_, p)| p)
}

/// The `git` program's path as error texts show it.
#[cfg(test)]
pub(crate) fn tests_git_program() -> String {
    git_program()
        .map(|p| p.display().to_string())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn archive_parameters() {
        assert_eq!(
            archive_param("https://h/x?archive=zip&b=2&a=1"),
            ("https://h/x?a=1&b=2".to_string(), Some("zip".to_string()))
        );
        assert_eq!(
            archive_param("https://h/x.zip?v=1"),
            ("https://h/x.zip?v=1".to_string(), None)
        );
        assert_eq!(
            archive_param("https://h/x.zip?archive=false"),
            ("https://h/x.zip".to_string(), Some(String::new()))
        );
        assert_eq!(url_path("https://h:1/a/b.tgz?x=1"), "/a/b.tgz");
        assert_eq!(percent_decode("a%2Fb+c%zz%é%4"), "a/b c%zz%é%4");
        assert_eq!(
            add_query("https://h/a?x=1", "terraform-get", "1"),
            "https://h/a?x=1&terraform-get=1"
        );
    }

    #[test]
    fn meta_tags_and_redaction() {
        assert_eq!(
            meta_terraform_get("<html><head><META name=\"terraform-get\" content=\"git::https://x/y.git\"></head></html>"),
            Some("git::https://x/y.git".to_string())
        );
        assert_eq!(
            meta_terraform_get("<meta name=\"other\" content=\"x\">"),
            None
        );
        assert_eq!(redact_url("https://u:secret@h/x"), "https://u:redacted@h/x");
        assert_eq!(redact_url("https://u@h/x"), "https://u@h/x");
    }

    #[test]
    fn globs() {
        assert!(glob_match(b"mod*", b"modules"));
        assert!(glob_match(b"m?d", b"mod"));
        assert!(glob_match(b"[a-c]x", b"bx"));
        assert!(!glob_match(b"[^a-c]x", b"bx"));
        assert!(!glob_match(b"a*", b"ba"));
    }

    #[test]
    fn unsupported_getters_are_refused() {
        let mut f = PackageFetcher::new(Http::new(&Default::default()));
        let dir = crate::testutil::TempDir::new("fetch-unsupported");
        let dst = dir.path().join("m");
        assert_eq!(
            f.fetch_package(&dst, "s3::https://b.s3.amazonaws.com/m.zip"),
            Err("download not supported for scheme 's3'".to_string())
        );
        assert!(!dst.exists());
    }
}
