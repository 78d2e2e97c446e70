//! The `pg` backend against a PostgreSQL server each test starts: terraform
//! and terrace take turns on one state in terraform's schema and table
//! (each plans "No changes" after the other's apply), each is refused
//! while the other holds the workspace's advisory lock, a killed apply's
//! lock goes with its connection; and `init -migrate-state` carries a
//! state with its workspaces from local to s3 (moto) to pg and back to
//! local, lineage, serial and resources unchanged.

mod backend_support;
mod engine_support;

use backend_support::Postgres;
use engine_support::{have_terraform, wait_until, Moto, Run, Work};
use std::time::Duration;

const HOLD: &str = "store/default/.lock";

fn main_tf(backend: &str) -> String {
    format!(
        r#"
terraform {{
  required_providers {{
    kv = {{ source = "terrace/kv" }}
  }}
{backend}}}

provider "kv" {{
  directory = "${{path.module}}/store"
  namespace = terraform.workspace
}}

variable "n" {{
  type    = number
  default = 3
}}

resource "kv_entry" "e" {{
  count = var.n
  key   = "k${{count.index}}"
  value = "v${{count.index}}"
}}
"#
    )
}

fn pg_block(pg: &Postgres) -> String {
    format!(
        "  backend \"pg\" {{\n    conn_str = \"{}\"\n  }}\n",
        pg.conn_str()
    )
}

/// The stored state of `workspace`, as JSON (`null` when there is none).
fn stored(pg: &Postgres, workspace: &str) -> serde_json::Value {
    let text = pg.sql(&format!(
        "SELECT data FROM terraform_remote_state.states WHERE name = '{workspace}'"
    ));
    if text.is_empty() {
        return serde_json::Value::Null;
    }
    serde_json::from_str(&text).expect("a stored state is JSON")
}

fn resources_in(state: &serde_json::Value) -> usize {
    state["resources"]
        .as_array()
        .map(|r| {
            r.iter()
                .map(|r| r["instances"].as_array().map_or(0, Vec::len))
                .sum()
        })
        .unwrap_or(0)
}

fn assert_lock_refusal(run: &Run, tool: &str) {
    assert_eq!(run.code, Some(1), "{tool}:\n{}", run.output());
    for expected in [
        "Error: Error acquiring the state lock",
        "Workspace is already locked: default",
        "Lock Info:",
        "Operation: OperationTypeApply",
    ] {
        assert!(
            run.stderr.contains(expected),
            "{tool}: no {expected:?} in:\n{}",
            run.output()
        );
    }
}

