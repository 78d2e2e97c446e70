//! `terrace fmt` against `terraform fmt`'s recorded behaviour: every
//! scenario in `tests/fmt/scenarios` runs in a fresh copy of
//! `tests/fmt/tree/` (with the named standard input) and must exit with the
//! same status, print the same bytes on both streams (file listings, `-diff`
//! output, formatted text, diagnostics, flag errors) and rewrite the same
//! files to the same content as terraform 1.11.4 did, as recorded in
//! `tests/fmt/expected/` by `scripts/record-fmt-expectations`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use terrace_testsupport::recording;

fn base() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fmt")
}

/// terraform's text as terrace prints it (terrace's name where terraform
/// names itself).
fn normalize(text: &str) -> String {
    terrace_testsupport::product::as_terrace(text)
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create a directory");
    for entry in std::fs::read_dir(from).expect("read the fixture tree") {
        let entry = entry.expect("a directory entry");
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy a fixture file");
        }
    }
}

fn snapshot(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        if path.is_dir() {
            snapshot(root, &path, out);
        } else {
            let name = path
                .strip_prefix(root)
                .unwrap_or(&path)
                .display()
                .to_string();
            out.push((name, std::fs::read(&path).unwrap_or_default()));
        }
    }
}

#[test]
fn terrace_fmt_prints_exits_and_rewrites_as_terraform_recorded() {
    let scenarios =
        std::fs::read_to_string(base().join("scenarios")).expect("read tests/fmt/scenarios");
    let mut failures = Vec::new();
    let mut count = 0;
    for line in scenarios.lines() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let parts: Vec<&str> = line.split('|').map(str::trim).collect();
        let [name, stdin, args] = parts.as_slice() else {
            panic!("bad scenario line {line:?}");
        };
        count += 1;
        let Some(expected) = recording::read(&base().join(format!("expected/{name}.txt"))) else {
            failures.push(format!(
                "{name}: no readable recording (scripts/record-fmt-expectations)"
            ));
            continue;
        };
        let work = std::env::temp_dir().join(format!(
            "terrace-fmt-scenario-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&work);
        copy_tree(&base().join("tree"), &work);
        let mut before = Vec::new();
        snapshot(&work, &work, &mut before);

        let input = if *stdin == "-" {
            Vec::new()
        } else {
            std::fs::read(base().join("stdin").join(stdin)).expect("read a stdin fixture")
        };
        let mut child = Command::new(env!("CARGO_BIN_EXE_terrace"))
            .arg("fmt")
            .args(args.split_whitespace())
            .current_dir(&work)
            .env_remove("NO_COLOR")
            .env_remove("TF_CLI_ARGS")
            .env_remove("TF_CLI_ARGS_fmt")
            // As recorded: a CLI configuration with nothing in it.
            .env("TF_CLI_CONFIG_FILE", "/dev/null")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run terrace");
        if let Some(mut pipe) = child.stdin.take() {
            let _ = pipe.write_all(&input);
        }
        let output = child.wait_with_output().expect("wait for terrace");
        let mut after = Vec::new();
        snapshot(&work, &work, &mut after);
        let _ = std::fs::remove_dir_all(&work);

        let exit = output.status.code().unwrap_or(-1);
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        if exit != expected.exit {
            failures.push(format!("{name}: exit {exit}, terraform {}", expected.exit));
        }
        if stdout != normalize(&expected.stdout) {
            failures.push(format!(
                "{name}: stdout\n{stdout:?}\nterraform\n{:?}",
                normalize(&expected.stdout)
            ));
        }
        if stderr != normalize(&expected.stderr) {
            failures.push(format!(
                "{name}: stderr\n{stderr:?}\nterraform\n{:?}",
                normalize(&expected.stderr)
            ));
        }
        let mut rewritten: Vec<(String, String)> = after
            .iter()
            .filter(|file| !before.contains(file))
            .map(|(path, bytes)| (path.clone(), String::from_utf8_lossy(bytes).into_owned()))
            .collect();
        rewritten.sort();
        if rewritten != expected.rewritten {
            failures.push(format!(
                "{name}: rewrote {rewritten:?}\nterraform rewrote {:?}",
                expected.rewritten
            ));
        }
    }
    assert!(count >= 20, "expected the scenarios in tests/fmt/scenarios");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// A directory's entry that cannot be read (a dangling symbolic link) is
/// named in the error's summary, as terraform 1.11.4 words it; a link to a
/// file is formatted like the file, a link to a directory is not followed.
#[cfg(unix)]
#[test]
fn unreadable_entries_are_named_and_links_to_directories_are_not_followed() {
    let work = std::env::temp_dir().join(format!("terrace-fmt-links-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(work.join("d")).expect("create a directory");
    std::fs::write(work.join("d/a.tf"), "a=1\n").expect("write a file");
    std::os::unix::fs::symlink("d", work.join("link")).expect("link a directory");
    std::os::unix::fs::symlink("d/a.tf", work.join("l.tf")).expect("link a file");
    let run = |args: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_terrace"))
            .arg("fmt")
            .args(args)
            .current_dir(&work)
            .env("TF_CLI_CONFIG_FILE", "/dev/null")
            .output()
            .expect("run terrace");
        (
            output.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    let listed = run(&["-check", "-recursive", "-no-color"]);
    std::os::unix::fs::symlink("nowhere.tf", work.join("dangling.tf")).expect("link nothing");
    let dangling = run(&["-check", "-recursive", "-no-color"]);
    let _ = std::fs::remove_dir_all(&work);
    assert_eq!(listed, (3, "d/a.tf\nl.tf\n".to_string(), String::new()));
    assert_eq!(
        dangling,
        (
            2,
            String::new(),
            "\nError: Failed to read file dangling.tf\n\n\n".to_string()
        )
    );
}
