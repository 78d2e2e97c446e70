//! Client-side state and plan encryption as OpenTofu configures it (an
//! `encryption` block in `terraform`, or `TF_ENCRYPTION`): states and
//! saved plans are stored in OpenTofu's envelope, read back with the
//! passphrase, refused with a clear error and left untouched without it,
//! moved to a new key through a fallback, into and out of encryption
//! through the `unencrypted` method, and never read in the clear when
//! `enforced` is set. Terraform 1.11 has no state encryption, so there is
//! nothing to compare with it here; OpenTofu's file format is checked
//! against a state encrypted independently (`terrace-states`' tests).

mod engine_support;

use engine_support::{Overrides, Run, Work};

const PASSPHRASE: &str = "correct-horse-battery-staple";
const SECRET: &str = "value-that-must-not-be-stored-in-the-clear";

fn work(name: &str) -> Work {
    Work::new(
        name,
        Overrides {
            bundled: false,
            aws: false,
        },
    )
}

/// A key provider and method named `name` with `passphrase`. The lowest
/// iteration count OpenTofu accepts keeps the runs quick.
fn key(name: &str, passphrase: &str) -> String {
    format!(
        "    key_provider \"pbkdf2\" \"{name}\" {{\n      passphrase = \"{passphrase}\"\n      iterations = 200000\n    }}\n    method \"aes_gcm\" \"{name}\" {{\n      keys = key_provider.pbkdf2.{name}\n    }}\n"
    )
}

/// `terraform { encryption { ... } }` around `inner`, and a resource that
/// holds a value the state must not show.
fn config(inner: &str) -> String {
    format!(
        "terraform {{\n  encryption {{\n{inner}  }}\n}}\n\nresource \"terraform_data\" \"d\" {{\n  input = \"{SECRET}\"\n}}\n\noutput \"o\" {{\n  value = terraform_data.d.output\n}}\n"
    )
}

fn plain_config() -> String {
    format!("resource \"terraform_data\" \"d\" {{\n  input = \"{SECRET}\"\n}}\n\noutput \"o\" {{\n  value = terraform_data.d.output\n}}\n")
}

fn state_target(method: &str, fallback: Option<&str>, enforced: bool) -> String {
    let mut t = format!("    state {{\n      method = method.{method}\n");
    if enforced {
        t.push_str("      enforced = true\n");
    }
    if let Some(f) = fallback {
        t.push_str(&format!(
            "      fallback {{\n        method = method.{f}\n      }}\n"
        ));
    }
    t.push_str("    }\n");
    t
}

const UNENCRYPTED: &str = "    method \"unencrypted\" \"migrate\" {}\n";

fn envelope(bytes: &[u8]) -> serde_json::Value {
    let text = String::from_utf8_lossy(bytes).to_string();
    assert!(!text.contains(SECRET), "stored in the clear:\n{text}");
    let v: serde_json::Value = serde_json::from_slice(bytes).expect("the stored state is JSON");
    assert_eq!(v["encryption_version"], "v0", "{text}");
    assert!(v["encrypted_data"].is_string(), "{text}");
    v
}

fn meta_keys(v: &serde_json::Value) -> Vec<String> {
    v["meta"]
        .as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}

/// Everything the command printed, with line wrapping undone.
fn flat(run: &Run) -> String {
    run.all().split_whitespace().collect::<Vec<_>>().join(" ")
}

fn plan_exit(work: &Work) -> Run {
    work.terrace(&["plan", "-detailed-exitcode"])
}

#[test]
fn an_encrypted_state_round_trips_through_apply_and_plan() {
    let work = work("enc-roundtrip");
    work.write(
        "main.tf",
        &config(&format!(
            "{}{}",
            key("k", PASSPHRASE),
            state_target("aes_gcm.k", None, false)
        )),
    );
    work.terrace_ok(&["init"], 0);
    work.terrace_ok(&["apply", "-auto-approve"], 0);
    let stored = envelope(&work.state_bytes());
    assert_eq!(meta_keys(&stored), vec!["key_provider.pbkdf2.k"]);
    assert_eq!(stored["serial"], 1);
    assert!(stored["lineage"].is_string());

    let plan = plan_exit(&work);
    assert_eq!(plan.code, Some(0), "{}", plan.output());
    assert!(plan.stdout.contains("No changes."), "{}", plan.output());
    work.terrace_ok(&["apply", "-auto-approve"], 0);

    let list = work.terrace_ok(&["state", "list"], 0);
    assert_eq!(list.stdout.trim(), "terraform_data.d");
    let output = work.terrace_ok(&["output", "-raw", "o"], 0);
    assert_eq!(output.stdout, SECRET);
    // `state pull` shows the state itself, as OpenTofu does.
    let pulled = work.terrace_ok(&["state", "pull"], 0);
    assert!(pulled.stdout.contains(SECRET), "{}", pulled.output());
    let shown = work.terrace_ok(&["show", "-json"], 0);
    assert!(shown.stdout.contains(SECRET), "{}", shown.output());
    let shown = work.terrace_ok(&["show", "-json", "terraform.tfstate"], 0);
    assert!(shown.stdout.contains(SECRET), "{}", shown.output());
    envelope(&work.state_bytes());
}