#[test]
fn terraform_and_terrace_take_turns_on_one_pg_state() {
    if !have_terraform() {
        return;
    }
    let Some(pg) = Postgres::start() else {
        return;
    };
    let work = Work::with_mirror("pg-interop");
    work.write("main.tf", &main_tf(&pg_block(&pg)));

    work.terraform_ok(&["init", "-input=false"], 0);
    work.terraform_ok(&["apply", "-auto-approve", "-input=false"], 0);
    let by_terraform = stored(&pg, "default");
    assert_eq!(resources_in(&by_terraform), 3);

    work.terrace_ok(&["plan", "-detailed-exitcode"], 0);
    let run = work.terrace_ok(&["apply", "-auto-approve", "-var", "n=5"], 0);
    assert!(
        run.stdout
            .contains("Apply complete! Resources: 2 added, 0 changed, 0 destroyed."),
        "{}",
        run.output()
    );
    let by_terrace = stored(&pg, "default");
    assert_eq!(resources_in(&by_terrace), 5);
    assert_eq!(by_terrace["lineage"], by_terraform["lineage"]);
    work.terraform_ok(
        &["plan", "-detailed-exitcode", "-input=false", "-var", "n=5"],
        0,
    );

    // terrace holds the lock: terraform is refused.
    work.write(HOLD, "held by the test\n");
    let holder = work.spawn_terrace(&["apply", "-auto-approve", "-var", "n=6"]);
    wait_until(
        "terrace's apply to start creating",
        Duration::from_secs(120),
        || holder.stdout(),
        |out| out.contains(": Creating..."),
    );
    let refused = work.terraform(&["apply", "-auto-approve", "-input=false", "-var", "n=6"]);
    assert_lock_refusal(&refused, "terraform apply");
    std::fs::remove_file(work.path(HOLD)).expect("releasing the kv lock");
    let done = holder.finish(Duration::from_secs(300));
    assert_eq!(done.code, Some(0), "{}", done.output());

    // terraform holds the lock: terrace is refused.
    work.write(HOLD, "held by the test\n");
    let holder = work.spawn_terraform(&["apply", "-auto-approve", "-input=false", "-var", "n=7"]);
    wait_until(
        "terraform's apply to start creating",
        Duration::from_secs(120),
        || holder.stdout(),
        |out| out.contains(": Creating..."),
    );
    let refused = work.terrace(&["apply", "-auto-approve", "-var", "n=7"]);
    assert_lock_refusal(&refused, "terrace apply");
    std::fs::remove_file(work.path(HOLD)).expect("releasing the kv lock");
    let done = holder.finish(Duration::from_secs(300));
    assert_eq!(done.code, Some(0), "{}", done.output());
    work.terrace_ok(&["plan", "-detailed-exitcode", "-var", "n=7"], 0);

    // A workspace terrace creates is a row terraform lists.
    work.terrace_ok(&["workspace", "new", "dev"], 0);
    work.terrace_ok(&["apply", "-auto-approve", "-var", "n=1"], 0);
    assert_eq!(resources_in(&stored(&pg, "dev")), 1);
    let list = work.terraform_ok(&["workspace", "list"], 0);
    assert!(list.stdout.contains("* dev"), "{}", list.output());
    work.terraform_ok(
        &["plan", "-detailed-exitcode", "-input=false", "-var", "n=1"],
        0,
    );

    // Deleting it: refused while it tracks objects, then forced; the row
    // goes, and terraform no longer lists it.
    work.terrace_ok(&["workspace", "select", "default"], 0);
    let refused = work.terrace(&["workspace", "delete", "dev"]);
    assert_eq!(refused.code, Some(1), "{}", refused.output());
    assert!(stored(&pg, "dev").is_object());
    work.terrace_ok(&["workspace", "delete", "-force", "dev"], 0);
    assert!(stored(&pg, "dev").is_null());
    let list = work.terraform_ok(&["workspace", "list"], 0);
    assert!(!list.stdout.contains("dev"), "{}", list.output());
}

#[test]
fn a_killed_applys_lock_goes_with_its_connection() {
    let Some(pg) = Postgres::start() else {
        return;
    };
    let work = Work::with_mirror("pg-kill");
    work.write("main.tf", &main_tf(&pg_block(&pg)));
    work.terrace_ok(&["init", "-input=false"], 0);
    work.terrace_ok(&["apply", "-auto-approve", "-var", "n=1"], 0);

    work.write(HOLD, "held by the test\n");
    let mut apply = work.spawn_terrace(&["apply", "-auto-approve"]);
    wait_until(
        "the apply to start creating",
        Duration::from_secs(120),
        || apply.stdout(),
        |out| out.contains(": Creating..."),
    );
    let refused = work.terrace(&["plan"]);
    assert_lock_refusal_plan(&refused);
    let children = apply.children();
    apply.child.kill().expect("SIGKILL to terrace");
    let _ = apply.child.wait();
    for pid in children {
        // SAFETY: kill(2) on a provider process this test's child started.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
        }
    }
    std::fs::remove_file(work.path(HOLD)).expect("releasing the kv lock");
    // PostgreSQL ends the session of the killed process, and its advisory
    // lock with it; the next apply recovers the journal.
    wait_until(
        "the killed apply's session to end",
        Duration::from_secs(60),
        || pg.sql("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"),
        |n| n == "0",
    );
    work.terrace_ok(&["apply", "-auto-approve"], 0);
    assert_eq!(resources_in(&stored(&pg, "default")), 3);
    work.terrace_ok(&["plan", "-detailed-exitcode"], 0);
}

