//! File-system helpers with Go's semantics and error texts, because the
//! module installer's messages and recorded paths are Terraform's:
//! `filepath.Join`/`Clean` on slash-separated strings, `EvalSymlinks`, and
//! the copy of an earlier install (hidden entries such as `.git` left out).

use std::path::{Path, PathBuf};

// Go's texts for OS errors (`lstat /x: no such file or directory`), one
// implementation for both installers.
pub(crate) use terrace_getproviders::goerr::{errno_text, path_error};

/// Go's `path.Clean`.
pub(crate) fn clean(p: &str) -> String {
    terrace_config::module_source::clean_path(p)
}

/// Go's `filepath.Join` on slash-separated paths: empty parts skipped, the
/// result cleaned.
pub(crate) fn join(parts: &[&str]) -> String {
    let kept: Vec<&str> = parts.iter().copied().filter(|p| !p.is_empty()).collect();
    if kept.is_empty() {
        return String::new();
    }
    clean(&kept.join("/"))
}

/// A path as a slash-separated string.
pub(crate) fn slash(p: &Path) -> String {
    p.to_string_lossy().replace('\\', "/")
}

/// Go's `filepath.EvalSymlinks`: `p` with every symbolic link resolved,
/// relative when `p` is relative and no link points elsewhere absolutely;
/// the error names the first component that does not exist, as Go's does.
pub(crate) fn eval_symlinks(p: &str) -> Result<String, String> {
    let mut pending: Vec<String> = p.split('/').map(str::to_string).collect();
    pending.reverse();
    let mut resolved = if p.starts_with('/') {
        "/".to_string()
    } else {
        String::new()
    };
    let mut links = 0;
    while let Some(part) = pending.pop() {
        match part.as_str() {
            "" | "." => continue,
            ".." => {
                resolved = match resolved.as_str() {
                    "" => "..".into(),
                    "/" => "/".into(),
                    r if r == ".." || r.ends_with("/..") => format!("{r}/.."),
                    r => match r.rfind('/') {
                        Some(0) => "/".into(),
                        Some(i) => r[..i].to_string(),
                        None => String::new(),
                    },
                };
                continue;
            }
            _ => {}
        }
        let candidate = match resolved.as_str() {
            "" => part.clone(),
            "/" => format!("/{part}"),
            r => format!("{r}/{part}"),
        };
        let meta = std::fs::symlink_metadata(&candidate)
            .map_err(|e| path_error("lstat", Path::new(&candidate), &e))?;
        if !meta.file_type().is_symlink() {
            resolved = candidate;
            continue;
        }
        links += 1;
        if links > 255 {
            return Err("EvalSymlinks: too many links".into());
        }
        let target = std::fs::read_link(&candidate)
            .map_err(|e| path_error("readlink", Path::new(&candidate), &e))?;
        let target = slash(&target);
        if target.starts_with('/') {
            resolved = "/".into();
        }
        let mut more: Vec<String> = target.split('/').map(str::to_string).collect();
        more.reverse();
        pending.extend(more);
    }
    Ok(if resolved.is_empty() {
        ".".into()
    } else {
        clean(&resolved)
    })
}

/// Removes a file, link or directory tree; a missing path is fine.
pub(crate) fn remove_all(p: &Path) -> Result<(), String> {
    match std::fs::symlink_metadata(p) {
        Ok(m) if m.is_dir() => {
            std::fs::remove_dir_all(p).map_err(|e| path_error("unlinkat", p, &e))
        }
        Ok(_) => std::fs::remove_file(p).map_err(|e| path_error("remove", p, &e)),
        Err(_) => Ok(()),
    }
}

/// Terraform's copy of an earlier install of the same package: every
/// entry whose name does not start with a dot, directories made 0755,
/// files keeping their permissions, links recreated as links.
pub(crate) fn copy_dir(dst: &Path, src: &Path) -> Result<(), String> {
    let src = std::fs::canonicalize(src).map_err(|e| {
        format!(
            "failed to evaluate symlinks for source {}: {}",
            terrace_value::gostr::quote(&src.to_string_lossy()),
            path_error("lstat", src, &e)
        )
    })?;
    copy_tree(&src, dst)
}

