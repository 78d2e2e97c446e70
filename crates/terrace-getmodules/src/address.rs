//! Remote module package addresses as go-getter normalizes them before
//! Terraform records or fetches them: a forced getter (`git::`), shorthand
//! detection (`github.com/org/repo` becomes
//! `git::https://github.com/org/repo.git`, `git@host:path` becomes
//! `git::ssh://git@host/path`, absolute paths become `file:///...`), and the
//! `//subdir` part split off (a query string stays with the package).

use crate::fsutil;

/// A package address split into its go-getter parts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackageAddr {
    /// The forced getter (`git` in `git::https://...`), if any.
    pub forced: Option<String>,
    /// The URL the getter is given.
    pub url: String,
}

impl PackageAddr {
    /// Splits `git::URL` into the getter name and the URL.
    pub fn parse(package: &str) -> PackageAddr {
        match forced_getter(package) {
            Some((g, rest)) => PackageAddr {
                forced: Some(g.to_string()),
                url: rest.to_string(),
            },
            None => PackageAddr {
                forced: None,
                url: package.to_string(),
            },
        }
    }

    /// The getter that handles this address: the forced one, else the
    /// URL's scheme.
    pub fn getter(&self) -> String {
        match &self.forced {
            Some(g) => g.clone(),
            None => url_scheme(&self.url)
                .unwrap_or_default()
                .to_ascii_lowercase(),
        }
    }
}

/// go-getter's `getForcedGetter`: `NAME::rest` with an alphanumeric name.
fn forced_getter(s: &str) -> Option<(&str, &str)> {
    let (name, rest) = s.split_once("::")?;
    (!name.is_empty() && !rest.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric()))
        .then_some((name, rest))
}

/// The scheme of an absolute URL (Go's `url.Parse` rules: a letter, then
/// letters, digits, `+`, `-` or `.`, then a colon), if it has one.
pub fn url_scheme(s: &str) -> Option<&str> {
    let colon = s.find(':')?;
    let scheme = &s[..colon];
    let mut bytes = scheme.bytes();
    let first = bytes.next()?;
    if !first.is_ascii_alphabetic() {
        return None;
    }
    if !bytes.all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'-' || b == b'.') {
        return None;
    }
    // Go's url.Parse refuses `host:port/path` style strings whose "scheme"
    // would be followed by digits and a slash only when the path has a
    // colon in its first segment; a scheme followed by a non-URL rest (as
    // in `git@github.com:org/repo`) is not a scheme because of the `@`.
    if scheme.contains('@') {
        return None;
    }
    Some(scheme)
}

/// go-getter's `SourceDirSubdir`: `pkg//sub?q` into `pkg?q` and `sub`
/// (not cleaned).
pub fn split_subdir(src: &str) -> (String, String) {
    let stop = src.find('?').unwrap_or(src.len());
    let offset = src[..stop].find("://").map(|i| i + 3).unwrap_or(0);
    let Some(idx) = src[offset..stop].find("//") else {
        return (src.to_string(), String::new());
    };
    let idx = idx + offset;
    let mut subdir = src[idx + 2..].to_string();
    let mut pkg = src[..idx].to_string();
    if let Some(q) = subdir.find('?') {
        pkg.push_str(&subdir[q..]);
        subdir.truncate(q);
    }
    (pkg, subdir)
}

/// Terraform's normalization of a remote package address (go-getter's
/// `Detect` with Terraform's detectors): the package in its canonical
/// form and any subdirectory the detection implied.
pub fn normalize_package(given: &str) -> Result<(String, String), String> {
    let (force, rest) = match forced_getter(given) {
        Some((f, r)) => (Some(f), r),
        None => (None, given),
    };
    let (src, subdir) = split_subdir(rest);
    if url_scheme(&src).is_some() && !looks_like_scp(&src) {
        let (pkg, sub) = split_subdir(given);
        return Ok((pkg, clean_subdir(&sub)));
    }
    let detected = detect(&src)?;
    let (detect_force, result) = match forced_getter(&detected) {
        Some((f, r)) => (Some(f.to_string()), r.to_string()),
        None => (None, detected.clone()),
    };
    let (result, detect_subdir) = split_subdir(&result);
    let subdir = match (detect_subdir.is_empty(), subdir.is_empty()) {
        (true, _) => subdir,
        (false, true) => detect_subdir,
        (false, false) => fsutil::join(&[&detect_subdir, &subdir]),
    };
    let package = match (force, detect_force) {
        (Some(f), _) => format!("{f}::{result}"),
        (None, Some(f)) => format!("{f}::{result}"),
        (None, None) => result,
    };
    Ok((package, clean_subdir(&subdir)))
}

fn clean_subdir(s: &str) -> String {
    if s.is_empty() {
        String::new()
    } else {
        fsutil::clean(s)
    }
}

/// `user@host:path`, which Go's URL parser would otherwise read as having
/// the scheme `user@host`.
fn looks_like_scp(s: &str) -> bool {
    let Some(colon) = s.find(':') else {
        return false;
    };
    let head = &s[..colon];
    head.contains('@') && !s[colon..].starts_with("://")
}

