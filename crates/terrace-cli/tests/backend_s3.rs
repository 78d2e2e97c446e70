//! The `s3` backend against moto, in both lock modes (`use_lockfile`'s
//! `.tflock` object, and a DynamoDB table with the `-md5` digest item):
//! terraform and terrace take turns on one state (each plans "No changes"
//! after the other's apply), each is refused while the other holds the
//! lock, `force-unlock` removes the lock of a killed apply, and named
//! workspaces live under `env:/`.

mod engine_support;

use engine_support::{have_terraform, wait_until, Moto, Run, Work};
use std::time::Duration;

const HOLD: &str = "store/default/.lock";
const BUCKET: &str = "tfstate";
const KEY: &str = "app/terraform.tfstate";
const TABLE: &str = "locks";

#[derive(Clone, Copy, Debug)]
enum LockMode {
    LockFile,
    DynamoDb,
}

fn main_tf(moto: &Moto, mode: LockMode) -> String {
    let lock = match mode {
        LockMode::LockFile => "    use_lockfile = true\n".to_string(),
        LockMode::DynamoDb => format!("    dynamodb_table = \"{TABLE}\"\n"),
    };
    format!(
        r#"
terraform {{
  required_providers {{
    kv = {{ source = "terrace/kv" }}
  }}
  backend "s3" {{
    bucket                      = "{BUCKET}"
    key                         = "{KEY}"
    region                      = "us-east-1"
    access_key                  = "test"
    secret_key                  = "test"
    skip_credentials_validation = true
    skip_metadata_api_check     = true
    skip_requesting_account_id  = true
    use_path_style              = true
    endpoints = {{
      s3       = "{e}"
      dynamodb = "{e}"
    }}
{lock}  }}
}}

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
"#,
        e = moto.endpoint
    )
}

fn start(mode: LockMode) -> Option<(Moto, Work)> {
    if !terrace_testsupport::require_moto() {
        return None;
    }
    let moto = Moto::start();
    moto.query(&format!(
        "s3 = client('s3', 'us-east-1')\n\
         s3.create_bucket(Bucket='{BUCKET}')\n\
         ddb = client('dynamodb', 'us-east-1')\n\
         ddb.create_table(TableName='{TABLE}', KeySchema=[{{'AttributeName': 'LockID', 'KeyType': 'HASH'}}], \
         AttributeDefinitions=[{{'AttributeName': 'LockID', 'AttributeType': 'S'}}], BillingMode='PAY_PER_REQUEST')\n\
         print(json.dumps(True))\n"
    ));
    let work = Work::with_mirror(&format!("s3-{mode:?}"));
    work.write("main.tf", &main_tf(&moto, mode));
    Some((moto, work))
}

/// The stored object at `key`, as JSON (`null` when there is none).
fn object(moto: &Moto, key: &str) -> serde_json::Value {
    moto.query(&format!(
        "s3 = client('s3', 'us-east-1')\n\
         try:\n    print(s3.get_object(Bucket='{BUCKET}', Key='{key}')['Body'].read().decode())\n\
         except s3.exceptions.NoSuchKey:\n    print('null')\n"
    ))
}

/// The DynamoDB items, by LockID.
fn items(moto: &Moto) -> serde_json::Value {
    moto.query(&format!(
        "ddb = client('dynamodb', 'us-east-1')\n\
         out = {{}}\n\
         for item in ddb.scan(TableName='{TABLE}')['Items']:\n    \
             out[item['LockID']['S']] = {{k: list(v.values())[0] for k, v in item.items()}}\n\
         print(json.dumps(out))\n"
    ))
}