#[test]
fn a_wrong_passphrase_is_refused_and_changes_nothing() {
    let work = work("enc-wrong");
    work.write(
        "main.tf",
        &config(&format!(
            "{}{}",
            key("k", PASSPHRASE),
            state_target("aes_gcm.k", None, false)
        )),
    );
    work.terrace_ok(&["init"], 0);
    work.terrace_ok(&["apply", "-auto-approve"], 0);
    let before = work.state_bytes();
    let backup_before = std::fs::read(work.path("terraform.tfstate.backup")).ok();

    work.write(
        "main.tf",
        &config(&format!(
            "{}{}",
            key("k", "not-the-passphrase-used-before"),
            state_target("aes_gcm.k", None, false)
        )),
    );
    for command in [
        &["plan"][..],
        &["apply", "-auto-approve"],
        &["state", "list"],
        &["destroy", "-auto-approve"],
    ] {
        let run = work.terrace(command);
        assert_eq!(run.code, Some(1), "{command:?}:\n{}", run.output());
        let all = flat(&run);
        assert!(
            all.contains("decryption failed for all provided methods")
                && all.contains(
                    "attempted decryption failed for state: decryption failed: cipher: message authentication failed"
                ),
            "{command:?}:\n{all}"
        );
    }
    assert_eq!(work.state_bytes(), before, "the state file is unchanged");
    assert_eq!(
        std::fs::read(work.path("terraform.tfstate.backup")).ok(),
        backup_before,
        "no backup was made"
    );
    assert!(!work.path("errored.tfstate").exists());
}

#[test]
fn a_fallback_rotates_the_key() {
    let work = work("enc-rotate");
    work.write(
        "main.tf",
        &config(&format!(
            "{}{}",
            key("old", PASSPHRASE),
            state_target("aes_gcm.old", None, false)
        )),
    );
    work.terrace_ok(&["init"], 0);
    work.terrace_ok(&["apply", "-auto-approve"], 0);
    assert_eq!(
        meta_keys(&envelope(&work.state_bytes())),
        vec!["key_provider.pbkdf2.old"]
    );

    // The new key writes; the old one still reads.
    work.write(
        "main.tf",
        &config(&format!(
            "{}{}{}",
            key("old", PASSPHRASE),
            key("new", "a-brand-new-passphrase-2026"),
            state_target("aes_gcm.new", Some("aes_gcm.old"), false)
        )),
    );
    work.terrace_ok(&["apply", "-auto-approve"], 0);
    assert_eq!(
        meta_keys(&envelope(&work.state_bytes())),
        vec!["key_provider.pbkdf2.new"]
    );

    // The old key can go.
    work.write(
        "main.tf",
        &config(&format!(
            "{}{}",
            key("new", "a-brand-new-passphrase-2026"),
            state_target("aes_gcm.new", None, false)
        )),
    );
    let plan = plan_exit(&work);
    assert_eq!(plan.code, Some(0), "{}", plan.output());
}

