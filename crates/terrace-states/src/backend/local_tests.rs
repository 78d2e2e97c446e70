//! Tests of the local backend against real directories; the messages are
//! what Terraform 1.11.4 printed in the same situations.

use super::*;
use crate::model::{ObjectState, OutputState};
use terrace_addrs::{AbsProviderConfig, AbsResourceInstance, InstanceKey};
use terrace_value::Value;

/// A fresh directory removed when dropped.
use terrace_testsupport::TempDir;

fn backend(dir: &Path) -> LocalBackend {
    LocalBackend::new(dir, LocalBackendOptions::default())
}

fn state_with(id: &str) -> State {
    let mut s = State::new_with_lineage("lin");
    let addr = AbsResourceInstance::parse_str("terraform_data.a").unwrap();
    let provider =
        AbsProviderConfig::parse_str("provider[\"terraform.io/builtin/terraform\"]").unwrap();
    let obj = ObjectState::from_value(
        &Value::object([("id".to_string(), Value::string(id))].into()),
        0,
    )
    .unwrap();
    s.set_current(&addr, provider, InstanceKey::None, Some(obj));
    s
}

fn tmp_files(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect()
}

#[test]
fn state_paths_follow_terraform() {
    let b = LocalBackend::new("/w", LocalBackendOptions::default());
    let p = |s: &str| PathBuf::from(s);
    assert_eq!(
        b.state_paths("default"),
        StatePaths {
            read: p("terraform.tfstate"),
            write: p("terraform.tfstate"),
            backup: Some(p("terraform.tfstate.backup")),
        }
    );
    assert_eq!(
        b.state_paths("dev"),
        StatePaths {
            read: p("terraform.tfstate.d/dev/terraform.tfstate"),
            write: p("terraform.tfstate.d/dev/terraform.tfstate"),
            backup: Some(p("terraform.tfstate.d/dev/terraform.tfstate.backup")),
        }
    );
    let opts = LocalBackendOptions {
        path: Some(p("custom.tfstate")),
        workspace_dir: Some(p("wsdir")),
        ..Default::default()
    };
    let b = LocalBackend::new("/w", opts);
    assert_eq!(b.state_paths("default").read, p("custom.tfstate"));
    assert_eq!(b.state_paths("dev").read, p("wsdir/dev/terraform.tfstate"));
    let opts = LocalBackendOptions {
        state: Some(p("in.tfstate")),
        state_out: Some(p("out.tfstate")),
        backup: Some("-".into()),
        ..Default::default()
    };
    let b = LocalBackend::new("/w", opts);
    assert_eq!(
        b.state_paths("dev"),
        StatePaths {
            read: p("in.tfstate"),
            write: p("out.tfstate"),
            backup: None,
        }
    );
    let opts = LocalBackendOptions {
        backup: Some("b.bak".into()),
        ..Default::default()
    };
    assert_eq!(
        LocalBackend::new("/w", opts).state_paths("default").backup,
        Some(p("b.bak"))
    );
    let b = LocalBackend::new("/w/x", LocalBackendOptions::default());
    assert_eq!(b.lock_info_path(), p("/w/x/.terraform.tfstate.lock.info"));
    let opts = LocalBackendOptions {
        state: Some(p(".hidden")),
        ..Default::default()
    };
    assert_eq!(
        LocalBackend::new("/w", opts).lock_info_path(),
        p("/w/.hidden.lock.info")
    );
}

#[test]
fn workspace_names_are_url_path_safe() {
    for ok in ["default", "dev-1", "a.b_c~d", "x$&+:=@"] {
        assert!(valid_workspace_name(ok), "{ok}");
    }
    for bad in ["a/b", "a b", "a;b", "a,b", "a?b", "é", "a%20"] {
        assert!(!valid_workspace_name(bad), "{bad}");
    }
}