/// The lock holder's metadata where `mode` keeps it.
fn lock_info(moto: &Moto, mode: LockMode) -> serde_json::Value {
    match mode {
        LockMode::LockFile => object(moto, &format!("{KEY}.tflock")),
        LockMode::DynamoDb => {
            let all = items(moto);
            match all[format!("{BUCKET}/{KEY}")]["Info"].as_str() {
                Some(text) => serde_json::from_str(text).expect("lock info JSON"),
                None => serde_json::Value::Null,
            }
        }
    }
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

fn assert_lock_refusal(run: &Run, holder_id: &str, tool: &str) {
    assert_eq!(run.code, Some(1), "{tool}:\n{}", run.output());
    for expected in [
        "Error: Error acquiring the state lock",
        "Lock Info:",
        &format!("  ID:        {holder_id}\n"),
        "  Operation: OperationTypeApply\n",
    ] {
        assert!(
            run.stderr.contains(expected),
            "{tool}: no {expected:?} in:\n{}",
            run.output()
        );
    }
}

fn md5_hex(bytes: &[u8]) -> String {
    use md5::Digest;
    md5::Md5::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn take_turns(mode: LockMode) {
    if !have_terraform() {
        return;
    }
    let Some((moto, work)) = start(mode) else {
        return;
    };
    work.terraform_ok(&["init", "-input=false"], 0);
    work.terraform_ok(&["apply", "-auto-approve", "-input=false"], 0);
    let by_terraform = object(&moto, KEY);
    assert_eq!(resources_in(&by_terraform), 3);

    work.terrace_ok(&["plan", "-detailed-exitcode"], 0);
    let run = work.terrace_ok(&["apply", "-auto-approve", "-var", "n=5"], 0);
    assert!(
        run.stdout
            .contains("Apply complete! Resources: 2 added, 0 changed, 0 destroyed."),
        "{}",
        run.output()
    );
    let by_terrace = object(&moto, KEY);
    assert_eq!(resources_in(&by_terrace), 5);
    assert_eq!(by_terrace["lineage"], by_terraform["lineage"]);
    assert!(
        lock_info(&moto, mode).is_null(),
        "terrace released its lock"
    );
    if let LockMode::DynamoDb = mode {
        // The digest item terraform compares its reads with.
        let raw = moto.query(&format!(
            "s3 = client('s3', 'us-east-1')\n\
             print(json.dumps(s3.get_object(Bucket='{BUCKET}', Key='{KEY}')['Body'].read().decode()))\n"
        ));
        let digest = &items(&moto)[format!("{BUCKET}/{KEY}-md5")]["Digest"];
        assert_eq!(
            digest.as_str(),
            Some(md5_hex(raw.as_str().expect("state text").as_bytes()).as_str())
        );
    }
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
    let id = lock_info(&moto, mode)["ID"]
        .as_str()
        .expect("terrace holds the lock")
        .to_string();
    let refused = work.terraform(&["apply", "-auto-approve", "-input=false", "-var", "n=6"]);
    assert_lock_refusal(&refused, &id, "terraform apply");
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
    let id = lock_info(&moto, mode)["ID"]
        .as_str()
        .expect("terraform holds the lock")
        .to_string();
    let refused = work.terrace(&["apply", "-auto-approve", "-var", "n=7"]);
    assert_lock_refusal(&refused, &id, "terrace apply");
    std::fs::remove_file(work.path(HOLD)).expect("releasing the kv lock");
    let done = holder.finish(Duration::from_secs(300));
    assert_eq!(done.code, Some(0), "{}", done.output());
    work.terrace_ok(&["plan", "-detailed-exitcode", "-var", "n=7"], 0);

    // Workspaces: one made by terrace is terraform's too.
    work.terrace_ok(&["workspace", "new", "dev"], 0);
    work.terrace_ok(&["apply", "-auto-approve", "-var", "n=1"], 0);
    assert_eq!(resources_in(&object(&moto, &format!("env:/dev/{KEY}"))), 1);
    let list = work.terraform_ok(&["workspace", "list"], 0);
    assert!(list.stdout.contains("* dev"), "{}", list.output());
    work.terraform_ok(
        &["plan", "-detailed-exitcode", "-input=false", "-var", "n=1"],
        0,
    );
    work.terrace_ok(&["workspace", "select", "default"], 0);
    let list = work.terrace_ok(&["workspace", "list"], 0);
    assert_eq!(list.stdout, "* default\n  dev\n\n", "{}", list.output());

    // Deleting it: refused while it tracks objects, then forced; the
    // object goes, and terraform no longer lists it.
    let refused = work.terrace(&["workspace", "delete", "dev"]);
    assert_eq!(refused.code, Some(1), "{}", refused.output());
    work.terrace_ok(&["workspace", "delete", "-force", "dev"], 0);
    assert!(object(&moto, &format!("env:/dev/{KEY}")).is_null());
    let list = work.terraform_ok(&["workspace", "list"], 0);
    assert!(!list.stdout.contains("dev"), "{}", list.output());
}

#[test]
fn terraform_and_terrace_take_turns_on_s3_with_a_lock_file() {
    take_turns(LockMode::LockFile);
}

#[test]
fn terraform_and_terrace_take_turns_on_s3_with_dynamodb_locks() {
    take_turns(LockMode::DynamoDb);
}

fn force_unlock_after_kill(mode: LockMode) {
    let Some((moto, work)) = start(mode) else {
        return;
    };
    work.terrace_ok(&["init", "-input=false"], 0);
    work.write(HOLD, "held by the test\n");
    let mut apply = work.spawn_terrace(&["apply", "-auto-approve"]);
    wait_until(
        "the apply to start creating",
        Duration::from_secs(120),
        || apply.stdout(),
        |out| out.contains(": Creating..."),
    );
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
    let id = lock_info(&moto, mode)["ID"]
        .as_str()
        .expect("the killed apply left its lock")
        .to_string();
    let refused = work.terrace(&["plan"]);
    assert_eq!(refused.code, Some(1), "{}", refused.output());
    work.terrace_ok(&["force-unlock", "-force", &id], 0);
    assert!(lock_info(&moto, mode).is_null());
    work.terrace_ok(&["apply", "-auto-approve"], 0);
    assert_eq!(resources_in(&object(&moto, KEY)), 3);
    work.terrace_ok(&["plan", "-detailed-exitcode"], 0);
}

#[test]
fn force_unlock_removes_a_killed_applys_lock_file() {
    force_unlock_after_kill(LockMode::LockFile);
}

#[test]
fn force_unlock_removes_a_killed_applys_dynamodb_lock() {
    force_unlock_after_kill(LockMode::DynamoDb);
}

/// The `encryption` block wraps what the s3 backend stores: the object is
/// OpenTofu's envelope (the state is not in it in the clear), the lock
/// digest is of the stored bytes, and a wrong passphrase changes nothing.
#[test]
fn an_encrypted_state_is_stored_in_s3_as_an_envelope() {
    let Some((moto, work)) = start(LockMode::DynamoDb) else {
        return;
    };
    let encryption = |passphrase: &str| {
        format!(
            "terraform {{\n  encryption {{\n    key_provider \"pbkdf2\" \"k\" {{\n      passphrase = \"{passphrase}\"\n      iterations = 200000\n    }}\n    method \"aes_gcm\" \"k\" {{\n      keys = key_provider.pbkdf2.k\n    }}\n    state {{\n      method = method.aes_gcm.k\n    }}\n  }}\n}}\n"
        )
    };
    work.write("encryption.tf", &encryption("correct-horse-battery-staple"));
    work.terrace_ok(&["init"], 0);
    work.terrace_ok(&["apply", "-auto-approve"], 0);
    let stored = object(&moto, KEY);
    assert_eq!(stored["encryption_version"], "v0", "{stored}");
    assert!(stored.get("resources").is_none(), "{stored}");
    assert_eq!(stored["serial"], 1, "{stored}");
    let text = moto.query(&format!(
        "s3 = client('s3', 'us-east-1')\n\
         print(json.dumps(s3.get_object(Bucket='{BUCKET}', Key='{KEY}')['Body'].read().decode()))\n"
    ));
    let text = text.as_str().expect("object text").to_string();
    assert!(!text.contains("kv_entry"), "{text}");
    let digest = items(&moto)[format!("{BUCKET}/{KEY}-md5")]["Digest"].clone();
    assert_eq!(
        digest,
        md5_hex(text.as_bytes()),
        "the digest is of the stored bytes"
    );

    let plan = work.terrace(&["plan", "-detailed-exitcode"]);
    assert_eq!(plan.code, Some(0), "{}", plan.output());
    work.terrace_ok(&["apply", "-auto-approve", "-var", "n=4"], 0);
    let pulled: serde_json::Value =
        serde_json::from_str(&work.terrace_ok(&["state", "pull"], 0).stdout).expect("state JSON");
    assert_eq!(resources_in(&pulled), 4);

    let before = object(&moto, KEY);
    work.write("encryption.tf", &encryption("a-different-long-passphrase"));
    let refused = work.terrace(&["apply", "-auto-approve", "-var", "n=5"]);
    assert_eq!(refused.code, Some(1), "{}", refused.output());
    assert!(
        refused
            .all()
            .contains("decryption failed for all provided methods"),
        "{}",
        refused.output()
    );
    assert_eq!(object(&moto, KEY), before, "the stored state is unchanged");
    assert_eq!(
        lock_info(&moto, LockMode::DynamoDb),
        serde_json::Value::Null
    );
}

fn create_bucket_and_table(moto: &Moto) {
    moto.query(&format!(
        "s3 = client('s3', 'us-east-1')\n\
         s3.create_bucket(Bucket='{BUCKET}')\n\
         ddb = client('dynamodb', 'us-east-1')\n\
         ddb.create_table(TableName='{TABLE}', KeySchema=[{{'AttributeName': 'LockID', 'KeyType': 'HASH'}}], \
         AttributeDefinitions=[{{'AttributeName': 'LockID', 'AttributeType': 'S'}}], BillingMode='PAY_PER_REQUEST')\n\
         print(json.dumps(True))\n"
    ));
}

/// The S3 server dies (moto killed) while an apply creates objects: the
/// apply ends in error with every object in `errored.tfstate`, and on a
/// new server `state push` of that file recovers them all.
fn server_killed_mid_apply(mode: LockMode) {
    let Some((mut moto, work)) = start(mode) else {
        return;
    };
    work.terrace_ok(&["init", "-input=false"], 0);
    work.terrace_ok(&["apply", "-auto-approve", "-var", "n=1"], 0);

    work.write(HOLD, "held by the test\n");
    let apply = work.spawn_terrace(&["apply", "-auto-approve", "-var", "n=4"]);
    wait_until(
        "the apply to start creating",
        Duration::from_secs(120),
        || apply.stdout(),
        |out| out.contains(": Creating..."),
    );
    moto.kill();
    std::fs::remove_file(work.path(HOLD)).expect("releasing the kv lock");
    let done = apply.finish(Duration::from_secs(300));
    assert_eq!(done.code, Some(1), "{}", done.output());
    assert!(
        done.stderr.contains("Failed to persist state to backend")
            && done.stderr.contains("errored.tfstate"),
        "{}",
        done.output()
    );
    let errored: serde_json::Value = serde_json::from_slice(
        &std::fs::read(work.path("errored.tfstate")).expect("errored.tfstate was written"),
    )
    .expect("errored.tfstate is a state");
    assert_eq!(resources_in(&errored), 4);

    moto.restart();
    create_bucket_and_table(&moto);
    work.terrace_ok(&["state", "push", "errored.tfstate"], 0);
    assert_eq!(resources_in(&object(&moto, KEY)), 4);
    assert!(lock_info(&moto, mode).is_null(), "no lock is left");
    work.terrace_ok(&["plan", "-detailed-exitcode", "-var", "n=4"], 0);
}

#[test]
fn a_server_killed_mid_apply_with_a_lock_file_leaves_errored_state() {
    server_killed_mid_apply(LockMode::LockFile);
}

#[test]
fn a_server_killed_mid_apply_with_dynamodb_locks_leaves_errored_state() {
    server_killed_mid_apply(LockMode::DynamoDb);
}