#[test]
fn an_unencrypted_state_moves_into_encryption_and_back_out() {
    let work = work("enc-migrate");
    work.write("main.tf", &plain_config());
    work.terrace_ok(&["init"], 0);
    work.terrace_ok(&["apply", "-auto-approve"], 0);
    let plain = work.state();
    assert_eq!(plain["serial"], 1);

    // Without the unencrypted method as a fallback, the plain state is
    // refused.
    work.write(
        "main.tf",
        &config(&format!(
            "{}{}",
            key("k", PASSPHRASE),
            state_target("aes_gcm.k", None, false)
        )),
    );
    let refused = work.terrace(&["plan"]);
    assert_eq!(refused.code, Some(1), "{}", refused.output());
    assert!(
        flat(&refused)
            .contains("encountered unencrypted payload without unencrypted method configured"),
        "{}",
        refused.output()
    );

    // Into encryption.
    work.write(
        "main.tf",
        &config(&format!(
            "{}{UNENCRYPTED}{}",
            key("k", PASSPHRASE),
            state_target("aes_gcm.k", Some("unencrypted.migrate"), false)
        )),
    );
    let apply = work.terrace_ok(&["apply", "-auto-approve"], 0);
    assert!(
        flat(&apply).contains("Unencrypted method configured"),
        "{}",
        apply.output()
    );
    let stored = envelope(&work.state_bytes());
    assert_eq!(stored["lineage"], plain["lineage"]);
    work.write(
        "main.tf",
        &config(&format!(
            "{}{}",
            key("k", PASSPHRASE),
            state_target("aes_gcm.k", None, false)
        )),
    );
    let plan = plan_exit(&work);
    assert_eq!(plan.code, Some(0), "{}", plan.output());

    // And back out.
    work.write(
        "main.tf",
        &config(&format!(
            "{}{UNENCRYPTED}{}",
            key("k", PASSPHRASE),
            state_target("unencrypted.migrate", Some("aes_gcm.k"), false)
        )),
    );
    work.terrace_ok(&["apply", "-auto-approve"], 0);
    let back = work.state();
    assert_eq!(back["lineage"], plain["lineage"]);
    assert!(back.get("encryption_version").is_none());
    work.write("main.tf", &plain_config());
    let plan = plan_exit(&work);
    assert_eq!(plan.code, Some(0), "{}", plan.output());
}

#[test]
fn enforced_encryption_refuses_unencrypted_state_and_the_unencrypted_method() {
    let work = work("enc-enforced");
    work.write("main.tf", &plain_config());
    work.terrace_ok(&["init"], 0);
    work.terrace_ok(&["apply", "-auto-approve"], 0);
    let before = work.state_bytes();

    work.write(
        "main.tf",
        &config(&format!(
            "{}{UNENCRYPTED}{}",
            key("k", PASSPHRASE),
            state_target("aes_gcm.k", Some("unencrypted.migrate"), true)
        )),
    );
    let run = work.terrace(&["apply", "-auto-approve"]);
    assert_eq!(run.code, Some(1), "{}", run.output());
    assert!(
        flat(&run).contains("Unencrypted method is forbidden")
            && flat(&run)
                .contains("Unable to use unencrypted method since the enforced flag is set."),
        "{}",
        run.output()
    );

    work.write(
        "main.tf",
        &config(&format!(
            "{}{}",
            key("k", PASSPHRASE),
            state_target("aes_gcm.k", None, true)
        )),
    );
    let run = work.terrace(&["apply", "-auto-approve"]);
    assert_eq!(run.code, Some(1), "{}", run.output());
    assert!(
        flat(&run)
            .contains("encountered unencrypted payload without unencrypted method configured"),
        "{}",
        run.output()
    );
    assert_eq!(work.state_bytes(), before, "the state file is unchanged");
}

#[test]
fn a_saved_plan_is_encrypted_and_applied() {
    let work = work("enc-plan");
    let both = format!(
        "{}{}    plan {{\n      method = method.aes_gcm.k\n    }}\n",
        key("k", PASSPHRASE),
        state_target("aes_gcm.k", None, false)
    );
    work.write("main.tf", &config(&both));
    work.terrace_ok(&["init"], 0);
    work.terrace_ok(&["plan", "-out=tfplan"], 0);
    let stored = std::fs::read(work.path("tfplan")).expect("plan file");
    assert!(!stored.starts_with(b"PK"), "the plan is not a plain zip");
    let v = envelope(&stored);
    assert_eq!(meta_keys(&v), vec!["key_provider.pbkdf2.k"]);
    assert!(
        v.get("serial").is_none(),
        "a plan envelope has no state fields"
    );

    // Without the plan's key, the plan is not read.
    work.write(
        "main.tf",
        &config(&format!(
            "{}{}",
            key("k", PASSPHRASE),
            state_target("aes_gcm.k", None, false)
        )),
    );
    let refused = work.terrace(&["apply", "tfplan"]);
    assert_eq!(refused.code, Some(1), "{}", refused.output());
    assert!(
        flat(&refused).contains(
            "the given plan file is encrypted and requires a valid encryption configuration to decrypt"
        ),
        "{}",
        refused.output()
    );
    assert!(!work.path("terraform.tfstate").exists());

    work.write("main.tf", &config(&both));
    let shown = work.terrace_ok(&["show", "-json", "tfplan"], 0);
    assert!(
        shown.stdout.contains("\"resource_changes\""),
        "{}",
        shown.output()
    );
    work.terrace_ok(&["apply", "tfplan"], 0);
    envelope(&work.state_bytes());
    let output = work.terrace_ok(&["output", "-raw", "o"], 0);
    assert_eq!(output.stdout, SECRET);
}