fn assert_lock_refusal_plan(run: &Run) {
    assert_eq!(run.code, Some(1), "{}", run.output());
    assert!(
        run.stderr.contains("Workspace is already locked: default"),
        "{}",
        run.output()
    );
}

#[test]
fn state_and_workspaces_migrate_local_to_s3_to_pg_to_local() {
    let Some(pg) = Postgres::start() else {
        return;
    };
    if !terrace_testsupport::require_moto() {
        return;
    }
    let moto = Moto::start();
    moto.query(
        "client('s3', 'us-east-1').create_bucket(Bucket='tfstate')\nprint(json.dumps(True))\n",
    );
    let s3_block = format!(
        "  backend \"s3\" {{\n    bucket = \"tfstate\"\n    key = \"m/terraform.tfstate\"\n    region = \"us-east-1\"\n    access_key = \"test\"\n    secret_key = \"test\"\n    skip_credentials_validation = true\n    skip_metadata_api_check = true\n    skip_requesting_account_id = true\n    use_path_style = true\n    use_lockfile = true\n    endpoints = {{ s3 = \"{}\" }}\n  }}\n",
        moto.endpoint
    );
    let work = Work::with_mirror("migrate-chain");
    work.write("main.tf", &main_tf(""));
    work.terrace_ok(&["init", "-input=false"], 0);
    work.terrace_ok(&["apply", "-auto-approve"], 0);
    work.terrace_ok(&["workspace", "new", "dev"], 0);
    work.terrace_ok(&["apply", "-auto-approve", "-var", "n=2"], 0);
    work.terrace_ok(&["workspace", "select", "default"], 0);
    let read = |path: &str| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(work.path(path)).expect("a local state"))
            .expect("JSON")
    };
    let default_state = read("terraform.tfstate");
    let dev_state = read("terraform.tfstate.d/dev/terraform.tfstate");
    let same = |a: &serde_json::Value, b: &serde_json::Value, what: &str| {
        for field in ["lineage", "serial", "resources", "outputs"] {
            assert_eq!(a[field], b[field], "{what}: {field}");
        }
    };

    for (block, name) in [(s3_block.as_str(), "s3"), (pg_block(&pg).as_str(), "pg")] {
        work.write("main.tf", &main_tf(block));
        let run = work.terrace_ok(
            &["init", "-input=false", "-migrate-state", "-force-copy"],
            0,
        );
        assert!(
            run.stdout
                .contains(&format!("Successfully configured the backend \"{name}\"!")),
            "{}",
            run.output()
        );
        work.terrace_ok(&["plan", "-detailed-exitcode"], 0);
        work.terrace_ok(&["workspace", "select", "dev"], 0);
        work.terrace_ok(&["plan", "-detailed-exitcode", "-var", "n=2"], 0);
        work.terrace_ok(&["workspace", "select", "default"], 0);
        let list = work.terrace_ok(&["workspace", "list"], 0);
        assert_eq!(
            list.stdout,
            "* default\n  dev\n\n",
            "{name}: {}",
            list.output()
        );
    }
    same(&stored(&pg, "default"), &default_state, "pg default");
    same(&stored(&pg, "dev"), &dev_state, "pg dev");

    work.write("main.tf", &main_tf(""));
    work.terrace_ok(
        &["init", "-input=false", "-migrate-state", "-force-copy"],
        0,
    );
    same(&read("terraform.tfstate"), &default_state, "local default");
    same(
        &read("terraform.tfstate.d/dev/terraform.tfstate"),
        &dev_state,
        "local dev",
    );
    work.terrace_ok(&["plan", "-detailed-exitcode"], 0);
}

