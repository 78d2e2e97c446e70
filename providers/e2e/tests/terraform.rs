//! Terraform 1.11 driving the bundled providers: a configuration using
//! every one of them (the random results feeding the others) goes through
//! init, apply, a plan with no changes, and destroy; then the behaviours
//! providers are written for, each through Terraform itself: partial
//! state after a failed update, import, an object vanishing outside
//! Terraform, timeouts, and attribute-precise diagnostics for bad values.

use provider_e2e::{resource_in, setup, Workspace};

const ALL_PROVIDERS: &str = r#"
terraform {
  required_providers {
    random = { source = "hashicorp/random" }
    null   = { source = "hashicorp/null" }
    local  = { source = "hashicorp/local" }
    kv     = { source = "terrace/kv" }
  }
}

provider "kv" {
  directory = "${path.module}/store"
  namespace = "blue"
}

provider "kv" {
  alias     = "green"
  directory = "${path.module}/store"
  namespace = "green"
}

resource "random_pet" "name" {
  length = 3
}

resource "random_id" "id" {
  byte_length = 6
  prefix      = "id-"
}

resource "random_integer" "n" {
  min = 1
  max = 100
}

resource "random_string" "s" {
  length  = 12
  special = false
}

resource "random_password" "p" {
  length    = 20
  min_upper = 2
}

resource "random_shuffle" "sh" {
  input        = ["a", "b", "c", "d"]
  result_count = 2
}

resource "random_uuid" "u" {}

resource "random_bytes" "b" {
  length = 16
}

resource "null_resource" "n" {
  triggers = {
    pet = random_pet.name.id
  }
}

data "null_data_source" "d" {
  inputs = {
    pet = random_pet.name.id
  }
}

resource "local_file" "pet" {
  filename        = "${path.module}/out/pet.txt"
  content         = "${random_pet.name.id} ${random_id.id.hex}"
  file_permission = "0644"
}

resource "local_sensitive_file" "secret" {
  filename = "${path.module}/out/secret.txt"
  content  = random_password.p.result
}

data "local_file" "pet" {
  filename = local_file.pet.filename
}

resource "kv_entry" "blue" {
  key   = random_pet.name.id
  value = random_string.s.result
  tags = {
    uuid    = random_uuid.u.result
    shuffle = join(",", random_shuffle.sh.result)
  }
}

resource "kv_entry" "green" {
  provider = kv.green
  key      = "number"
  value    = tostring(random_integer.n.result)
}

data "kv_entry" "blue" {
  key = kv_entry.blue.key
}

output "pet" {
  value = random_pet.name.id
}

output "file" {
  value = data.local_file.pet.content
}

output "stored" {
  value = data.kv_entry.blue.value == random_string.s.result
}

output "null_outputs" {
  value = data.null_data_source.d.outputs["pet"] == random_pet.name.id
}

output "entry_id" {
  value = provider::kv::entry_id("blue", random_pet.name.id) == kv_entry.blue.id
}
"#;

#[test]
fn all_bundled_providers_apply_plan_clean_and_destroy() {
    let Some(bin) = setup() else { return };
    let ws = Workspace::new("all", &bin, ALL_PROVIDERS);
    let init = ws.expect(&["init", "-input=false"], 0);
    assert!(
        init.stdout
            .contains("Terraform has been successfully initialized"),
        "{}",
        init.output()
    );
    let applied = ws.expect(&["apply", "-auto-approve"], 0);
    assert!(
        applied
            .stdout
            .contains("Apply complete! Resources: 13 added"),
        "{}",
        applied.output()
    );
    let pet = std::fs::read_to_string(ws.path("out/pet.txt")).unwrap();
    let state = ws.state();
    let state_pet = resource_in(&state, "random_pet.name").unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(pet.starts_with(&state_pet), "{pet}");
    assert_eq!(state_pet.split('-').count(), 3);
    let blue = resource_in(&state, "kv_entry.blue").unwrap();
    let stored = std::fs::read_to_string(ws.path(&format!("store/blue/{state_pet}"))).unwrap();
    assert_eq!(blue["value"].as_str(), Some(stored.as_str()));
    assert!(ws.path("store/green/number").is_file());
    let outputs = ws.outputs();
    for output in ["stored", "null_outputs", "entry_id"] {
        assert_eq!(outputs[output], true, "{output}");
    }
    let plan = ws.expect(&["plan", "-detailed-exitcode"], 0);
    assert!(plan.stdout.contains("No changes."), "{}", plan.output());
    ws.expect(&["destroy", "-auto-approve"], 0);
    assert!(!ws.path("out/pet.txt").exists());
    assert!(!ws.path(&format!("store/blue/{state_pet}")).exists());
}