#[test]
fn tf_encryption_configures_encryption_from_the_environment() {
    let work = work("enc-env");
    work.write("main.tf", &plain_config());
    let hcl = format!(
        "{}{}",
        key("env", PASSPHRASE),
        state_target("aes_gcm.env", None, false)
    );
    work.terrace_ok(&["init"], 0);
    let run = work.terrace_env(&["apply", "-auto-approve"], &[("TF_ENCRYPTION", &hcl)]);
    assert_eq!(run.code, Some(0), "{}", run.output());
    assert_eq!(
        meta_keys(&envelope(&work.state_bytes())),
        vec!["key_provider.pbkdf2.env"]
    );
    // Without it, the state is not readable.
    let refused = work.terrace(&["plan"]);
    assert_eq!(refused.code, Some(1), "{}", refused.output());

    // The JSON form, laid over a block in the configuration: its
    // passphrase replaces the block's.
    let json = format!(
        "{{\"key_provider\": {{\"pbkdf2\": {{\"env\": {{\"passphrase\": \"{PASSPHRASE}\"}}}}}}}}"
    );
    work.write(
        "main.tf",
        &config(&format!(
            "{}{}",
            key("env", "the-wrong-passphrase-in-the-file"),
            state_target("aes_gcm.env", None, false)
        )),
    );
    let plan = work.terrace_env(&["plan", "-detailed-exitcode"], &[("TF_ENCRYPTION", &json)]);
    assert_eq!(plan.code, Some(0), "{}", plan.output());
}

#[test]
fn the_passphrase_may_come_from_a_variable() {
    let work = work("enc-var");
    work.write(
        "main.tf",
        &format!(
            "variable \"passphrase\" {{\n  type      = string\n  sensitive = true\n}}\n\n{}",
            config(&format!(
                "    key_provider \"pbkdf2\" \"k\" {{\n      passphrase = var.passphrase\n      iterations = 200000\n    }}\n    method \"aes_gcm\" \"k\" {{\n      keys = key_provider.pbkdf2.k\n    }}\n{}",
                state_target("aes_gcm.k", None, false)
            ))
        ),
    );
    let env = [("TF_VAR_passphrase", PASSPHRASE)];
    let init = work.terrace_env(&["init"], &env);
    assert_eq!(init.code, Some(0), "{}", init.output());
    let apply = work.terrace_env(&["apply", "-auto-approve"], &env);
    assert_eq!(apply.code, Some(0), "{}", apply.output());
    envelope(&work.state_bytes());
    let list = work.terrace_env(&["state", "list"], &env);
    assert_eq!(list.code, Some(0), "{}", list.output());
    assert_eq!(list.stdout.trim(), "terraform_data.d");
    let plan = work.terrace(&[
        "plan",
        "-var",
        &format!("passphrase={PASSPHRASE}"),
        "-detailed-exitcode",
    ]);
    assert_eq!(plan.code, Some(0), "{}", plan.output());
}