#[test]
fn workspace_commands() {
    let t = TempDir::new("states-local");
    let mut b = backend(t.path());
    assert_eq!(b.workspaces().unwrap(), ["default"]);
    assert_eq!(b.current_workspace_with(None).unwrap(), "default");

    b.new_workspace_with("foo", None).unwrap();
    assert_eq!(b.workspace(), "foo");
    assert!(t.join("terraform.tfstate.d/foo").is_dir());
    assert_eq!(
        fs::read_to_string(t.join(".terraform/environment")).unwrap(),
        "foo"
    );
    let e = b.new_workspace_with("foo", None).unwrap_err();
    assert_eq!(e.to_string(), "Workspace \"foo\" already exists");
    let e = b.new_workspace_with("a/b", None).unwrap_err();
    assert_eq!(
        e.to_string(),
        "The workspace name \"a/b\" is not allowed. The name must contain only URL safe\ncharacters, and no path separators."
    );
    assert!(matches!(
        b.new_workspace_with("qq", Some("baz")),
        Err(WorkspaceError::OverriddenNew)
    ));
    assert_eq!(b.workspaces().unwrap(), ["default", "foo"]);

    let e = b.select_workspace_with("bar", false, None).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Workspace \"bar\" doesn't exist.\n\nYou can create this workspace with the \"new\" subcommand \nor include the \"-or-create\" flag with the \"select\" subcommand."
    );
    assert_eq!(
        b.select_workspace_with("foo", false, None).unwrap(),
        SelectOutcome::AlreadySelected
    );
    assert_eq!(
        b.select_workspace_with("default", false, None).unwrap(),
        SelectOutcome::Switched
    );
    assert_eq!(
        b.select_workspace_with("bar", true, None).unwrap(),
        SelectOutcome::Created
    );
    assert!(matches!(
        b.select_workspace_with("foo", false, Some("baz")),
        Err(WorkspaceError::OverriddenSelect)
    ));

    let e = b
        .delete_workspace_with("bar", false, None, None)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "Workspace \"bar\" is your active workspace.\n\nYou cannot delete the currently active workspace. Please switch\nto another workspace and try again."
    );
    b.select_workspace_with("foo", false, None).unwrap();
    let e = b
        .delete_workspace_with("default", false, None, None)
        .unwrap_err();
    assert_eq!(e.to_string(), "cannot delete default state");
    assert!(matches!(
        b.delete_workspace_with("nope", false, None, None),
        Err(WorkspaceError::DoesNotExist(_))
    ));
    // TF_WORKSPACE counts as the current workspace.
    assert!(matches!(
        b.delete_workspace_with("bar", false, None, Some("bar")),
        Err(WorkspaceError::DeleteCurrent(_))
    ));
    assert!(matches!(
        b.current_workspace_with(Some("a/b")),
        Err(WorkspaceError::InvalidEnvName)
    ));

    // A workspace with objects needs -force.
    b.select_workspace_with("default", false, None).unwrap();
    let mut other = backend(t.path());
    other.use_workspace("foo");
    other.write_state(&state_with("x")).unwrap();
    let e = b
        .delete_workspace_with("foo", false, Some(Duration::ZERO), None)
        .unwrap_err();
    let d = e.diagnostic().unwrap();
    assert_eq!(d.summary, "Workspace is not empty");
    assert!(d.detail.starts_with(
        "Workspace \"foo\" is currently tracking the following resource instances:\n  - terraform_data.a\n\nDeleting this workspace would cause terrace to lose track"
    ));
    assert!(t.join("terraform.tfstate.d/foo").is_dir());
    let out = b
        .delete_workspace_with("foo", true, Some(Duration::ZERO), None)
        .unwrap();
    assert!(out.was_non_empty);
    assert!(!t.join("terraform.tfstate.d/foo").exists());
    let out = b.delete_workspace_with("bar", false, None, None).unwrap();
    assert!(!out.was_non_empty);
    assert_eq!(b.workspaces().unwrap(), ["default"]);
    assert_eq!(messages::switched("x"), "Switched to workspace \"x\".");
}