const KV: &str = r#"
terraform {
  required_providers {
    kv = { source = "terrace/kv" }
  }
}

provider "kv" {
  directory = "${path.module}/store"
}

variable "value" {
  default = "one"
}

variable "tag" {
  default = "a"
}

variable "create_timeout" {
  default = "1m"
}

resource "kv_entry" "e" {
  key   = "entry"
  value = var.value
  tags  = { t = var.tag }
  timeouts {
    create = var.create_timeout
  }
}
"#;

#[test]
fn failed_update_leaves_partial_state_that_the_next_apply_finishes() {
    let Some(bin) = setup() else { return };
    let ws = Workspace::new("partial", &bin, KV);
    ws.expect(&["apply", "-auto-approve"], 0);
    // The tags cannot be written while a directory sits where they are
    // written (they are renamed into place from there).
    let blocker = ws.path("store/default/entry.tags.tmp");
    std::fs::create_dir(&blocker).unwrap();
    let failed = ws.expect(
        &[
            "apply",
            "-auto-approve",
            "-var",
            "value=two",
            "-var",
            "tag=b",
        ],
        1,
    );
    assert!(
        failed.stderr.contains("Cannot write tags"),
        "{}",
        failed.output()
    );
    let state = ws.resource("kv_entry.e").unwrap();
    assert_eq!(state["value"], "two", "the finished part is recorded");
    assert_eq!(
        state["tags"]["t"], "a",
        "the unfinished part keeps its old value"
    );
    std::fs::remove_dir(&blocker).unwrap();
    let plan = ws.expect(
        &[
            "plan",
            "-detailed-exitcode",
            "-var",
            "value=two",
            "-var",
            "tag=b",
        ],
        2,
    );
    assert!(plan.stdout.contains("1 to change"), "{}", plan.output());
    assert!(
        !plan.stdout.contains("\"one\""),
        "only the tags are left to change:\n{}",
        plan.stdout
    );
    ws.expect(
        &[
            "apply",
            "-auto-approve",
            "-var",
            "value=two",
            "-var",
            "tag=b",
        ],
        0,
    );
    assert_eq!(
        std::fs::read_to_string(ws.path("store/default/entry.tags")).unwrap(),
        r#"{"t":"b"}"#
    );
    ws.expect(
        &[
            "plan",
            "-detailed-exitcode",
            "-var",
            "value=two",
            "-var",
            "tag=b",
        ],
        0,
    );
}

#[test]
fn objects_vanishing_outside_terraform_are_recreated() {
    let Some(bin) = setup() else { return };
    let ws = Workspace::new("vanish", &bin, KV);
    ws.expect(&["apply", "-auto-approve"], 0);
    std::fs::remove_file(ws.path("store/default/entry")).unwrap();
    let plan = ws.expect(&["plan", "-detailed-exitcode"], 2);
    assert!(plan.stdout.contains("will be created"), "{}", plan.output());
    ws.expect(&["apply", "-auto-approve"], 0);
    assert_eq!(
        std::fs::read_to_string(ws.path("store/default/entry")).unwrap(),
        "one"
    );
    ws.expect(&["plan", "-detailed-exitcode"], 0);
}

