//! Test helpers: the shared scratch directory, the loopback HTTPS server
//! as a module registry, and git repositories.

use std::path::{Path, PathBuf};

pub(crate) use terrace_testsupport::TempDir;

pub(crate) use terrace_testsupport::https::{LoopbackHttps as HttpsServer, Reply};

/// A module registry's download answer: 204 with `X-Terraform-Get`.
pub(crate) fn terraform_get(location: &str) -> Reply {
    Reply::empty(204).header("X-Terraform-Get", location)
}

/// Registry settings that trust `server`'s certificate.
pub(crate) fn registry_config(
    server: &HttpsServer,
) -> terrace_getproviders::registry::RegistryConfig {
    terrace_getproviders::registry::RegistryConfig {
        http: terrace_getproviders::registry::HttpConfig {
            root_certificates: Some(vec![server.cert_der.clone()]),
            timeout: Some(std::time::Duration::from_secs(30)),
        },
        ..Default::default()
    }
}

/// Runs `git` with a fixed identity, panicking on failure (test set-up).
pub(crate) fn git(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args([
            "-c",
            "user.email=t@example.com",
            "-c",
            "user.name=t",
            "-c",
            "init.defaultBranch=main",
            "-c",
            "protocol.file.allow=always",
        ])
        .args(args)
        .current_dir(dir)
        .output();
    match out {
        Ok(o) if o.status.success() => {}
        Ok(o) => panic!(
            "git {args:?}: {}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ),
        Err(e) => panic!("git {args:?}: {e}"),
    }
}

/// Whether the system has a `git` to run.
/// Whether the system `git` runs; reported by the project's rule for
/// missing tools otherwise.
pub(crate) fn have_git() -> bool {
    terrace_testsupport::require_git()
}

/// A bare repository at `base/repo.git` whose `main` has two commits:
/// the first (tagged `v1`) with `main.tf`, `sub/main.tf` (calling
/// `./inner`) and `sub/inner/main.tf`; the second adds `v2.tf`.
pub(crate) fn bare_repo(base: &TempDir) -> PathBuf {
    let work = base.path().join("work");
    if let Err(e) = std::fs::create_dir_all(work.join("sub/inner")) {
        panic!("{e}");
    }
    let files = [
        ("main.tf", "output \"o\" {\n  value = 1\n}\n"),
        (
            "sub/main.tf",
            "module \"inner\" {\n  source = \"./inner\"\n}\n",
        ),
        ("sub/inner/main.tf", "variable \"x\" {\n  default = 1\n}\n"),
    ];
    for (name, text) in files {
        if let Err(e) = std::fs::write(work.join(name), text) {
            panic!("{e}");
        }
    }
    git(&work, &["init", "-q", "."]);
    git(&work, &["add", "-A"]);
    git(&work, &["commit", "-qm", "one"]);
    git(&work, &["tag", "v1"]);
    if let Err(e) = std::fs::write(work.join("v2.tf"), "locals {\n  two = 2\n}\n") {
        panic!("{e}");
    }
    git(&work, &["add", "-A"]);
    git(&work, &["commit", "-qm", "two"]);
    let bare = base.path().join("repo.git");
    git(base.path(), &["clone", "-q", "--bare", "work", "repo.git"]);
    bare
}