/// A state encrypted by following OpenTofu's algorithm in another
/// implementation (see `scripts/record-opentofu-encrypted-state`) is
/// read with OpenTofu's default pbkdf2 settings.
#[test]
fn a_state_encrypted_in_opentofus_format_is_read() {
    let work = work("enc-opentofu");
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../terrace-states/tests/data/opentofu_pbkdf2_aes_gcm.tfstate"
    );
    std::fs::copy(fixture, work.path("terraform.tfstate")).expect("copy the fixture");
    work.write(
        "main.tf",
        "terraform {\n  encryption {\n    key_provider \"pbkdf2\" \"main\" {\n      passphrase = \"opentofu-compatible-passphrase\"\n    }\n    method \"aes_gcm\" \"main\" {\n      keys = key_provider.pbkdf2.main\n    }\n    state {\n      method = method.aes_gcm.main\n    }\n  }\n}\n\noutput \"greeting\" {\n  value = \"hello from an encrypted state\"\n}\n",
    );
    work.terrace_ok(&["init"], 0);
    let output = work.terrace_ok(&["output", "-raw", "greeting"], 0);
    assert_eq!(output.stdout, "hello from an encrypted state");
    let plan = plan_exit(&work);
    assert_eq!(plan.code, Some(0), "{}", plan.output());
    work.terrace_ok(&["apply", "-auto-approve"], 0);
    let v: serde_json::Value = serde_json::from_slice(&work.state_bytes()).expect("JSON");
    assert_eq!(v["lineage"], "8d3b6d1e-1f7c-4a50-9d68-2c1e0f6e4b7a");
    assert_eq!(v["encryption_version"], "v0");
    assert_eq!(meta_keys(&v), vec!["key_provider.pbkdf2.main"]);
}

#[test]
fn configuration_mistakes_are_diagnosed() {
    let work = work("enc-mistakes");
    work.write(
        "main.tf",
        &config(&format!(
            "{}{}",
            key("k", "short"),
            state_target("aes_gcm.k", None, false)
        )),
    );
    let run = work.terrace(&["plan"]);
    assert_eq!(run.code, Some(1), "{}", run.output());
    assert!(
        flat(&run).contains("Unable to build encryption key data")
            && flat(&run).contains("passphrase is too short (minimum 16 characters)"),
        "{}",
        run.output()
    );
    work.write(
        "main.tf",
        &config(&format!(
            "{}{}",
            key("k", PASSPHRASE),
            state_target("aes_gcm.nope", None, false)
        )),
    );
    let run = work.terrace(&["plan"]);
    assert_eq!(run.code, Some(1), "{}", run.output());
    assert!(
        flat(&run).contains("Reference to undeclared encryption method")
            && flat(&run).contains("main.tf"),
        "{}",
        run.output()
    );
    assert!(!work.path("terraform.tfstate").exists());
}

#[test]
fn terraform_remote_state_decrypts_with_remote_state_data_sources() {
    let producer = work("enc-remote-producer");
    producer.write(
        "main.tf",
        &config(&format!(
            "{}{}",
            key("k", PASSPHRASE),
            state_target("aes_gcm.k", None, false)
        )),
    );
    producer.terrace_ok(&["init"], 0);
    producer.terrace_ok(&["apply", "-auto-approve"], 0);
    envelope(&producer.state_bytes());
    let path = producer.path("terraform.tfstate").display().to_string();

    let consumer = work("enc-remote-consumer");
    let data = format!(
        "data \"terraform_remote_state\" \"p\" {{\n  backend = \"local\"\n  config = {{\n    path = {path:?}\n  }}\n}}\n\noutput \"read\" {{\n  value = data.terraform_remote_state.p.outputs.o\n}}\n"
    );
    // Without a method for remote states, the encrypted state is refused.
    consumer.write("main.tf", &data);
    consumer.terrace_ok(&["init"], 0);
    let refused = consumer.terrace(&["apply", "-auto-approve"]);
    assert_eq!(refused.code, Some(1), "{}", refused.output());

    consumer.write(
        "main.tf",
        &format!(
            "terraform {{\n  encryption {{\n{}    remote_state_data_sources {{\n      default {{\n        method = method.aes_gcm.k\n      }}\n    }}\n  }}\n}}\n\n{data}",
            key("k", PASSPHRASE)
        ),
    );
    consumer.terrace_ok(&["apply", "-auto-approve"], 0);
    let output = consumer.terrace_ok(&["output", "-raw", "read"], 0);
    assert_eq!(output.stdout, SECRET);
    // Only remote states are decrypted: this state stays plain.
    assert!(consumer.state().get("encryption_version").is_none());
}