fn copy_tree(src: &Path, dst: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let mut entries: Vec<PathBuf> = std::fs::read_dir(src)
        .map_err(|e| path_error("open", src, &e))?
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        let Some(name) = path.file_name() else {
            continue;
        };
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        let target = dst.join(name);
        let meta = std::fs::symlink_metadata(&path).map_err(|e| path_error("lstat", &path, &e))?;
        if meta.file_type().is_symlink() {
            let link = std::fs::read_link(&path).map_err(|e| path_error("readlink", &path, &e))?;
            std::os::unix::fs::symlink(&link, &target)
                .map_err(|e| path_error("symlink", &target, &e))?;
        } else if meta.is_dir() {
            std::fs::create_dir_all(&target).map_err(|e| path_error("mkdir", &target, &e))?;
            std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o755))
                .map_err(|e| path_error("chmod", &target, &e))?;
            copy_tree(&path, &target)?;
        } else {
            std::fs::copy(&path, &target).map_err(|e| path_error("open", &target, &e))?;
            std::fs::set_permissions(&target, meta.permissions())
                .map_err(|e| path_error("chmod", &target, &e))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::TempDir;

    #[test]
    fn joins_like_go() {
        for (parts, want) in [
            (&[".", "./modules/child"][..], "modules/child"),
            (&["modules/child", "./grand"], "modules/child/grand"),
            (&["other", "../modules/x"], "modules/x"),
            (&[".terraform/modules", "a.b"], ".terraform/modules/a.b"),
            (&["", "x"], "x"),
            (&["/abs", "../y"], "/y"),
        ] {
            assert_eq!(join(parts), want, "{parts:?}");
        }
    }

    #[test]
    fn symlinks_are_resolved_and_missing_parts_named() {
        let dir = TempDir::new("evalsym");
        dir.write_mode("real/x/main.tf", b"", 0o644);
        if let Err(e) = std::os::unix::fs::symlink("real", dir.path().join("link")) {
            panic!("{e}");
        }
        let base = slash(dir.path());
        assert_eq!(
            eval_symlinks(&format!("{base}/link/x")),
            Ok(format!("{base}/real/x"))
        );
        assert_eq!(
            eval_symlinks(&format!("{base}/real/../real/x")),
            Ok(format!("{base}/real/x"))
        );
        assert_eq!(
            eval_symlinks(&format!("{base}/nope/x")),
            Err(format!("lstat {base}/nope: no such file or directory"))
        );
    }

    #[test]
    fn copies_skip_hidden_entries() {
        let dir = TempDir::new("copydir");
        dir.write_mode("src/main.tf", b"a", 0o644);
        dir.write_mode("src/bin/run", b"#!", 0o755);
        dir.write_mode("src/.git/HEAD", b"ref", 0o644);
        dir.write_mode("src/.hidden", b"h", 0o644);
        if let Err(e) = std::os::unix::fs::symlink("main.tf", dir.path().join("src/alias.tf")) {
            panic!("{e}");
        }
        let dst = dir.path().join("dst");
        if let Err(e) = std::fs::create_dir(&dst)
            .map_err(|e| e.to_string())
            .and_then(|()| copy_dir(&dst, &dir.path().join("src")))
        {
            panic!("{e}");
        }
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::read(dst.join("main.tf")).ok(), Some(b"a".to_vec()));
        assert_eq!(
            std::fs::metadata(dst.join("bin/run"))
                .map(|m| m.permissions().mode() & 0o777)
                .ok(),
            Some(0o755)
        );
        assert!(!dst.join(".git").exists() && !dst.join(".hidden").exists());
        assert_eq!(
            std::fs::read_link(dst.join("alias.tf")).ok(),
            Some(PathBuf::from("main.tf"))
        );
    }
}