#[test]
fn import_adopts_an_existing_entry() {
    let Some(bin) = setup() else { return };
    let ws = Workspace::new("import", &bin, KV);
    std::fs::create_dir_all(ws.path("store/default")).unwrap();
    std::fs::write(ws.path("store/default/entry"), "one").unwrap();
    std::fs::write(ws.path("store/default/entry.tags"), r#"{"t":"a"}"#).unwrap();
    let missing = ws.expect(&["import", "kv_entry.e", "missing"], 1);
    assert!(
        missing
            .stderr
            .contains("Cannot import non-existent remote object"),
        "{}",
        missing.output()
    );
    ws.expect(&["import", "kv_entry.e", "entry"], 0);
    let state = ws.resource("kv_entry.e").unwrap();
    assert_eq!(state["id"], "default/entry");
    assert_eq!(state["value"], "one");
    // Imported state has no timeouts block; adding the configured one is
    // the only change, made in place.
    let plan = ws.terraform(&["plan", "-detailed-exitcode"]);
    assert_ne!(plan.code, Some(1), "{}", plan.output());
    assert!(
        !plan.stdout.contains("must be replaced"),
        "{}",
        plan.output()
    );
    ws.expect(&["apply", "-auto-approve"], 0);
    ws.expect(&["plan", "-detailed-exitcode"], 0);
}

#[test]
fn timeouts_end_operations_that_wait_too_long() {
    let Some(bin) = setup() else { return };
    let ws = Workspace::new("timeout", &bin, KV);
    std::fs::create_dir_all(ws.path("store/default")).unwrap();
    std::fs::write(ws.path("store/default/.lock"), "").unwrap();
    let started = std::time::Instant::now();
    let failed = ws.expect(&["apply", "-auto-approve", "-var", "create_timeout=1s"], 1);
    assert!(
        failed.stderr.contains("Timeout while waiting for create"),
        "{}",
        failed.output()
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(50),
        "the 1s timeout was not applied"
    );
    assert!(ws.resource("kv_entry.e").is_none());
    std::fs::remove_file(ws.path("store/default/.lock")).unwrap();
    ws.expect(&["apply", "-auto-approve", "-var", "create_timeout=1s"], 0);
}

#[test]
fn bad_values_get_diagnostics_at_the_attribute() {
    let Some(bin) = setup() else { return };
    let config = r#"
terraform {
  required_providers {
    random = { source = "hashicorp/random" }
    local  = { source = "hashicorp/local" }
  }
}

resource "random_password" "p" {
  length    = 2
  min_upper = 3
}

resource "local_file" "f" {
  filename        = "x.txt"
  content         = "x"
  file_permission = "999"
}
"#;
    let ws = Workspace::new("diagnostics", &bin, config);
    let run = ws.expect(&["validate"], 1);
    // Terraform shows the source line of the attribute each error is about.
    assert!(
        run.stderr.contains("with random_password.p,"),
        "{}",
        run.output()
    );
    assert!(run.stderr.contains("length    = 2"), "{}", run.output());
    assert!(
        run.stderr.contains("Invalid File Permission String Value")
            || run.stderr.contains("bad mode permission"),
        "{}",
        run.output()
    );
    assert!(
        run.stderr.contains("file_permission = \"999\""),
        "{}",
        run.output()
    );
    assert!(!run.stderr.contains("panic"), "{}", run.output());
}

const SEEDED: &str = r#"
terraform {
  required_providers {
    random = { source = "hashicorp/random" }
  }
}

variable "keepers" {
  type    = map(string)
  default = {}
}

resource "random_shuffle" "s" {
  input   = ["a", "b", "c", "d", "e"]
  seed    = "-"
  keepers = var.keepers
}

resource "random_integer" "i" {
  min  = 1
  max  = 3
  seed = "12345"
}

output "shuffled" {
  value = join("", random_shuffle.s.result)
}

output "integer" {
  value = random_integer.i.result
}
"#;

#[test]
fn seeds_and_keepers_behave_as_in_hashicorp_random() {
    let Some(bin) = setup() else { return };
    let ws = Workspace::new("seeded", &bin, SEEDED);
    ws.expect(&["apply", "-auto-approve"], 0);
    // hashicorp/random's results for these seeds (its acceptance tests).
    let outputs = ws.outputs();
    assert_eq!(outputs["shuffled"], "acbed");
    assert_eq!(outputs["integer"], 3);
    // A key with a null value added to the keepers: an update in place.
    let null_key = ["-var", "keepers={ k = null }"];
    let plan = ws.expect(
        &[&["plan", "-detailed-exitcode"][..], &null_key].concat(),
        2,
    );
    assert!(
        plan.stdout.contains("1 to change, 0 to destroy"),
        "{}",
        plan.output()
    );
    ws.expect(&[&["apply", "-auto-approve"][..], &null_key].concat(), 0);
    ws.expect(
        &[&["plan", "-detailed-exitcode"][..], &null_key].concat(),
        0,
    );
    // A value: a replacement.
    let plan = ws.expect(
        &[
            "plan",
            "-detailed-exitcode",
            "-var",
            "keepers={ k = \"1\" }",
        ],
        2,
    );
    assert!(
        plan.stdout.contains("random_shuffle.s must be replaced"),
        "{}",
        plan.output()
    );
}