#[test]
fn writes_bump_serial_only_on_change_and_back_up_once() {
    let t = TempDir::new("states-local");
    let mut b = backend(t.path());
    let (none, _) = b.read_state().unwrap();
    assert!(none.is_none());
    let mut s = state_with("a");
    s.lineage = "first".into();
    assert_eq!(b.write_state(&s).unwrap(), 1);
    assert!(
        !t.join("terraform.tfstate.backup").exists(),
        "nothing to back up yet"
    );
    assert_eq!(b.write_state(&s).unwrap(), 1, "same content, same serial");
    drop(b);

    // The next command: its first changing write backs up what was there.
    let before = fs::read(t.join("terraform.tfstate")).unwrap();
    let mut b = backend(t.path());
    let (read, _) = b.read_state().unwrap();
    let read = read.unwrap();
    assert_eq!(read.lineage, "first");
    let mut changed = state_with("b");
    changed.lineage = "ignored".into();
    assert_eq!(b.write_state(&changed).unwrap(), 2);
    assert_eq!(
        fs::read(t.join("terraform.tfstate.backup")).unwrap(),
        before
    );
    let mid = fs::read(t.join("terraform.tfstate")).unwrap();
    assert_eq!(b.write_state(&state_with("c")).unwrap(), 3);
    assert_eq!(
        fs::read(t.join("terraform.tfstate.backup")).unwrap(),
        before,
        "only the first write of a command backs up"
    );
    assert_ne!(mid, before);
    let (now, _) = b.read_state().unwrap();
    let now = now.unwrap();
    assert_eq!(now.lineage, "first", "lineage preserved");
    assert_eq!(now.serial, 3);
    assert!(tmp_files(t.path()).is_empty());
    drop(b);

    // An unchanged state makes no backup.
    fs::remove_file(t.join("terraform.tfstate.backup")).unwrap();
    let mut b = backend(t.path());
    b.read_state().unwrap();
    assert_eq!(b.write_state(&state_with("c")).unwrap(), 3);
    assert!(!t.join("terraform.tfstate.backup").exists());
}

#[test]
fn backups_can_be_disabled_and_paths_overridden() {
    let t = TempDir::new("states-local");
    fs::write(
        t.join("in.tfstate"),
        crate::statefile::write(&state_with("in")),
    )
    .unwrap();
    let opts = LocalBackendOptions {
        state: Some("in.tfstate".into()),
        state_out: Some("sub/out.tfstate".into()),
        backup: Some("-".into()),
        ..Default::default()
    };
    let mut b = LocalBackend::new(t.path(), opts);
    let (s, _) = b.read_state().unwrap();
    assert_eq!(s.unwrap().serial, 0);
    b.write_state(&state_with("out")).unwrap();
    let (s, _) = b.read_state().unwrap();
    assert_eq!(s.unwrap().serial, 1, "reads come from the written file");
    assert!(t.join("sub/out.tfstate").exists());
    assert!(!t.join("sub/out.tfstate.backup").exists());
    let (orig, _) = crate::statefile::read(&fs::read(t.join("in.tfstate")).unwrap()).unwrap();
    assert_eq!(orig.serial, 0, "the input is left alone");
}

#[test]
fn bad_state_files_are_reported() {
    let t = TempDir::new("states-local");
    fs::write(t.join("terraform.tfstate"), "").unwrap();
    let mut b = backend(t.path());
    assert!(
        b.read_state().unwrap().0.is_none(),
        "an empty file is no state"
    );
    fs::write(t.join("terraform.tfstate"), "{\"version\": 9}").unwrap();
    let e = b.read_state().unwrap_err();
    assert_eq!(
        e.to_string(),
        "Unsupported state file format: The state file uses format version 9, which is not supported by Terraform 1.11.4. This state file may have been created by a newer version of Terraform."
    );
    assert!(
        b.write_state(&state_with("x")).is_err(),
        "never overwrite what we cannot read"
    );
    let mut s = State::new_with_lineage("l");
    s.set_output(
        "u",
        Some(OutputState {
            value: Value::unknown(terrace_value::Type::String),
            sensitive: false,
        }),
    );
    fs::remove_file(t.join("terraform.tfstate")).unwrap();
    let mut b = backend(t.path());
    assert!(matches!(b.write_state(&s), Err(StateError::Serialize(_))));
}