/// go-getter's detectors in Terraform's order: GitHub, Git (scp-like SSH),
/// BitBucket, GCS, S3, then absolute file paths.
fn detect(src: &str) -> Result<String, String> {
    // The GitHub detector looks at the address without its query string,
    // which Terraform puts back afterwards.
    let (no_query, query) = match src.split_once('?') {
        Some((a, q)) => (a, Some(q)),
        None => (src, None),
    };
    if let Some(rest) = no_query.strip_prefix("github.com/") {
        let parts: Vec<&str> = rest.split('/').collect();
        if parts.len() < 2 {
            return Err("GitHub URLs should be github.com/username/repo".into());
        }
        let mut url = format!("https://github.com/{}/{}", parts[0], parts[1]);
        if !url.ends_with(".git") {
            url.push_str(".git");
        }
        if parts.len() > 2 {
            url.push_str("//");
            url.push_str(&parts[2..].join("/"));
        }
        if let Some(q) = query {
            url.push('?');
            url.push_str(q);
        }
        return Ok(format!("git::{url}"));
    }
    if let Some(ssh) = detect_scp(src) {
        return Ok(ssh);
    }
    if let Some(rest) = src.strip_prefix("bitbucket.org/") {
        // The real detector asks BitBucket's API whether the repository
        // is git or Mercurial; git is all that is left today.
        let parts: Vec<&str> = rest.splitn(3, '/').collect();
        if parts.len() < 2 {
            return Err("BitBucket URLs should be bitbucket.org/username/repo".into());
        }
        return Ok(format!(
            "git::https://bitbucket.org/{}/{}.git",
            parts[0],
            parts[1].trim_end_matches(".git")
        ));
    }
    if src.contains("googleapis.com/") {
        return Ok(format!("gcs::https://{src}"));
    }
    if src.contains(".amazonaws.com/") {
        return Ok(format!("s3::https://{src}"));
    }
    if src.starts_with('/') {
        return Ok(format!("file://{src}"));
    }
    Err(format!(
        "{} cannot detect a supported external module source type for {src}",
        crate::PRODUCT
    ))
}

/// go-getter's Git detector: `git@host:path[?query]` as an `ssh://` URL
/// (only for the user `git`), the query re-encoded in key order.
fn detect_scp(src: &str) -> Option<String> {
    let (user, rest) = src.split_once('@')?;
    if user.is_empty() || user.contains(':') || user != "git" {
        return None;
    }
    let (host, path) = rest.split_once(':')?;
    if host.is_empty() || host.contains('/') {
        return None;
    }
    let path = path.strip_prefix('/').unwrap_or(path);
    if path.is_empty() {
        return None;
    }
    let (path, query) = match path.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (path, None),
    };
    let mut url = format!("git::ssh://{user}@{host}/{path}");
    if let Some(q) = query {
        let mut pairs: Vec<&str> = q.split('&').filter(|p| !p.is_empty()).collect();
        pairs.sort_by_key(|p| p.split('=').next().unwrap_or(""));
        if !pairs.is_empty() {
            url.push('?');
            url.push_str(&pairs.join("&"));
        }
    }
    Some(url)
}

/// How Terraform prints a remote source: the package with the
/// subdirectory put back before any query string.
pub fn display_remote(package: &str, subdir: &str) -> String {
    if subdir.is_empty() {
        return package.to_string();
    }
    match package.split_once('?') {
        Some((base, q)) => format!("{base}//{subdir}?{q}"),
        None => format!("{package}//{subdir}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_like_terraform() {
        for (given, package, subdir) in [
            (
                "git::https://example.com/x.git?ref=v1",
                "git::https://example.com/x.git?ref=v1",
                "",
            ),
            (
                "git::file:///tmp/r.git//sub?ref=v1",
                "git::file:///tmp/r.git?ref=v1",
                "sub",
            ),
            (
                "github.com/hashicorp/example",
                "git::https://github.com/hashicorp/example.git",
                "",
            ),
            (
                "github.com/hashicorp/example/modules/a?ref=v2",
                "git::https://github.com/hashicorp/example.git?ref=v2",
                "modules/a",
            ),
            (
                "git@github.com:org/repo.git",
                "git::ssh://git@github.com/org/repo.git",
                "",
            ),
            (
                "git::git@github.com:org/repo.git?ref=x&depth=1",
                "git::ssh://git@github.com/org/repo.git?depth=1&ref=x",
                "",
            ),
            ("https://example.com/m.zip", "https://example.com/m.zip", ""),
            (
                "https://example.com/m.tgz//a/./b",
                "https://example.com/m.tgz",
                "a/b",
            ),
            ("/abs/module", "file:///abs/module", ""),
            (
                "bitbucket.org/o/r",
                "git::https://bitbucket.org/o/r.git",
                "",
            ),
            (
                "bucket.s3.amazonaws.com/m.zip",
                "s3::https://bucket.s3.amazonaws.com/m.zip",
                "",
            ),
        ] {
            assert_eq!(
                normalize_package(given),
                Ok((package.to_string(), subdir.to_string())),
                "{given}"
            );
        }
        assert_eq!(
            normalize_package("github.com/only"),
            Err("GitHub URLs should be github.com/username/repo".to_string())
        );
    }

    #[test]
    fn getters_and_display() {
        assert_eq!(PackageAddr::parse("git::https://x/y").getter(), "git");
        assert_eq!(PackageAddr::parse("HTTPS://x/y").getter(), "https");
        assert_eq!(PackageAddr::parse("file:///x").getter(), "file");
        assert_eq!(
            display_remote("git::https://x/y.git?ref=v1", "sub"),
            "git::https://x/y.git//sub?ref=v1"
        );
        assert_eq!(
            split_subdir("https://h/p//a//b?x=1"),
            ("https://h/p?x=1".to_string(), "a//b".to_string())
        );
        assert_eq!(url_scheme("127.0.0.1:8080/x"), None);
        assert_eq!(url_scheme("c:/x"), Some("c"));
    }
}