/// `terraform_remote_state` reads another configuration's outputs from a
/// pg backend (and the same from terraform, when it is here).
#[test]
fn terraform_remote_state_reads_outputs_from_pg() {
    let Some(pg) = Postgres::start() else {
        return;
    };
    let producer = Work::with_mirror("pg-remote-state-producer");
    producer.write(
        "main.tf",
        &format!(
            "{}\noutput \"count\" {{\n  value = length(kv_entry.e)\n}}\n",
            main_tf(&pg_block(&pg))
        ),
    );
    producer.terrace_ok(&["init", "-input=false"], 0);
    producer.terrace_ok(&["apply", "-auto-approve"], 0);

    let consumer = Work::new(
        "pg-remote-state-consumer",
        engine_support::Overrides {
            bundled: false,
            aws: false,
        },
    );
    consumer.write(
        "main.tf",
        &format!(
            "data \"terraform_remote_state\" \"p\" {{\n  backend = \"pg\"\n  config = {{\n    conn_str = \"{}\"\n  }}\n}}\n\noutput \"seen\" {{\n  value = data.terraform_remote_state.p.outputs.count\n}}\n",
            pg.conn_str()
        ),
    );
    consumer.terrace_ok(&["apply", "-auto-approve"], 0);
    let seen = consumer.terrace_ok(&["output", "-raw", "seen"], 0);
    assert_eq!(seen.stdout, "3");
    if terrace_testsupport::terraform_version().is_some() {
        let plan = consumer.terraform_ok(&["plan", "-input=false"], 0);
        assert!(plan.stdout.contains("No changes."), "{}", plan.output());
    }
}

/// PostgreSQL stops (`pg_ctl stop -m immediate`) while an apply creates
/// objects: the apply ends in error with every object it made in
/// `errored.tfstate` (encrypted, as the state is), the stored state is the
/// one from before, and once the server is back `state push` of that file
/// recovers everything.
#[test]
fn a_database_stopping_mid_apply_leaves_errored_state_that_state_push_recovers() {
    let Some(pg) = Postgres::start() else {
        return;
    };
    let work = Work::with_mirror("pg-stop");
    work.write("main.tf", &main_tf(&pg_block(&pg)));
    work.write(
        "encryption.tf",
        "terraform {\n  encryption {\n    key_provider \"pbkdf2\" \"k\" {\n      passphrase = \"correct-horse-battery-staple\"\n      iterations = 200000\n    }\n    method \"aes_gcm\" \"k\" {\n      keys = key_provider.pbkdf2.k\n    }\n    state {\n      method = method.aes_gcm.k\n    }\n  }\n}\n",
    );
    work.terrace_ok(&["init", "-input=false"], 0);
    work.terrace_ok(&["apply", "-auto-approve", "-var", "n=1"], 0);
    let before = pg.sql("SELECT data FROM terraform_remote_state.states WHERE name = 'default'");
    assert!(before.contains("\"encryption_version\":\"v0\""), "{before}");

    work.write(HOLD, "held by the test\n");
    let apply = work.spawn_terrace(&["apply", "-auto-approve", "-var", "n=4"]);
    wait_until(
        "the apply to start creating",
        Duration::from_secs(120),
        || apply.stdout(),
        |out| out.contains(": Creating..."),
    );
    pg.stop_immediately();
    std::fs::remove_file(work.path(HOLD)).expect("releasing the kv lock");
    let done = apply.finish(Duration::from_secs(300));
    assert_eq!(done.code, Some(1), "{}", done.output());
    assert!(
        done.stderr.contains("Failed to persist state to backend")
            && done.stderr.contains("errored.tfstate"),
        "{}",
        done.output()
    );
    let errored = std::fs::read(work.path("errored.tfstate")).expect("errored.tfstate was written");
    let errored_text = String::from_utf8_lossy(&errored).to_string();
    assert!(
        errored_text.contains("\"encryption_version\":\"v0\"")
            && !errored_text.contains("kv_entry"),
        "errored.tfstate is encrypted as the state is: {errored_text}"
    );

    pg.restart();
    assert_eq!(
        pg.sql("SELECT data FROM terraform_remote_state.states WHERE name = 'default'"),
        before,
        "the stored state is the one from before the apply"
    );
    work.terrace_ok(&["state", "push", "errored.tfstate"], 0);
    let list = work.terrace_ok(&["state", "list"], 0);
    assert_eq!(list.stdout.lines().count(), 4, "{}", list.output());
    work.terrace_ok(&["plan", "-detailed-exitcode", "-var", "n=4"], 0);
}