#[cfg(unix)]
#[test]
fn permissions_are_kept_across_writes() {
    use std::os::unix::fs::PermissionsExt;
    let t = TempDir::new("states-local");
    let mut b = backend(t.path());
    b.write_state(&state_with("a")).unwrap();
    let path = t.join("terraform.tfstate");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
    b.write_state(&state_with("b")).unwrap();
    assert_eq!(
        fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o600
    );
}

#[test]
fn errored_state_goes_to_the_working_directory() {
    let t = TempDir::new("states-local");
    let b = backend(t.path());
    let path = b.write_errored_state(&state_with("e")).unwrap();
    assert_eq!(path, t.join("errored.tfstate"));
    let (s, _) = crate::statefile::read(&fs::read(&path).unwrap()).unwrap();
    assert_eq!(s.resources.len(), 1);
}

#[test]
fn two_handles_in_one_process_exclude_each_other() {
    let t = TempDir::new("states-local");
    let mut a = backend(t.path());
    let mut b = backend(t.path());
    let id = a.lock("OperationTypeApply", "", Duration::ZERO).unwrap();
    assert!(a.is_locked());
    assert!(
        t.join("terraform.tfstate").exists(),
        "locking creates the file"
    );
    let info_path = t.join(".terraform.tfstate.lock.info");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(&info_path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let info = LockInfo::from_json(&fs::read(&info_path).unwrap()).unwrap();
    assert_eq!(info.id, id);
    assert_eq!(info.path, "terraform.tfstate");
    assert_eq!(info.operation, "OperationTypeApply");

    let e = b.lock("OperationTypePlan", "", Duration::ZERO).unwrap_err();
    assert_eq!(e.message, "resource temporarily unavailable");
    assert_eq!(e.info.as_ref().map(|i| i.id.as_str()), Some(id.as_str()));
    let d = e.acquire_diagnostic();
    assert!(d
        .detail
        .starts_with("Error message: resource temporarily unavailable\nLock Info:\n  ID:        "));

    // Writes under the lock keep it: the renamed file is locked too.
    a.write_state(&state_with("x")).unwrap();
    assert!(b.lock("OperationTypePlan", "", Duration::ZERO).is_err());
    a.write_state(&state_with("y")).unwrap();
    assert!(b.lock("OperationTypePlan", "", Duration::ZERO).is_err());

    a.unlock().unwrap();
    assert!(!info_path.exists());
    assert!(matches!(a.unlock(), Err(StateError::NotLocked)));
    b.lock("OperationTypePlan", "", Duration::ZERO).unwrap();
    let (s, _) = b.read_state().unwrap();
    assert_eq!(s.unwrap().serial, 2);
    drop(b);
    assert!(!info_path.exists(), "dropping unlocks");
}

#[test]
fn an_unused_created_state_file_is_removed_on_unlock() {
    let t = TempDir::new("states-local");
    let mut a = backend(t.path());
    a.lock("OperationTypePlan", "", Duration::ZERO).unwrap();
    a.unlock().unwrap();
    assert!(!t.join("terraform.tfstate").exists());
}

#[test]
fn a_waiting_locker_gets_the_lock_when_released() {
    let t = TempDir::new("states-local");
    let mut a = backend(t.path());
    a.lock("OperationTypeApply", "", Duration::ZERO).unwrap();
    let dir = t.path().to_path_buf();
    let waiter = std::thread::spawn(move || {
        let mut b = backend(&dir);
        let r = b.lock("OperationTypePlan", "", Duration::from_secs(120));
        r.map(|_| b.is_locked())
    });
    // Most likely the waiter fails its first attempt and retries; if it
    // starts late it simply finds the lock free. Either way it gets it.
    std::thread::sleep(Duration::from_millis(200));
    a.unlock().unwrap();
    assert_eq!(waiter.join().unwrap(), Ok(true));
}

#[test]
fn missing_lock_info_is_reported_and_not_retried() {
    let t = TempDir::new("states-local");
    let mut a = backend(t.path());
    a.lock("OperationTypeApply", "", Duration::ZERO).unwrap();
    fs::remove_file(t.join(".terraform.tfstate.lock.info")).unwrap();
    let mut b = backend(t.path());
    let e = b
        .lock("OperationTypePlan", "", Duration::from_secs(600))
        .unwrap_err();
    assert!(e.info.is_none());
    assert!(!e.retriable());
    assert!(e
        .message
        .starts_with("2 errors occurred:\n\t* resource temporarily unavailable\n\t* open "));
    assert!(e
        .message
        .ends_with(".terraform.tfstate.lock.info: no such file or directory\n\n"));
}

/// The other process: holds a classic POSIX (`F_SETLK`) lock as
/// Terraform takes it, with Terraform's lock metadata, until told to stop.
#[cfg(unix)]
fn lock_holder(dir: &Path) {
    use std::os::unix::io::AsRawFd;
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(dir.join("terraform.tfstate"))
        .unwrap();
    // SAFETY: plain data, descriptor open for the call.
    let mut fl: libc::flock = unsafe { std::mem::zeroed() };
    fl.l_type = libc::F_WRLCK as _;
    fl.l_whence = libc::SEEK_SET as _;
    let rc = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETLK, &fl) };
    assert_eq!(rc, 0, "child could not lock");
    fs::write(
        dir.join(".terraform.tfstate.lock.info"),
        r#"{"ID":"11111111-2222-3333-4444-555555555555","Operation":"OperationTypeApply","Info":"","Who":"tf@host","Version":"1.11.4","Created":"2026-11-21T17:54:24.841232582Z","Path":"terraform.tfstate"}"#,
    )
    .unwrap();
    fs::write(dir.join("locked"), "").unwrap();
    for _ in 0..6000 {
        if dir.join("release").exists() {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    fs::remove_file(dir.join(".terraform.tfstate.lock.info")).unwrap();
    drop(file);
}

#[cfg(unix)]
#[test]
fn another_process_holding_a_terraform_style_lock_excludes_us() {
    const ENV: &str = "TERRACE_STATES_LOCK_HOLDER_DIR";
    if let Ok(dir) = std::env::var(ENV) {
        lock_holder(Path::new(&dir));
        return;
    }
    let t = TempDir::new("states-local");
    let exe = std::env::current_exe().unwrap();
    let mut child = std::process::Command::new(exe)
        .args([
            "--exact",
            "backend::local::tests::another_process_holding_a_terraform_style_lock_excludes_us",
            "--test-threads=1",
        ])
        .env(ENV, t.path())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut waited = 0;
    while !t.join("locked").exists() {
        assert!(waited < 6000, "the child never locked");
        std::thread::sleep(Duration::from_millis(10));
        waited += 1;
    }
    let mut b = backend(t.path());
    let e = b.lock("OperationTypePlan", "", Duration::ZERO).unwrap_err();
    assert_eq!(e.message, "resource temporarily unavailable");
    let info = e.info.as_ref().unwrap();
    assert_eq!(info.id, "11111111-2222-3333-4444-555555555555");
    assert!(e
        .to_string()
        .contains("  Created:   2026-11-21 17:54:24.841232582 +0000 UTC\n"));
    fs::write(t.join("release"), "").unwrap();
    assert!(child.wait().unwrap().success());
    b.lock("OperationTypePlan", "", Duration::ZERO).unwrap();
}