/// `state push` of a plain state (what `state pull` printed) stores it
/// encrypted, as every write of the state is; pushing an encrypted file
/// decrypts it first.
#[test]
fn state_push_stores_the_pushed_state_encrypted() {
    let work = work("enc-push");
    work.write(
        "main.tf",
        &config(&format!(
            "{}{}",
            key("k", PASSPHRASE),
            state_target("aes_gcm.k", None, false)
        )),
    );
    work.terrace_ok(&["init"], 0);
    work.terrace_ok(&["apply", "-auto-approve"], 0);
    let encrypted = work.state_bytes();
    let pulled = work.terrace_ok(&["state", "pull"], 0).stdout;
    work.write("pulled.tfstate", &pulled);
    std::fs::write(work.path("encrypted-copy.tfstate"), &encrypted).expect("copy");

    work.terrace_ok(&["state", "rm", "terraform_data.d"], 0);
    envelope(&work.state_bytes());
    work.terrace_ok(&["state", "push", "-force", "pulled.tfstate"], 0);
    envelope(&work.state_bytes());
    let list = work.terrace_ok(&["state", "list"], 0);
    assert_eq!(list.stdout.trim(), "terraform_data.d");

    work.terrace_ok(&["state", "rm", "terraform_data.d"], 0);
    work.terrace_ok(&["state", "push", "-force", "encrypted-copy.tfstate"], 0);
    envelope(&work.state_bytes());
    let plan = plan_exit(&work);
    assert_eq!(plan.code, Some(0), "{}", plan.output());
}

/// The `aws_kms` key provider against moto: KMS generates the data key,
/// the envelope keeps it encrypted by KMS (`ciphertext_blob`), reading
/// asks KMS to decrypt it; a state under pbkdf2 moves to KMS through a
/// fallback, and with the KMS key gone the state is refused and left as
/// it is.
#[test]
fn the_aws_kms_key_provider_encrypts_with_a_kms_data_key() {
    if !terrace_testsupport::require_moto() {
        return;
    }
    let mut moto = engine_support::Moto::start();
    let key_id = moto.query(
        "kms = client('kms', 'us-east-1')\nprint(json.dumps(kms.create_key()['KeyMetadata']['KeyId']))\n",
    );
    let key_id = key_id.as_str().expect("a key id").to_string();
    let kms = format!(
        "    key_provider \"aws_kms\" \"kms\" {{\n      kms_key_id = \"{key_id}\"\n      key_spec   = \"AES_256\"\n      region     = \"us-east-1\"\n      access_key = \"test\"\n      secret_key = \"test\"\n      endpoints {{\n        kms = \"{}\"\n      }}\n    }}\n    method \"aes_gcm\" \"kms\" {{\n      keys = key_provider.aws_kms.kms\n    }}\n",
        moto.endpoint
    );
    let work = work("enc-kms");
    work.write(
        "main.tf",
        &config(&format!(
            "{}{}",
            key("k", PASSPHRASE),
            state_target("aes_gcm.k", None, false)
        )),
    );
    work.terrace_ok(&["init"], 0);
    work.terrace_ok(&["apply", "-auto-approve"], 0);

    work.write(
        "main.tf",
        &config(&format!(
            "{}{kms}{}",
            key("k", PASSPHRASE),
            state_target("aes_gcm.kms", Some("aes_gcm.k"), false)
        )),
    );
    work.terrace_ok(&["apply", "-auto-approve"], 0);
    let stored = envelope(&work.state_bytes());
    assert_eq!(meta_keys(&stored), vec!["key_provider.aws_kms.kms"]);
    let meta = base64_decode(
        stored["meta"]["key_provider.aws_kms.kms"]
            .as_str()
            .expect("meta"),
    );
    let meta: serde_json::Value = serde_json::from_slice(&meta).expect("meta JSON");
    assert!(meta["ciphertext_blob"].is_string(), "{meta}");

    work.write(
        "main.tf",
        &config(&format!(
            "{kms}{}",
            state_target("aes_gcm.kms", None, false)
        )),
    );
    let plan = plan_exit(&work);
    assert_eq!(plan.code, Some(0), "{}", plan.output());

    // A KMS that no longer has the key (a new, empty server).
    moto.restart();
    let before = work.state_bytes();
    let refused = work.terrace(&["apply", "-auto-approve"]);
    assert_eq!(refused.code, Some(1), "{}", refused.output());
    assert!(
        flat(&refused).contains("key_provider.aws_kms.kms failed with error"),
        "{}",
        refused.output()
    );
    assert_eq!(work.state_bytes(), before, "the state file is unchanged");
}

fn base64_decode(text: &str) -> Vec<u8> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::new();
    let (mut buffer, mut bits) = (0u32, 0);
    for c in text.bytes().filter(|c| *c != b'=') {
        let Some(v) = ALPHABET.iter().position(|a| *a == c) else {
            continue;
        };
        buffer = (buffer << 6) | v as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buffer >> bits) as u8);
        }
    }
    out
}
