//! Two terrace applies started together, round after round, on one remote
//! state (s3 with a lock file, s3 with DynamoDB, pg), each from its own
//! working directory as two machines would: every run either applies or
//! is refused with the lock error, and after every round the state holds
//! every object any successful apply created (no write lost to the other
//! run's). Each run changes only its own resource (`-target`), so a lost
//! update would show as a missing key.
//!
//! CI runs a few rounds; `scripts/race-backends` runs 50
//! (`TERRACE_RACE_ROUNDS`).

mod backend_support;
mod engine_support;

use backend_support::Postgres;
use engine_support::{Moto, Run, Work};
use std::collections::BTreeSet;
use std::time::Duration;

const BUCKET: &str = "race";
const KEY: &str = "race/terraform.tfstate";
const TABLE: &str = "race-locks";

fn rounds() -> usize {
    std::env::var("TERRACE_RACE_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(4)
}

fn main_tf(backend: &str, store: &str) -> String {
    format!(
        r#"
terraform {{
  required_providers {{
    kv = {{ source = "terrace/kv" }}
  }}
{backend}}}

provider "kv" {{
  directory = {store:?}
  namespace = "race"
}}

variable "a" {{
  type    = set(string)
  default = []
}}

variable "b" {{
  type    = set(string)
  default = []
}}

resource "kv_entry" "a" {{
  for_each = var.a
  key      = each.key
  value    = "a"
}}

resource "kv_entry" "b" {{
  for_each = var.b
  key      = each.key
  value    = "b"
}}
"#
    )
}

fn s3_block(moto: &Moto, dynamodb: bool) -> String {
    let lock = if dynamodb {
        format!("    dynamodb_table = \"{TABLE}\"\n")
    } else {
        "    use_lockfile = true\n".to_string()
    };
    format!(
        "  backend \"s3\" {{\n    bucket = \"{BUCKET}\"\n    key = \"{KEY}\"\n    region = \"us-east-1\"\n    access_key = \"test\"\n    secret_key = \"test\"\n    skip_credentials_validation = true\n    skip_metadata_api_check = true\n    skip_requesting_account_id = true\n    use_path_style = true\n    endpoints = {{\n      s3 = \"{e}\"\n      dynamodb = \"{e}\"\n    }}\n{lock}  }}\n",
        e = moto.endpoint
    )
}

fn start_moto() -> Option<Moto> {
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
    Some(moto)
}

fn keys_var(name: &str, keys: &[String]) -> String {
    let quoted: Vec<String> = keys.iter().map(|k| format!("{k:?}")).collect();
    format!("{name}=[{}]", quoted.join(","))
}

/// The keys of `resource`'s instances in the state `terrace state pull`
/// printed.
fn keys_in(state: &serde_json::Value, resource: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for r in state["resources"].as_array().into_iter().flatten() {
        if r["name"] != resource {
            continue;
        }
        for i in r["instances"].as_array().into_iter().flatten() {
            if let Some(k) = i["index_key"].as_str() {
                out.insert(k.to_string());
            }
        }
    }
    out
}

fn outcome(run: &Run, who: &str, round: usize) -> bool {
    match run.code {
        Some(0) => {
            assert!(
                run.stdout.contains("Apply complete!"),
                "{who} round {round}:\n{}",
                run.output()
            );
            true
        }
        Some(1) => {
            let flat: String = run.stderr.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(
                flat.contains("Error acquiring the state lock"),
                "{who} round {round} failed without being refused by the lock:\n{}",
                run.output()
            );
            false
        }
        _ => panic!("{who} round {round}:\n{}", run.output()),
    }
}

/// Runs the rounds; returns how many runs applied and how many were
/// refused.
fn race(name: &str, backend: &str) -> (usize, usize) {
    let a = Work::with_mirror(&format!("race-{name}-a"));
    let b = Work::with_mirror(&format!("race-{name}-b"));
    let store = a.path("store").display().to_string();
    for work in [&a, &b] {
        work.write("main.tf", &main_tf(backend, &store));
        work.terrace_ok(&["init", "-input=false"], 0);
    }
    let (mut a_keys, mut b_keys) = (Vec::new(), Vec::new());
    let (mut a_done, mut b_done) = (BTreeSet::new(), BTreeSet::new());
    let (mut applied, mut refused) = (0, 0);
    for round in 0..rounds() {
        a_keys.push(format!("a{round}"));
        b_keys.push(format!("b{round}"));
        let a_var = keys_var("a", &a_keys);
        let b_var = keys_var("b", &b_keys);
        let run_a = a.spawn_terrace(&[
            "apply",
            "-auto-approve",
            "-input=false",
            "-target=kv_entry.a",
            "-var",
            &a_var,
        ]);
        let run_b = b.spawn_terrace(&[
            "apply",
            "-auto-approve",
            "-input=false",
            "-target=kv_entry.b",
            "-var",
            &b_var,
        ]);
        let done_a = run_a.finish(Duration::from_secs(300));
        let done_b = run_b.finish(Duration::from_secs(300));
        for (ok, keys, done) in [
            (outcome(&done_a, "a", round), &a_keys, &mut a_done),
            (outcome(&done_b, "b", round), &b_keys, &mut b_done),
        ] {
            if ok {
                applied += 1;
                done.extend(keys.iter().cloned());
            } else {
                refused += 1;
            }
        }
        let pulled = a.terrace_ok(&["state", "pull"], 0);
        let state: serde_json::Value =
            serde_json::from_str(&pulled.stdout).expect("the state is JSON");
        assert_eq!(keys_in(&state, "a"), a_done, "round {round}: kv_entry.a");
        assert_eq!(keys_in(&state, "b"), b_done, "round {round}: kv_entry.b");
    }
    // Every object in the store is in the state.
    let mut stored = BTreeSet::new();
    for entry in std::fs::read_dir(a.path("store/race")).expect("the kv store") {
        let name = entry
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .to_string();
        if !name.starts_with('.') && !name.ends_with(".tags") && !name.ends_with(".tmp") {
            stored.insert(name);
        }
    }
    let expected: BTreeSet<String> = a_done.union(&b_done).cloned().collect();
    assert_eq!(
        stored, expected,
        "the store holds exactly what the state does"
    );
    eprintln!(
        "{name}: {} rounds, {applied} applied, {refused} refused by the lock",
        rounds()
    );
    (applied, refused)
}

#[test]
fn racing_applies_on_s3_with_a_lock_file() {
    let Some(moto) = start_moto() else {
        return;
    };
    race("s3-lockfile", &s3_block(&moto, false));
}

#[test]
fn racing_applies_on_s3_with_dynamodb_locks() {
    let Some(moto) = start_moto() else {
        return;
    };
    race("s3-dynamodb", &s3_block(&moto, true));
}

#[test]
fn racing_applies_on_pg() {
    let Some(pg) = Postgres::start() else {
        return;
    };
    race(
        "pg",
        &format!(
            "  backend \"pg\" {{\n    conn_str = \"{}\"\n  }}\n",
            pg.conn_str()
        ),
    );
}
